"""Helpers shared by both families: action field checks, seat order, dice rolling."""

from __future__ import annotations

import random
from typing import Any, Protocol

from .errors import ErrorCode, IllegalAction


class DiceSource(Protocol):
    """Anything with `randint(a, b)`: random.Random, random.SystemRandom, ScriptedDice."""

    def randint(self, a: int, b: int) -> int: ...


def req_int(action: dict, name: str) -> int:
    value = action.get(name)
    if type(value) is not int:  # rejects bool, float, str, None
        raise IllegalAction(ErrorCode.VALIDATION_ERROR, f"{name} must be an integer", name)
    return value


def opt_int(action: dict, name: str) -> int | None:
    if action.get(name) is None:
        return None
    return req_int(action, name)


def indexes(raw: Any, size: int, name: str) -> tuple[int, ...]:
    """Validate a list of distinct die indexes into a group of `size` dice."""
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


def next_live(live: tuple[bool, ...], seat: int, step: int = 1) -> int:
    """The next live seat after `seat` going in direction `step` (skips players who are out)."""
    n = len(live)
    s = seat
    for _ in range(n):
        s = (s + step) % n
        if live[s]:
            return s
    return seat


def live_from(live: tuple[bool, ...], seat: int) -> int:
    """`seat` if still live, else the next live seat clockwise from it."""
    return seat if live[seat] else next_live(live, seat)


_FACES = {sides: tuple(range(1, sides + 1)) for sides in (6,)}


def roll(rng: DiceSource, count: int, log: list[int], sides: int = 6) -> tuple[int, ...]:
    """Roll `count` dice, appending every value to `log` so the match can be replayed.

    A random.Random (or SystemRandom) rolls all the dice in one `choices` call: randint
    costs about 1 us per die and rolling is most of a new round. Any other source (a
    ScriptedDice in replay) is asked through `randint` as documented.
    """
    if isinstance(rng, random.Random) and sides in _FACES:
        values = tuple(rng.choices(_FACES[sides], k=count))
    else:
        values = tuple([rng.randint(1, sides) for _ in range(count)])
    log.extend(values)
    return values


def placements(
    n_players: int, winners: tuple[int, ...], eliminations: tuple[tuple[int, ...], ...]
) -> dict[str, int]:
    """Place per seat (1 = best); seats out in the same event share a place."""
    places: dict[str, int] = {str(s): 1 for s in winners}
    better = len(winners)
    for group in reversed(eliminations):
        for s in group:
            places[str(s)] = better + 1
        better += len(group)
    return places


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
