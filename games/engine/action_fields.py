"""Checks of an action's fields and copies of the records both families share."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

from .errors import ErrorCode, FieldError, IllegalAction


class PlayState(Protocol):
    """What the shared checks read of either family's state."""

    n_players: int
    finished: bool
    live: tuple[bool, ...]


def action_header(state: PlayState, action: object) -> tuple[int, str]:
    """(seat, type) of an action a live seat may send now; IllegalAction otherwise."""
    try:  # the usual case first, in one pass; anything else is explained below
        seat = action["seat"]
        kind = action["type"]
        if (
            type(seat) is int
            and type(kind) is str
            and not state.finished
            and 0 <= seat < state.n_players
            and state.live[seat]
        ):
            return seat, kind
    except (KeyError, TypeError):
        pass
    return _explain_header(state, action)


def _explain_header(state: PlayState, action: object) -> tuple[int, str]:
    """The header checks one by one, for an action the fast path did not accept."""
    if not isinstance(action, dict):
        raise IllegalAction(ErrorCode.VALIDATION_ERROR, "an action must be a JSON object")
    seat = action.get("seat")
    if type(seat) is not int or not 0 <= seat < state.n_players:
        raise IllegalAction(
            ErrorCode.VALIDATION_ERROR, f"seat must be from 0 to {state.n_players - 1}", "seat"
        )
    kind = action.get("type")
    if not isinstance(kind, str):
        raise IllegalAction(ErrorCode.VALIDATION_ERROR, "type must be a string", "type")
    check_playing(state, seat)
    return seat, kind


def check_playing(state: PlayState, seat: int) -> None:
    """The match runs and `seat` is still in it."""
    if state.finished:
        raise IllegalAction(ErrorCode.MATCH_OVER, "the match is over")
    if not state.live[seat]:
        raise IllegalAction(ErrorCode.ILLEGAL_ACTION, "you are out of this match")


def not_your_turn(turn: int) -> IllegalAction:
    return IllegalAction(ErrorCode.NOT_YOUR_TURN, f"it is seat {turn}'s turn, not yours")


def unknown_type(kind: str) -> IllegalAction:
    return IllegalAction(ErrorCode.VALIDATION_ERROR, f"unknown action type {kind!r}", "type")


def req_int(action: dict, name: str) -> int:
    value = action.get(name)
    if type(value) is not int:  # rejects bool, float, str, None
        raise IllegalAction(ErrorCode.VALIDATION_ERROR, f"{name} must be an integer", name)
    return value


def opt_int(action: dict, name: str) -> int | None:
    if action.get(name) is None:
        return None
    return req_int(action, name)


@dataclass(frozen=True)
class BidFields:
    """The fields of one family's bid, to explain a bid that does not have them."""

    family: str  # as a player reads it: "common-pool"
    takes: str  # what a bid of this family takes, in words
    required: tuple[str, ...]
    integers: tuple[str, ...]  # those of `required` that are integers
    # The other family's bid fields, named as such when they come here.
    foreign: frozenset[str]
    foreign_family: str


def bid_fields_error(action: dict, bid: BidFields) -> IllegalAction:
    """The validation error of a bid without its family's fields, or with the other
    family's: every such field in `errors`; the detail names this match's family and
    what a bid takes here when a field of the other family came."""
    errors: list[FieldError] = [
        {
            "field": name,
            "code": "other_family",
            "detail": f"{name} is part of a {bid.foreign_family} bid, not a {bid.family} one.",
        }
        for name in sorted(bid.foreign)
        if name in action
    ]
    for name in bid.required:
        value = action.get(name)
        if value is None:
            errors.append({"field": name, "code": "required", "detail": f"A bid needs {name}."})
        elif name in bid.integers and type(value) is not int:
            errors.append(
                {"field": name, "code": "invalid", "detail": f"{name} must be an integer."}
            )
    if errors[0]["code"] == "other_family":
        detail = f"This is a {bid.family} match: a bid takes {bid.takes}."
    else:
        detail = "; ".join(f"{e['field']}: {e['detail']}" for e in errors)
    return IllegalAction(ErrorCode.VALIDATION_ERROR, detail, errors[0]["field"], errors)


