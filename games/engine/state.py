"""Immutable match state and its JSON form (stored in PostgreSQL JSONB).

Dice live in the state, never in events: the server reads them from here (for
commitments) and `view_for` decides who may see them.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any, TypeVar

from .errors import ErrorCode, IllegalAction
from .poker import hand_key
from .rules import Rules

T = TypeVar("T")


def _add_evolve(cls: type[T]) -> type[T]:
    """Give a frozen dataclass a fast `evolve(**changes)` (a copy with fields changed).

    apply() makes a new round and a new state for every action; dataclasses.replace()
    re-runs __init__ through object.__setattr__ per field (about 17 us for a State on
    the benchmark host). Copying the instance __dict__ is an order of magnitude cheaper
    and keeps the class frozen for everyone else. The classes have no __post_init__,
    so nothing is skipped.
    """
    names = frozenset(f.name for f in fields(cls))
    new = object.__new__

    def evolve(self: T, **changes: Any) -> T:
        assert names.issuperset(changes), set(changes) - names
        obj = new(cls)
        d = obj.__dict__
        d.update(self.__dict__)
        d.update(changes)
        return obj

    cls.evolve = evolve
    return cls


# Round records, action records and event payloads are plain dicts that the engine
# never mutates after creating them; they are shared between successive states.


@_add_evolve
@dataclass(frozen=True)
class PoolRound:
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


@_add_evolve
@dataclass(frozen=True)
class PokerRound:
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


@_add_evolve
@dataclass(frozen=True)
class State:
    """A whole match. Treat as a value: `apply` returns a new one."""

    rules: Rules
    n_players: int
    creator_seat: int
    dice_counts: tuple[int, ...]  # common pool: dice held per seat (0 = out)
    lives: tuple[int, ...]  # poker dice: lives per seat
    live: tuple[bool, ...]  # still playing (not eliminated, not forfeited)
    eliminations: tuple[tuple[int, ...], ...]  # seats out, grouped by the event that removed them
    round: PoolRound | PokerRound | None
    last_round: dict | None  # public record of the last finished round
    winners: tuple[int, ...] = ()
    loser: int = -1  # poker dice: the seat that "buys the jug"
    finished: bool = False
    rolls: tuple[int, ...] = ()  # every value the dice source returned, in order (replay)
    version: int = 0  # number of actions applied

    # --- JSON -------------------------------------------------------------------------

    def to_json(self) -> dict[str, Any]:
        """A JSON-compatible dict (lists, str keys); inverse of `State.from_json`."""
        return {
            "rules": self.rules.to_dict(),
            "n_players": self.n_players,
            "creator_seat": self.creator_seat,
            "dice_counts": list(self.dice_counts),
            "lives": list(self.lives),
            "live": list(self.live),
            "eliminations": [list(g) for g in self.eliminations],
            "round": _round_to_json(self.round),
            "last_round": self.last_round,
            "winners": list(self.winners),
            "loser": self.loser,
            "finished": self.finished,
            "rolls": list(self.rolls),
            "version": self.version,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> State:
        try:
            return cls(
                rules=Rules.from_dict(data["rules"]),
                n_players=data["n_players"],
                creator_seat=data["creator_seat"],
                dice_counts=tuple(data["dice_counts"]),
                lives=tuple(data["lives"]),
                live=tuple(data["live"]),
                eliminations=tuple(tuple(g) for g in data["eliminations"]),
                round=_round_from_json(data["round"]),
                last_round=data["last_round"],
                winners=tuple(data["winners"]),
                loser=data["loser"],
                finished=data["finished"],
                rolls=tuple(data["rolls"]),
                version=data["version"],
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise IllegalAction(ErrorCode.VALIDATION_ERROR, f"corrupt state: {exc!r}") from exc


def _round_to_json(r: PoolRound | PokerRound | None) -> dict | None:
    if r is None:
        return None
    if isinstance(r, PoolRound):
        return {
            "kind": "pool",
            "number": r.number,
            "opener": r.opener,
            "turn": r.turn,
            "dice": [list(d) for d in r.dice],
            "shown": [list(d) for d in r.shown],
            "rolls": [[list(x) for x in seat] for seat in r.rolls],
            "bid": None if r.bid is None else list(r.bid),
            "bid_key": r.bid_key,
            "bidder": r.bidder,
            "passed": list(r.passed),
            "passes_since_bid": list(r.passes_since_bid),
            "must_raise": r.must_raise,
            "actions": list(r.actions),
            "roll_off": list(r.roll_off),
        }
    return {
        "kind": "poker",
        "number": r.number,
        "player_one": r.player_one,
        "turn": r.turn,
        "phase": r.phase,
        "box": list(r.box),
        "shelf": list(r.shelf),
        "direction": r.direction,
        "bid": None if r.bid is None else list(r.bid),
        "bidder": r.bidder,
        "rolls": [list(x) for x in r.rolls],
        "actions": list(r.actions),
    }


def _round_from_json(d: dict | None) -> PoolRound | PokerRound | None:
    if d is None:
        return None
    if d["kind"] == "pool":
        return PoolRound(
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
        )
    return PokerRound(
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
