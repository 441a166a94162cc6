"""Chip movements of a match (RULES.md 1.8), driven by the engine's events.

Every call goes through the ledger's services inside the match's own transaction; the
ledger derives idempotency keys from match, round and seat, so nothing can pay twice.
Each function returns the movements as `{from, to, amount, kind}` for the round record.
"""

from collections.abc import Iterable

from accounts.models import User
from games.models import Match, Seat
from ledger import services as ledger
from ledger.models import Transfer, TransferKind
from ledger.services import Movement


def _dicts(moves: Iterable[Movement | None]) -> list[dict]:
    return [m.as_dict() for m in moves if m is not None]


def take_buy_ins(*, match: Match, seats: list[Seat]) -> list[dict]:
    if not match.buy_in:
        return []
    ledger.pots_for(match)  # opens the pots once: every round after only reads them
    return _dicts(ledger.buy_ins(seats=seats, amount=match.buy_in))


def take_antes(*, match: Match, round_number: int, seats: list[Seat]) -> list[dict]:
    if not match.buy_in or not match.ante:
        return []
    return _dicts(
        ledger.ante_round(match=match, round_number=round_number, seats=seats, ante=match.ante)
    )


def pay_round_pot(*, match: Match, round_number: int, seat: Seat) -> list[dict]:
    if not match.buy_in:
        return []
    return _dicts([ledger.round_pot_payout(match=match, round_number=round_number, seat=seat)])


def settle_match(
    *, match: Match, seats: list[Seat], winner_seats: list[int], loser_seat: int | None
) -> list[dict]:
    """Game pot to the winner(s), then every stack back to its owner's wallet."""
    if not match.buy_in:
        return []
    moves = ledger.game_pot_payout(
        match=match,
        winner_seats=[s for s in seats if s.seat in winner_seats],
        loser_seat=next((s for s in seats if s.seat == loser_seat), None),
        seat_order=seats,
    )
    return _dicts([*moves, *ledger.match_cash_out(match=match)])


def refund_match(*, match: Match, actor: User | None = None) -> list[dict]:
    if not match.buy_in:
        return []
    return _dicts(ledger.match_refund(match=match, actor=actor))


def refund_voided_round(*, match: Match, round_number: int) -> list[dict]:
    """A round voided by a forfeit settles nothing: each ante in its round pot goes back
    to the stack that paid it."""
    if not match.buy_in or not match.ante:
        return []
    pot = ledger.pots_for(match).round
    antes = (
        Transfer.objects.filter(
            match=match, round_number=round_number, kind=TransferKind.ANTE_ROUND, credit=pot
        )
        .select_related("debit__seat")
        .order_by("id")
    )
    moves = []
    for ante in antes:
        ledger.transfer(
            debit=pot,
            credit=ante.debit,
            amount=ante.amount,
            kind=TransferKind.REFUND,
            idempotency_key=f"refund:voided-round:{ante.pk}",
            match=match,
            round_number=round_number,
        )
        moves.append(
            {
                "from": "round_pot",
                "to": f"seat:{ante.debit.seat.seat}",
                "amount": ante.amount,
                "kind": TransferKind.REFUND,
            }
        )
    return moves