def required(name: str, detail: str) -> IllegalAction:
    """The validation error of a missing field."""
    return IllegalAction(
        ErrorCode.VALIDATION_ERROR,
        detail,
        name,
        [{"field": name, "code": "required", "detail": detail}],
    )


def indexes(raw: Any, size: int, name: str) -> tuple[int, ...]:
    """Validate a list of distinct die indexes into a group of `size` dice."""
    if raw is None:
        raise required(name, f"{name} is required: a list of die indexes")
    if not isinstance(raw, list | tuple):
        raise IllegalAction(
            ErrorCode.VALIDATION_ERROR, f"{name} must be a list of die indexes", name
        )
    seen = set()
    for i in raw:
        if type(i) is not int or not 0 <= i < size:
            raise IllegalAction(
                ErrorCode.VALIDATION_ERROR,
                f"{name} must list die indexes from 0 to {size - 1}",
                name,
            )
        if i in seen:
            raise IllegalAction(ErrorCode.VALIDATION_ERROR, f"{name} lists die {i} twice", name)
        seen.add(i)
    return tuple(sorted(seen))


def illegal(detail: str, field: str | None = None) -> IllegalAction:
    return IllegalAction(ErrorCode.ILLEGAL_ACTION, detail, field)


def json_copy(value: Any) -> Any:
    """A deep copy of JSON-like data (dicts, lists, scalars).

    Events leave the engine and the server may annotate them (chips, commitments); the
    state keeps its own copy so that nothing outside can change a stored state.
    """
    if isinstance(value, dict):
        return {k: json_copy(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [json_copy(v) for v in value]
    return value


def copy_action(action: dict) -> dict:
    """A copy of an action record (its only nested values are the `shown`/`hand` lists)."""
    out = dict(action)
    for key in ("shown", "hand"):
        if key in out:
            out[key] = list(out[key])
    return out


def copy_result(result: dict | None) -> dict | None:
    """A copy of a round result (nested: bid, losses, gains, actual_hand)."""
    if result is None:
        return None
    out = dict(result)
    for key in ("bid", "losses", "gains"):
        out[key] = dict(out[key])
    if "hand" in out["bid"]:
        out["bid"]["hand"] = list(out["bid"]["hand"])
    if out.get("actual_hand") is not None:
        out["actual_hand"] = list(out["actual_hand"])
    return out


def frozen_evolve(cls: type) -> type:
    """Give a frozen dataclass a fast `evolve(**changes)` (a copy with fields changed).

    apply() makes a new round and a new state for every action; dataclasses.replace()
    re-runs __init__ through object.__setattr__ per field, and a frozen __slots__ class
    pays the same per field. Copying the instance __dict__ (one C-level dict copy) and
    handing it to a bare instance is several times cheaper, and keeps the class frozen
    for everyone else. The classes have no __post_init__, so nothing is skipped.
    """
    new = object.__new__
    set_attr = object.__setattr__

    def evolve(self: Any, **changes: Any) -> Any:
        d = self.__dict__.copy()
        d.update(changes)
        obj = new(cls)
        set_attr(obj, "__dict__", d)
        return obj

    cls.evolve = evolve
    return cls


class LazyLastRound:
    """`last_round` of a state whose round has just ended, built on its first read.

    A driver loop (bots, simulations, the benchmark) never reads it, and the server
    reads it once per stored state, so the round's end only keeps what the record is
    made of. A non-data descriptor: the state's own `last_round` (set by __init__, by
    evolve or by the first read, which caches the record) always wins over it.
    """

    def __get__(self, state: Any, owner: type | None = None) -> Any:
        if state is None:
            return self
        d = state.__dict__
        build, parts = d["last_round_parts"]
        record = d["last_round"] = build(*parts)
        return record


def defer_last_round(state: Any, build: Any, *parts: Any) -> Any:
    """`state` (just made, not yet seen outside) with `last_round = build(*parts)` made
    on first read (see `LazyLastRound`); `parts` must never change."""
    d = state.__dict__
    d.pop("last_round", None)  # copied from the state before, or not yet made there
    d["last_round_parts"] = (build, parts)
    return state
