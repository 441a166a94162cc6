"""The server's own bot players.

A server bot is an account the server made for a strategy: `bot_strategy` set (no API
sets it), `is_bot`, an unusable password. Bots are found by that flag, never by
username, so no registration can take a bot's place at a table; the username
(`bot-cautious-2`) is only how the bot is shown, and registration reserves the `bot-`
prefix so nobody can look like one. A bot's stakes come straight from the house's
bankroll and go back to it (`games.stakes`): bots have no wallet to share, so tables
never race for it; only `games.stakes.STAKED_STRATEGIES` play for chips.
"""

from django.contrib.auth.hashers import make_password
from django.db import IntegrityError, transaction
from django.db.models import QuerySet

from accounts.models import User
from games.engine import bots
from games.models import Match
from games.services.locks import bot_name_try_lock
from games.stakes import STAKED_STRATEGIES, plays_for_chips

STRATEGIES = tuple(bots.STRATEGIES)
# What each strategy plays like, in plain words for whoever picks one (GET /bots/ and
# the play page's bot picker).
DESCRIPTIONS = {
    "easy": "Calls liar too readily, the beginner's mistake: bid it up and let it call.",
    "medium": "Plays the odds of its own dice: calls unlikely bids and raises safely.",
    "hard": "Takes every bid as the truth and jumps when it is sure: strong but readable.",
    "expert": "Mixes bluffs with honest bids from the same hands and weighs each kind of "
    "bid by how often it is a bluff: built not to be read.",
    "random": "Any legal move at random: for testing a client, not a game; never plays for chips.",
    "cautious": "The medium bot under its first name; it also plays for a player who ran "
    "out of time (`on_timeout: auto`).",
}
# For a `strategy` field: the schema's enum then says what each value plays like.
STRATEGY_CHOICES = [(s, DESCRIPTIONS[s]) for s in STRATEGIES]
STRATEGY_HELP = (
    "The bot's level: `easy`, `medium`, `hard` or `expert`, weakest first (GET /bots/ "
    "lists them); `random` and `cautious` (the medium bot's first name) are taken too. "
    f"Where there is a buy-in, only {' and '.join(f'`{s}`' for s in STAKED_STRATEGIES)} "
    "play (`bot_not_staked` otherwise): the house stakes them from its bankroll."
)
# Tries at a free username before giving up; a name is taken only by a concurrent
# creation or by an account registered before the prefix was reserved.
_NAME_ATTEMPTS = 20


def strategy_list() -> list[dict]:
    """Every strategy a server bot plays: the levels weakest first (`level` 1 up), then
    the ones outside the ladder (`level` null); `plays_for_chips` says whether the house
    stakes it where there is a buy-in."""
    levels = {name: rank for rank, name in enumerate(bots.LEVELS, start=1)}
    ordered = [*bots.LEVELS, *(s for s in STRATEGIES if s not in levels)]
    return [
        {
            "strategy": s,
            "level": levels.get(s),
            "description": DESCRIPTIONS[s],
            "plays_for_chips": plays_for_chips(s),
        }
        for s in ordered
    ]


def server_bots(strategy: str) -> QuerySet[User]:
    """The server's bot accounts playing `strategy`, oldest first."""
    return User.objects.filter(bot_strategy=strategy, is_bot=True).order_by("pk")


def server_bot(
    strategy: str, *, free_at: Match | None = None, excluding: QuerySet | None = None
) -> User:
    """A server bot playing `strategy` (one with no seat at `free_at`, and none of the
    user ids `excluding`, when given): the oldest such account, else a new one."""
    for _ in range(_NAME_ATTEMPTS):
        bots = server_bots(strategy)
        if free_at is not None:
            bots = bots.exclude(pk__in=free_at.seats.values("player_id"))
        if excluding is not None:
            bots = bots.exclude(pk__in=excluding)
        bot = bots.first()
        if bot is not None:
            return bot
        name_index = server_bots(strategy).count()
        while not _name_free(_bot_name(strategy, name_index)):
            name_index += 1
        try:
            with transaction.atomic():
                return User.objects.create(
                    username=_bot_name(strategy, name_index),
                    is_bot=True,
                    bot_strategy=strategy,
                    password=make_password(None),
                )
        except IntegrityError:
            continue  # a concurrent request took that name: look again
    raise RuntimeError(f"No free username for a new {strategy} bot.")


def _name_free(name: str) -> bool:
    """Whether `name` is free for this transaction to create, which then holds it until
    it ends. A name another transaction is creating (so its row is not committed) counts
    as taken: waiting for that transaction on the username index would deadlock two
    transactions creating bots in opposite orders (the lock is only tried, never waited
    for, and the next name is used instead)."""
    if not bot_name_try_lock(name):
        return False
    return not User.objects.filter(username__iexact=name).exists()


def _bot_name(strategy: str, index: int) -> str:
    return f"bot-{strategy}" if index == 0 else f"bot-{strategy}-{index}"
