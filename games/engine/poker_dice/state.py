"""Poker-dice match state and its JSON form (stored in PostgreSQL JSONB)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..action_fields import LazyLastRound, frozen_evolve
from ..errors import ErrorCode, IllegalAction
from .hands import hand_key
from .rules import PokerDiceRules


@frozen_evolve
@dataclass(frozen=True)
class PokerDiceRound:
    """One round of poker-dice Liar Dice. Ranks are ints 0..5 (9..A).

    phase: "bid" (holder has rolled and must bid), "respond" (accept or challenge),
    "reroll" (accepted: choose the dice on the shelf and re-shake).
    """

    number: int
    player_one: int
    turn: int
    phase: str
    box: tuple[int, ...]
    shelf: tuple[int, ...] = ()
    direction: int = 0  # +1 left (higher seats), -1 right; 0 before player one's bid
    bid: tuple[int, ...] | None = None  # named ranks of the standing bid; () = junk
    bidder: int = -1
    rolls: tuple[tuple[int, ...], ...] = ()  # the box after each shake, in order
    actions: tuple[dict, ...] = ()

    @property
    def bid_key(self) -> tuple[int, ...] | None:
        return None if self.bid is None else hand_key(self.bid)

    def to_json(self) -> dict[str, Any]:
        return {
            "number": self.number,
            "player_one": self.player_one,
            "turn": self.turn,
            "phase": self.phase,
            "box": list(self.box),
            "shelf": list(self.shelf),
            "direction": self.direction,
            "bid": None if self.bid is None else list(self.bid),
            "bidder": self.bidder,
            "rolls": [list(x) for x in self.rolls],
            "actions": list(self.actions),
        }

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> PokerDiceRound:
        return cls(
            number=d["number"],
            player_one=d["player_one"],
            turn=d["turn"],
            phase=d["phase"],
            box=tuple(d["box"]),
            shelf=tuple(d["shelf"]),
            direction=d["direction"],
            bid=None if d["bid"] is None else tuple(d["bid"]),
            bidder=d["bidder"],
            rolls=tuple(tuple(x) for x in d["rolls"]),
            actions=tuple(d["actions"]),
        )


@frozen_evolve
@dataclass(frozen=True)
class PokerDiceState:
    """A whole poker-dice match. Treat as a value: `apply` returns a new one."""

    rules: PokerDiceRules
    n_players: int
    creator_seat: int
    lives: tuple[int, ...]  # lives per seat
    live: tuple[bool, ...]  # still playing (everyone until the loser buys the jug)
    eliminations: tuple[tuple[int, ...], ...]  # the loser, once the match is over
    round: PokerDiceRound | None
    last_round: dict | None  # public record of the last finished round
    winners: tuple[int, ...] = ()
    loser: int = -1  # the seat that "buys the jug"
    finished: bool = False
    rolls: tuple[int, ...] = ()  # every value the dice source returned, in order (replay)
    version: int = 0  # number of actions applied

    def to_json(self) -> dict[str, Any]:
        """A JSON-compatible dict (lists, str keys); inverse of `from_json`."""
        return {
            "rules": self.rules.to_dict(),
            "n_players": self.n_players,
            "creator_seat": self.creator_seat,
            "lives": list(self.lives),
            "live": list(self.live),
            "eliminations": [list(g) for g in self.eliminations],
            "round": None if self.round is None else self.round.to_json(),
            "last_round": self.last_round,
            "winners": list(self.winners),
            "loser": self.loser,
            "finished": self.finished,
            "rolls": list(self.rolls),
            "version": self.version,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> PokerDiceState:
        """The state of `to_json` (extra keys of older rows, such as `dice_counts`, are ignored)."""
        try:
            options = {k: v for k, v in data["rules"].items() if k != "family"}
            return cls(
                rules=PokerDiceRules(**options),
                n_players=data["n_players"],
                creator_seat=data["creator_seat"],
                lives=tuple(data["lives"]),
                live=tuple(data["live"]),
                eliminations=tuple(tuple(g) for g in data["eliminations"]),
                round=None if data["round"] is None else PokerDiceRound.from_json(data["round"]),
                last_round=data["last_round"],
                winners=tuple(data["winners"]),
                loser=data["loser"],
                finished=data["finished"],
                rolls=tuple(data["rolls"]),
                version=data["version"],
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise IllegalAction(ErrorCode.VALIDATION_ERROR, f"corrupt state: {exc!r}") from exc


# After the class is made, so that the dataclass does not take it for a default.
PokerDiceState.last_round = LazyLastRound()  # type: ignore[assignment]
