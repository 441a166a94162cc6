"""The rules as players read them: each family's round in short, every option and each of
its values in plain words, the hands of poker dice, what chips cost, and each preset
with the examples of its rule sheet (docs/seeds/).

The one source of these texts: `GET /api/v1/rulesets/help/` serves `rules_help()` (the
play page shows it), and docs/RULES.md section 5 is `rules_help_markdown()`, written by
`manage.py rules_help --write`; tests/games/test_rules_help.py fails when the two differ
or when an option, value, preset or hand has no text.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from games.engine.common_pool.rules import COMMON_POOL
from games.engine.poker_dice.rules import POKER_DICE


@dataclass(frozen=True)
class ValueHelp:
    value: str | bool
    label: str
    text: str


@dataclass(frozen=True)
class OptionHelp:
    name: str
    label: str
    text: str
    values: tuple[ValueHelp, ...] = ()


@dataclass(frozen=True)
class HandHelp:
    name: str
    text: str


@dataclass(frozen=True)
class FamilyHelp:
    family: str
    title: str
    basics: tuple[str, ...]
    chips: tuple[str, ...]
    options: tuple[OptionHelp, ...]
    hands: tuple[HandHelp, ...] = ()


@dataclass(frozen=True)
class PresetHelp:
    name: str
    family: str
    title: str
    summary: str
    examples: tuple[str, ...]


def _on_off(on: tuple[str, str], off: tuple[str, str]) -> tuple[ValueHelp, ValueHelp]:
    return ValueHelp(True, *on), ValueHelp(False, *off)


COMMON_POOL_HELP = FamilyHelp(
    family=COMMON_POOL,
    title="Liar's Dice (everyone's dice count)",
    basics=(
        "Everyone rolls their dice under a cup and looks only at their own.",
        "A bid is about every die on the table, yours and everyone else's: “eight 5s” "
        "says at least eight dice show a 5.",
        "In turn, clockwise, raise the bid (more dice, or as many dice of a higher face) "
        "or call “Liar!”.",
        "On a liar call every cup is lifted and the dice that match the bid are counted: "
        "the bid holds when there are at least as many as it said.",
        "Whoever loses dice puts them away; lose your last die and you are out. The last "
        "player with dice wins.",
    ),
    chips=(
        "With a buy-in, each player brings that many chips to the table from their wallet.",
        "Every round each player still in pays the ante twice: once into the round pot, "
        "which the winner of that round's call takes, and once into the game pot, which "
        "the winner of the match takes. An ante of 2 costs 4 chips a round.",
        "When the match ends, what is left of your stack goes back to your wallet. "
        "Without a buy-in there are no chips and no ante.",
    ),
    options=(
        OptionHelp(
            "dice_per_player",
            "Dice per player",
            "How many dice each player starts with (1 to 10).",
        ),
        OptionHelp(
            "ones_wild",
            "Ones are wild",
            "Whether a 1 counts toward bids on other faces.",
            _on_off(
                (
                    "Yes",
                    "A 1 counts as any face: for “eight 5s” every 5 and every 1 counts. "
                    "A bid on 1s counts only 1s.",
                ),
                ("No", "Only dice showing the face bid count."),
            ),
        ),
        OptionHelp(
            "ones_bids",
            "Bids on 1s",
            "Where a bid on 1s stands among the other bids.",
            (
                ValueHelp(
                    "half",
                    "Half as many",
                    "A bid on 1s needs more than half as many dice as the bid before: "
                    "after “five 4s” the lowest is “three 1s”, after “six 5s” it is "
                    "“four 1s”. Back from 1s, double it: after “four 1s” the lowest is "
                    "“eight 3s” (eight of any face).",
                ),
                ValueHelp(
                    "face",
                    "Just the lowest face",
                    "A 1 is an ordinary face, the lowest: bids run “one 1”, “one 2” … "
                    "“one 6”, “two 1s”, “two 2s” …; after “two 2s” nothing below “two 3s” "
                    "is allowed.",
                ),
                ValueHelp("forbidden", "Not allowed", "Nobody may bid on 1s."),
                ValueHelp(
                    "perudo",
                    "Perudo: half, rounded up",
                    "To switch to 1s (aces), halve the count, rounded up: after “nine 4s” "
                    "the lowest is “five 1s”. To switch back, double it and add one: after "
                    "“five 1s” the lowest is “eleven” of any face. Nobody opens on 1s, "
                    "except in a palifico round.",
                ),
            ),
        ),
        OptionHelp(
            "loss",
            "A lost call costs",
            "How many dice the loser of a liar call gives up.",
            (
                ValueHelp(
                    "difference",
                    "The difference",
                    "As many dice as the bid was off by: “eight 5s” with eleven counted "
                    "costs the challenger 3 dice.",
                ),
                ValueHelp("one", "One die", "One die, however far off the bid was."),
            ),
        ),
        OptionHelp(
            "exact_outcome",
            "When the count is exactly the bid",
            "Who loses when a liar call finds exactly as many dice as the bid said.",
            (
                ValueHelp(
                    "others_lose_one",
                    "Everyone but the bidder loses one",
                    "The bidder was spot on: every other player loses one die.",
                ),
                ValueHelp(
                    "challenger_loses_one",
                    "The challenger loses one",
                    "The bid held: the player who called liar loses one die.",
                ),
            ),
        ),
        OptionHelp(
            "exact_spares_last_die",
            "Exact count spares a last die",
            "Only matters when everyone but the bidder loses one on an exact count.",
            _on_off(
                (
                    "Yes",
                    "A player down to their last die who is neither the bidder nor the "
                    "challenger keeps it.",
                ),
                ("No", "Nobody is spared: a last die is lost like any other."),
            ),
        ),
        OptionHelp(
            "first_opener",
            "Who opens the first round",
            "Who makes the first bid of the match.",
            (
                ValueHelp("random", "Drawn at random", "A player drawn at random opens."),
                ValueHelp(
                    "creator",
                    "The match's creator",
                    "The player who created the match opens, or the seat they name.",
                ),
                ValueHelp(
                    "roll_off",
                    "A roll-off",
                    "Everyone rolls one die and the highest opens; the tied highest roll again.",
                ),
            ),
        ),
        OptionHelp(
            "next_opener",
            "Who opens the next rounds",
            "Who makes the first bid of every later round. If that player is out, the "
            "next player clockwise opens.",
            (
                ValueHelp(
                    "challenge_winner",
                    "The winner of the last call",
                    "Whoever won the last liar call opens.",
                ),
                ValueHelp(
                    "round_loser",
                    "The loser of the last round",
                    "Whoever lost dice opens (of several, the one with the fewest dice "
                    "left); after a right exact call, the caller.",
                ),
                ValueHelp(
                    "challenger",
                    "The last challenger",
                    "Whoever called liar last opens.",
                ),
            ),
        ),
        OptionHelp(
            "show_and_reroll",
            "Show and reroll",
            "Putting some dice face up to reroll the rest when you raise (never on an "
            "opening bid). Shown dice stay in view and count at the reveal; at least one "
            "die stays in the cup.",
            (
                ValueHelp("off", "Not allowed", "Nobody shows dice before the reveal."),
                ValueHelp(
                    "after_reroll",
                    "Show, reroll, look, then raise",
                    "Show one or more dice, reroll the rest, look at them, then you must "
                    "raise. The bid is “ten 6s” and you hold 6, 1, 4, 4: show the 6 and "
                    "the 1, reroll the two 4s, then raise to “eleven 6s”.",
                ),
                ValueHelp(
                    "before_raise",
                    "Raise and show, then reroll",
                    "The 1987 order: you raise and choose dice to show in one move; the "
                    "rest of your cup is rerolled after the raise.",
                ),
            ),
        ),
        OptionHelp(
            "exact_call",
            "“Exact” call (calza)",
            "Instead of raising or calling liar, a player may say the bid is exactly right.",
            _on_off(
                (
                    "Allowed",
                    "Right (the bid is “seven 4s” and there are exactly seven), you win "
                    "back one lost die; wrong, you lose one.",
                ),
                ("Not allowed", "Raise or call liar."),
            ),
        ),
        OptionHelp(
            "pass_call",
            "Pass (once a round)",
            "Passing instead of raising or calling liar.",
            _on_off(
                (
                    "Allowed",
                    "Once a round, anyone but the opener may pass; the bid stands. The "
                    "next liar call may target the last bidder or a player who passed. A "
                    "challenged passer shows their dice and loses one if two of them "
                    "match (1s not wild); otherwise the challenger loses one. A passer "
                    "showing 1, 2, 4, 5 costs the challenger a die.",
                ),
                ("Not allowed", "No passing: raise or call liar."),
            ),
        ),
        OptionHelp(
            "palifico",
            "Palifico rounds",
            "Perudo's special round for a player down to one die.",
            _on_off(
                (
                    "Yes",
                    "The round after a player first drops to one die is palifico (once per "
                    "player): 1s are not wild, and the opening bid fixes the face for the "
                    "whole round; later bids only raise the count.",
                ),
                ("No", "No palifico rounds."),
            ),
        ),
    ),
)

POKER_DICE_HELP = FamilyHelp(
    family=POKER_DICE,
    title="Poker-dice Liar Dice (one box, poker hands)",
    basics=(
        "One box of five poker dice (9, 10, J, Q, K, A) goes round the table.",
        "Player one shakes it, looks, bids a poker hand and chooses whether play goes left "
        "or right this round, then may not touch the dice again.",
        "The next player either calls “Liar!”, or accepts: looks in the box, stands any "
        "dice on the shelf, shakes the others, looks, and bids a higher hand.",
        "A liar call opens the box: if it holds the hand bid or better, the challenger "
        "loses a life; otherwise the bidder does. Whoever lost the life is player one "
        "next round.",
        "Nobody checks a bid until someone calls liar: you may bid blind, or lie.",
        "The first player to lose every life buys the jug: they lose, everyone else wins.",
    ),
    chips=(
        "With a buy-in, each player brings that many chips to the table from their wallet.",
        "Every round each player still in pays the ante twice: once into the round pot, "
        "which the winner of that round's call takes, and once into the game pot, which "
        "everyone but the loser of the match shares. An ante of 2 costs 4 chips a round.",
        "When the match ends, what is left of your stack goes back to your wallet. "
        "Without a buy-in there are no chips and no ante.",
    ),
    options=(
        OptionHelp(
            "lives",
            "Lives",
            "How many lives each player starts with (1 to 10); lose them all and you buy the jug.",
        ),
    ),
    hands=(
        HandHelp("Five of a kind", "Five dice of one rank: “five kings”."),
        HandHelp("Four of a kind", "“Four jacks”; naming the fifth die raises it."),
        HandHelp("Full house", "Three of a kind and a pair: “queens over 9s”."),
        HandHelp(
            "Straight",
            "Only two: A-K-Q-J-10 (high) beats K-Q-J-10-9 (low).",
        ),
        HandHelp("Three of a kind", "“Three jacks”, with two odd dice."),
        HandHelp(
            "Two pairs",
            "“Two pairs, aces over 9s”: the higher pair first, then the lower.",
        ),
        HandHelp("One pair", "“A pair of queens”."),
        HandHelp("High die", "No pair and no straight: named by the highest die, “ace high”."),
        HandHelp(
            "Junk",
            "No claim at all: only player one may bid it, as the opening bid.",
        ),
    ),
)

# The odd dice of a bid (kickers): from sheet 004's note on the rank of bids.
KICKERS = (
    "Naming the odd dice raises a bid of the same hand: “four jacks and a queen” beats "
    "“four jacks and a 10”, which beats “four jacks”. Hands are compared by kind, then "
    "by the dice that make them, then by the odd dice from the highest down."
)

PRESET_HELP = (
    PresetHelp(
        "milton_bradley",
        COMMON_POOL,
        "Milton Bradley (board game)",
        "The 1987 board game's rules: ones wild, a lost call costs the difference, an "
        "exact count costs everyone but the bidder a die, and show and reroll.",
        (
            "You call liar on “eight 5s”: seven 5s and four 1s are counted, eleven in all. "
            "The bid held; you lose the difference, 3 dice.",
            "You call liar on “seven 1s”: five 1s are counted. The bidder loses 2 dice.",
            "You call liar on “fourteen 2s” and there are exactly fourteen: everyone but "
            "the bidder loses one die, except a player on their last die who is neither "
            "bidder nor challenger.",
            "The bid is “ten 6s” and you hold 6, 1, 4, 4: show the 6 and the 1, reroll the "
            "two 4s, then raise to “eleven 6s”. The shown 6 and 1 count at the reveal.",
        ),
    ),
    PresetHelp(
        "wild_ones",
        COMMON_POOL,
        "Wild ones",
        "Ones wild, bids on 1s at half the count, a lost call costs the difference, an "
        "exact count costs everyone but the bidder a die; the loser opens.",
        (
            "After “five 4s” the lowest bid on 1s is “three 1s”; after “six 5s” it is “four 1s”.",
            "After “four 1s” the lowest bid on another face is “eight 3s”.",
            "“Five 3s” beats “four 5s”; “four 4s” beats “four 3s”.",
        ),
    ),
    PresetHelp(
        "roll_off",
        COMMON_POOL,
        "Roll-off",
        "Ones wild, a roll-off decides who opens, a lost call costs the difference, an "
        "exact count costs the challenger one die; the loser opens.",
        (
            "“Two 1s” beats “three 6s”; “three 1s” beats “five 3s”; “four 1s” beats “six 4s”.",
            "“Four 5s” beats “three 5s”; “seven 3s” beats “seven 2s”; “twelve 6s” beats "
            "“eight 4s”.",
            "A liar call on “five 4s” counts every 4 and every 1. Exactly five: the "
            "challenger loses one die.",
        ),
    ),
    PresetHelp(
        "classic",
        COMMON_POOL,
        "Classic",
        "Ones are an ordinary face, every lost call costs one die, and the last "
        "challenger opens. Exact and pass calls are variants to switch on.",
        (
            "Bids run 1.1, 1.2 … 1.6, 2.1, 2.2 …: from “two 2s” you may go to “two 3s” "
            "or beyond, never back to “two 1s” or “one 4”.",
            "After “three 4s”: “three 5s”, “four 2s” or “seven 6s”.",
            "Exact call: the bid is “seven 4s” and there are exactly seven; the caller "
            "wins back a lost die.",
            "Pass: a challenged passer showing 1, 2, 4, 5 has no pair; the challenger loses a die.",
        ),
    ),
    PresetHelp(
        "perudo",
        COMMON_POOL,
        "Perudo (Dudo)",
        "The South American game: aces (1s) wild, every lost call (dudo) costs one die, "
        "calza (exact) wins one back, palifico rounds; the loser opens.",
        (
            "After “nine 4s” the lowest bid on aces is “five 1s”.",
            "After “five 1s” the lowest bid on another face is “eleven 3s” (eleven of any face).",
            "Calza on “six 2s” with exactly six 2s and aces: the caller wins back a die.",
        ),
    ),
    PresetHelp(
        "poker_dice",
        POKER_DICE,
        "Poker dice",
        "One box of five poker dice passed round, poker hands as bids, three lives each.",
        (
            "“Four jacks and a 10” beats “four jacks”; “four jacks and a queen” beats both.",
            "A high straight (A-K-Q-J-10) beats a low straight (K-Q-J-10-9).",
        ),
    ),
)

FAMILY_HELP = (COMMON_POOL_HELP, POKER_DICE_HELP)


def _option(option: OptionHelp) -> dict[str, Any]:
    return {
        "name": option.name,
        "label": option.label,
        "text": option.text,
        "values": [{"value": v.value, "label": v.label, "text": v.text} for v in option.values],
    }


def rules_help() -> dict[str, Any]:
    """What `GET /rulesets/help/` answers (games.shapes.RulesHelpOutput)."""
    return {
        "families": [
            {
                "family": f.family,
                "title": f.title,
                "basics": list(f.basics),
                "chips": list(f.chips),
                "options": [_option(o) for o in f.options],
                "hands": [{"name": h.name, "text": h.text} for h in f.hands],
                "kickers": KICKERS if f.hands else None,
            }
            for f in FAMILY_HELP
        ],
        "presets": [
            {
                "name": p.name,
                "family": p.family,
                "title": p.title,
                "summary": p.summary,
                "examples": list(p.examples),
            }
            for p in PRESET_HELP
        ],
    }


# --- docs/RULES.md section 5 --------------------------------------------------------------

SECTION_START = "<!-- rules-help: from games/rules_help.py by `manage.py rules_help --write` -->"
SECTION_END = "<!-- rules-help: end -->"


def _value_word(value: str | bool) -> str:
    return ("on" if value else "off") if isinstance(value, bool) else f"`{value}`"


def _family_markdown(number: int, family: FamilyHelp) -> list[str]:
    lines = [f"### 5.{number} {family.title}", "", "A round:", ""]
    lines += [f"{i}. {step}" for i, step in enumerate(family.basics, 1)]
    if family.hands:
        lines += ["", "Hands, high to low:", ""]
        lines += [f"{i}. **{h.name}**: {h.text}" for i, h in enumerate(family.hands, 1)]
        lines += ["", KICKERS]
    lines += ["", "Chips: " + " ".join(family.chips), "", "Options:", ""]
    for option in family.options:
        lines.append(f"* **{option.label}** (`{option.name}`): {option.text}")
        lines += [f"  * {_value_word(v.value)}, *{v.label}*: {v.text}" for v in option.values]
    return [*lines, ""]


def rules_help_markdown() -> str:
    """docs/RULES.md section 5, markers included."""
    lines = [
        SECTION_START,
        "## 5. Rules help (what players read)",
        "",
        "The play page and `GET /api/v1/rulesets/help/` give players these texts; they "
        "say in short what sections 1-3 specify.",
        "",
    ]
    for number, family in enumerate(FAMILY_HELP, 1):
        lines += _family_markdown(number, family)
    lines += [f"### 5.{len(FAMILY_HELP) + 1} The presets", ""]
    for preset in PRESET_HELP:
        lines += [f"**{preset.title}** (`{preset.name}`): {preset.summary}", ""]
        lines += [f"* {example}" for example in preset.examples]
        lines.append("")
    lines.append(SECTION_END)
    return "\n".join(lines) + "\n"


def with_rules_help(page: str) -> str:
    """docs/RULES.md's text with section 5 as the texts here make it (added at the end
    when it has none)."""
    start, end = page.find(SECTION_START), page.find(SECTION_END)
    if start < 0 or end < start:
        return page.rstrip("\n") + "\n\n" + rules_help_markdown()
    return page[:start] + rules_help_markdown() + page[end + len(SECTION_END) + 1 :]
