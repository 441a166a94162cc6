"""The one interface every rule family implements, and what the server relies on.

The server holds a family's engine through `registry` and never asks which family it
has: each question below is answered by the family (who opens, what a seat sees, what
the dice commitments cover, how a round is revealed, who lost).
"""

from __future__ import annotations

from typing import Any, Protocol

from .dice import DiceSource


class RulesOptions(Protocol):
    """A family's rules type (a frozen dataclass of its options)."""

    family: str
    loss_unit: str  # what a lost challenge costs: "dice" or "lives"
    option_names: tuple[str, ...]

    @property
    def names_opener(self) -> bool:
        """True when the match creator names the seat that opens round 1."""
        ...

    def options(self) -> dict[str, Any]: ...

    def to_dict(self) -> dict[str, Any]: ...


class MatchState(Protocol):
    """What every family's state has (a frozen dataclass; `apply` returns a new one)."""

    rules: Any
    round: Any  # the family's round in play; None once the match is over
    n_players: int
    live: tuple[bool, ...]
    finished: bool
    winners: tuple[int, ...]
    eliminations: tuple[tuple[int, ...], ...]
    last_round: dict | None
    rolls: tuple[int, ...]
    version: int

    def to_json(self) -> dict[str, Any]: ...


Outcome = tuple[Any, list[dict]]


class RulesEngine(Protocol):
    """One rule family: its rules and state types and every operation on a match."""

    family: str
    rules_type: type[RulesOptions]
    state_type: type[MatchState]

    def new_match(
        self,
        rules: Any,
        n_players: int,
        rng: DiceSource,
        *,
        creator_seat: int = 0,
        opener_seat: int | None = None,
    ) -> Outcome:
        """Start a match: choose the first opener, roll round 1. Returns (state, events)."""
        ...

    def legal_actions(self, state: Any, seat: int | None) -> list[dict]:
        """What `seat` may do now (API shapes); empty when it is not their turn."""
        ...

    def apply(self, state: Any, action: dict, rng: DiceSource) -> Outcome:
        """One action (API body plus "seat") -> (new state, events); IllegalAction."""
        ...

    def forfeit(self, state: Any, seat: int, rng: DiceSource) -> Outcome:
        """`seat` leaves the match at once (timeouts, a ban); the server's call only."""
        ...

    def view_for(self, state: Any, seat: int | None) -> dict:
        """The match as `seat` (None = spectator) may see it: the one hidden-dice filter."""
        ...

    def reveal_round(self, state: Any) -> dict[str, Any] | None:
        """The round in play with every die revealed (an abort); None between rounds."""
        ...

    def commitment_material(self, state: Any) -> dict[str, list]:
        """What each dice commitment covers now: {key: dice}; the server salts and hashes."""
        ...

    def held_dice(self, state: Any) -> dict[str, Any]:
        """Every hidden die now, for a moderator's audited look; never for players."""
        ...

    def current_seat(self, state: Any) -> int | None:
        """Whose turn it is, or None once the match is over."""
        ...

    def round_number(self, state: Any) -> int:
        """The current round's number (the last round's once the match is over)."""
        ...

    def loser(self, state: Any) -> int | None:
        """The seat that lost the match when the family names one (poker dice's jug)."""
        ...

    def placements(self, state: Any) -> dict[str, int]:
        """Final place per seat (1 = best, ties share), once the match is over."""
        ...

    def state_from_json(self, data: dict[str, Any]) -> Any:
        """The state of `state.to_json()`; IllegalAction for a corrupt one."""
        ...
