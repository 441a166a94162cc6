"""Common-pool match state and its JSON form (stored in PostgreSQL JSONB).

Dice live in the state, never in events: the server reads them from here (for
commitments) and `view_for` decides who may see them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..action_fields import LazyLastRound, frozen_evolve
from ..errors import ErrorCode, IllegalAction
from .rules import CommonPoolRules

# Round records, action records and event payloads are plain dicts that the engine
# never mutates after creating them; they are shared between successive states.


@frozen_evolve
@dataclass(frozen=True)
class CommonPoolRound:
    """One round of common-pool Liar's Dice.

    `dice[s]` are the dice in seat s's cup (indexes in `show` refer to them),
    `shown[s]` the dice put face up this round, `rolls[s]` every roll seat s made this
    round in order (the first is the full roll, then one entry per reroll).
    """

    number: int
    opener: int
    turn: int
    dice: tuple[tuple[int, ...], ...]
    shown: tuple[tuple[int, ...], ...]
    rolls: tuple[tuple[tuple[int, ...], ...], ...]
    bid: tuple[int, int] | None = None
    bid_key: int = -1
    bidder: int = -1
    passed: tuple[int, ...] = ()  # seats that used their pass this round
    passes_since_bid: tuple[int, ...] = ()  # challenge targets besides the bidder
    must_raise: bool = False  # after_reroll: shown and rerolled, now must raise
    actions: tuple[dict, ...] = ()
    roll_off: tuple[dict, ...] = ()  # first_opener roll_off: [{"<seat>": die}, ...]
    palifico: bool = False  # Perudo's palifico round: ones not wild, the face fixed

    def to_json(self) -> dict[str, Any]:
        return {
            "number": self.number,
            "opener": self.opener,
            "turn": self.turn,
            "dice": [list(d) for d in self.dice],
            "shown": [list(d) for d in self.shown],
            "rolls": [[list(x) for x in seat] for seat in self.rolls],
            "bid": None if self.bid is None else list(self.bid),
            "bid_key": self.bid_key,
            "bidder": self.bidder,
            "passed": list(self.passed),
            "passes_since_bid": list(self.passes_since_bid),
            "must_raise": self.must_raise,
            "actions": list(self.actions),
            "roll_off": list(self.roll_off),
            "palifico": self.palifico,
        }

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> CommonPoolRound:
        return cls(
            number=d["number"],
            opener=d["opener"],
            turn=d["turn"],
            dice=tuple(tuple(x) for x in d["dice"]),
            shown=tuple(tuple(x) for x in d["shown"]),
            rolls=tuple(tuple(tuple(x) for x in seat) for seat in d["rolls"]),
            bid=None if d["bid"] is None else (d["bid"][0], d["bid"][1]),
            bid_key=d["bid_key"],
            bidder=d["bidder"],
            passed=tuple(d["passed"]),
            passes_since_bid=tuple(d["passes_since_bid"]),
            must_raise=d["must_raise"],
            actions=tuple(d["actions"]),
            roll_off=tuple(d["roll_off"]),
            palifico=d.get("palifico", False),  # absent from rows stored before Perudo
        )


@frozen_evolve
@dataclass(frozen=True)
class CommonPoolState:
    """A whole common-pool match. Treat as a value: `apply` returns a new one."""

    rules: CommonPoolRules
    n_players: int
    creator_seat: int
    dice_counts: tuple[int, ...]  # dice held per seat (0 = out)
    live: tuple[bool, ...]  # still playing (not eliminated, not forfeited)
    eliminations: tuple[tuple[int, ...], ...]  # seats out, grouped by the event that removed them
    round: CommonPoolRound | None
    last_round: dict | None  # public record of the last finished round
    winners: tuple[int, ...] = ()
    finished: bool = False
    rolls: tuple[int, ...] = ()  # every value the dice source returned, in order (replay)
    version: int = 0  # number of actions applied
    palifico_seats: tuple[int, ...] = ()  # seats that have dropped to one die (had palifico)

    def to_json(self) -> dict[str, Any]:
        """A JSON-compatible dict (lists, str keys); inverse of `from_json`."""
        return {
            "rules": self.rules.to_dict(),
            "n_players": self.n_players,
            "creator_seat": self.creator_seat,
            "dice_counts": list(self.dice_counts),
            "live": list(self.live),
            "eliminations": [list(g) for g in self.eliminations],
            "round": None if self.round is None else self.round.to_json(),
            "last_round": self.last_round,
            "winners": list(self.winners),
            "finished": self.finished,
            "rolls": list(self.rolls),
            "version": self.version,
            "palifico_seats": list(self.palifico_seats),
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> CommonPoolState:
        """The state of `to_json` (extra keys of older rows, such as `lives`, are ignored)."""
        try:
            options = {k: v for k, v in data["rules"].items() if k != "family"}
            return cls(
                rules=CommonPoolRules(**options),
                n_players=data["n_players"],
                creator_seat=data["creator_seat"],
                dice_counts=tuple(data["dice_counts"]),
                live=tuple(data["live"]),
                eliminations=tuple(tuple(g) for g in data["eliminations"]),
                round=None if data["round"] is None else CommonPoolRound.from_json(data["round"]),
                last_round=data["last_round"],
                winners=tuple(data["winners"]),
                finished=data["finished"],
                rolls=tuple(data["rolls"]),
                version=data["version"],
                palifico_seats=tuple(data.get("palifico_seats", ())),
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise IllegalAction(ErrorCode.VALIDATION_ERROR, f"corrupt state: {exc!r}") from exc


# After the class is made, so that the dataclass does not take it for a default.
CommonPoolState.last_round = LazyLastRound()  # type: ignore[assignment]
