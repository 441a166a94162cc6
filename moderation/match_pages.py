"""What the match page shows a moderator, from a match's seats, round records and
transfers: players by name (a bot as it was when it played), every die revealed, what
was bid and what came of it, and each seat's chips in and out. It reads the round
records as data of any rule family: a key it has no words for is still shown by name."""

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from games.models import Match, RoundRecord, Seat
from ledger.models import AccountKind, Transfer, TransferKind

_ANTES = (TransferKind.ANTE_ROUND, TransferKind.ANTE_GAME)
_POT_NAMES = {"round_pot": "round pot", "game_pot": "game pot"}
# Shown elsewhere in the row (chips, dice) or only of use to a fairness audit.
_RESULT_SKIPPED = {"type", "chips"}
_ACTION_SKIPPED = {"type", "seat"}


def seat_names(seats: Iterable[Seat]) -> dict[str, str]:
    """{"<seat number>": "alice"} with " (bot)" for a seat played by a bot at the time."""
    return {str(s.seat): f"{s.player.username}{' (bot)' if s.played_as_bot else ''}" for s in seats}


@dataclass
class SeatResult:
    seat: Seat
    name: str
    won: bool
    put_in: int = 0
    taken_out: int = 0
    stack: int | None = None

    @property
    def net(self) -> int:
        return self.taken_out - self.put_in


@dataclass
class RoundRow:
    number: int
    opener: str
    dice: list[tuple[str, str, str]]  # (who, every die, the dice shown)
    actions: list[tuple[str, str]]  # (who, what)
    result: list[tuple[str, str]]  # (label, text)
    chips: list[str] = field(default_factory=list)


def seat_results(
    match: Match, seats: Sequence[Seat], transfers: Iterable[Transfer], stacks: dict[int, int]
) -> list[SeatResult]:
    """Each seat's chips in (buy-in) and out (cash-out, refunds) of its stack and wallet,
    from the match's transfers; `stacks` by seat id while it is still running."""
    names = seat_names(seats)
    rows = {
        s.pk: SeatResult(s, names[str(s.seat)], s.seat in (match.winner_seats or [])) for s in seats
    }
    by_user = {s.player_id: rows[s.pk] for s in seats}
    for t in transfers:
        if t.kind == TransferKind.BUY_IN and t.credit.user_id in by_user:
            by_user[t.credit.user_id].put_in += t.amount
        elif t.kind == TransferKind.CASH_OUT and t.debit.user_id in by_user:
            by_user[t.debit.user_id].taken_out += t.amount  # the stack's holder
        elif (
            t.kind == TransferKind.REFUND  # an abort's refund, straight to the wallet
            and t.credit.kind == AccountKind.WALLET
            and t.credit.user_id in by_user
        ):
            by_user[t.credit.user_id].taken_out += t.amount
    for seat_id, balance in stacks.items():
        if seat_id in rows:
            rows[seat_id].stack = balance
    return [rows[s.pk] for s in seats]


def round_rows(records: Iterable[RoundRecord], names: dict[str, str]) -> list[RoundRow]:
    return [_round_row(r.record, names) for r in records]


def _round_row(record: dict[str, Any], names: dict[str, str]) -> RoundRow:
    def who(seat: Any) -> str:
        return names.get(str(seat), f"seat {seat}")

    shown = record.get("shown") or {}
    dice = [
        (
            who(key) if str(key).isdigit() else str(key),
            _dice(values),
            _dice(shown.get(key, [])) if isinstance(shown, dict) else "",
        )
        for key, values in (record.get("dice") or {}).items()
    ]
    if record.get("shelf"):
        dice.append(("shelf", _dice(record["shelf"]), ""))
    actions = [
        (who(a.get("seat")) if "seat" in a else "", _action(a, who))
        for a in record.get("actions", [])
    ]
    return RoundRow(
        number=record.get("number", 0),
        opener=who(record["opener_seat"]) if record.get("opener_seat") is not None else "",
        dice=dice,
        actions=actions,
        result=_result(record.get("result") or {}, who),
        chips=_chips(record.get("chips") or [], who),
    )


