"""Every numeric limit of the game, in one place: the engine enforces them, the API's
serializers check shapes against them and the database constraints use them too."""

from __future__ import annotations

MIN_PLAYERS = 2
MAX_PLAYERS = 8
MAX_SEAT = MAX_PLAYERS - 1

# Common pool: six-sided dice, 1..10 per player (RULES 1).
MIN_FACE = 1
MAX_FACE = 6
FACES = tuple(range(MIN_FACE, MAX_FACE + 1))
MIN_DICE_PER_PLAYER = 1
MAX_DICE_PER_PLAYER = 10
MAX_QUANTITY = MAX_PLAYERS * MAX_DICE_PER_PLAYER  # every die on the table
MAX_SHOW = MAX_DICE_PER_PLAYER - 1  # at least one die stays in the cup to reroll

# Poker dice: one box of five dice, 1..10 lives (RULES 2).
BOX_SIZE = 5
MAX_HOLD = BOX_SIZE
MIN_LIVES = 1
MAX_LIVES = 10

# A player may claim the win when every opponent's turns were played by the timeout
# policy this many times in a row (games.services.endings).
CLAIM_AFTER_TIMEOUTS = 2
