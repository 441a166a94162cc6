"""Checks of rule option values shared by the families' rules types (RULES 3)."""

from __future__ import annotations

from typing import Any

from .errors import InvalidRules


def check_int(name: str, value: object, lo: int, hi: int) -> None:
    # bool is an int subclass; True must not pass for 1.
    if type(value) is not int or not lo <= value <= hi:
        raise InvalidRules(name, f"{name} must be an integer from {lo} to {hi}")


def check_bool(name: str, value: object) -> None:
    if type(value) is not bool:
        raise InvalidRules(name, f"{name} must be true or false")


def check_choice(name: str, value: object, choices: tuple[str, ...]) -> None:
    if value not in choices:
        raise InvalidRules(name, f"{name} must be one of {', '.join(choices)}")


class OptionConflict(InvalidRules):
    """Two valid option values that cannot go together; `option` is the first of `pair`."""

    def __init__(self, first: tuple[str, Any], second: tuple[str, Any], why: str) -> None:
        detail = f"{show_option(*first)} cannot be combined with {show_option(*second)}: {why}"
        super().__init__(first[0], detail)
        self.pair = (first, second)
        self.why = why


def show_option(name: str, value: Any) -> str:
    """`name=value` as the API spells the value (JSON booleans)."""
    return f"{name}={str(value).lower() if isinstance(value, bool) else value}"