def _dice(values: Any) -> str:
    return " ".join(str(v) for v in values) if isinstance(values, list) else str(values)


def _bid(bid: dict[str, Any]) -> str:
    if "quantity" in bid and "face" in bid:
        return f"{bid['quantity']} × {bid['face']}"  # noqa: RUF001 (the times sign)
    if "hand" in bid:
        return _dice(bid["hand"])
    return _pairs(bid, lambda s: str(s))


def _action(action: dict[str, Any], who) -> str:
    kind = action.get("type", "?")
    rest = {k: v for k, v in action.items() if k not in _ACTION_SKIPPED}
    if kind == "bid":
        text = f"bid {_bid(rest)}"
        for k in ("quantity", "face", "hand"):
            rest.pop(k, None)
    elif kind == "show_reroll":
        text = f"shows {_dice(rest.pop('shown', rest.pop('show', [])))}"
        if "rerolled" in rest:
            text += f", rerolls {rest.pop('rerolled')}"
    else:
        text = kind.replace("_", " ")
    target = rest.pop("target_seat", None)
    if target is not None:
        text += f" {who(target)}"
    extra = _pairs(rest, who)
    return f"{text} ({extra})" if extra else text


def _result(result: dict[str, Any], who) -> list[tuple[str, str]]:
    lines: list[tuple[str, str]] = []
    rest = {k: v for k, v in result.items() if k not in _RESULT_SKIPPED and v not in (None, {})}
    if "challenger_seat" in rest:
        line = f"{who(rest.pop('challenger_seat'))} challenged"
        target = rest.pop("target_seat", rest.get("bidder_seat"))
        if target is not None:
            line += f" {who(target)}"
        if "bid" in rest:
            line += f"'s {_bid(rest.pop('bid'))}"
        rest.pop("bidder_seat", None)
        lines.append(("", line))
    if "actual_count" in rest:
        lines.append(("found", str(rest.pop("actual_count"))))
    if "actual_hand" in rest:
        lines.append(("actual hand", _dice(rest.pop("actual_hand"))))
    for key in ("losses", "gains"):
        if isinstance(rest.get(key), dict):
            lines.append((key, ", ".join(f"{who(s)} {n}" for s, n in rest.pop(key).items())))
    if "winner_seat" in rest:
        lines.append(("winner", who(rest.pop("winner_seat"))))
    lines += [
        (k.removesuffix("_seat").replace("_", " "), _value(k, v, who)) for k, v in rest.items()
    ]
    return lines


def _chips(moves: list[dict[str, Any]], who) -> list[str]:
    """Antes summed per seat on one line; every other movement on its own."""

    def name(label: str) -> str:
        if label.startswith("seat:"):
            return who(label.removeprefix("seat:"))
        return _POT_NAMES.get(label, label)

    antes: dict[str, int] = defaultdict(int)
    lines = []
    for m in moves:
        if m.get("kind") in _ANTES:
            antes[name(m["from"])] += m["amount"]
        else:
            lines.append(f"{name(m['from'])} → {name(m['to'])}: {m['amount']} ({m['kind']})")
    if antes:
        lines.insert(0, "antes: " + ", ".join(f"{n} {a}" for n, a in antes.items()))
    return lines


def _value(key: str, value: Any, who) -> str:
    if key.endswith("_seat"):
        return who(value)
    if key.endswith("_seats") and isinstance(value, list):
        return ", ".join(who(s) for s in value)
    if isinstance(value, list):
        return _dice(value)
    if isinstance(value, dict):
        return _pairs(value, who)
    return str(value)


def _pairs(values: dict[str, Any], who) -> str:
    return ", ".join(f"{_label(k)} {_value(k, v, who)}" for k, v in values.items())


def _label(key: str) -> str:
    return key.removesuffix("_seat").replace("_", " ")
