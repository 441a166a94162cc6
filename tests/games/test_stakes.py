"""The table's money rules in games.stakes (RULES.md 1.8): buy-ins, antes, pot payouts,
game pot shares, cash-outs and refunds, on the ledger."""

import pytest

from games import services as games
from games import stakes
from games.models import Match
from ledger import services as ledger
from ledger.errors import IdempotencyKeyReused, InsufficientChips
from ledger.models import Account, AccountKind, Transfer, TransferKind
from ledger.selectors import wallet_balance
from moderation.services import match_abort
from tests.factories import LobbyFactory, UserFactory
from tests.ledger.conftest import assert_ledger_clean, balance, funded_user

pytestmark = pytest.mark.django_db


@pytest.fixture
def players(db) -> list:
    return [funded_user(1000) for _ in range(3)]


# --------------------------------------------------------------------------- matches


def test_a_whole_match_moves_chips_as_rules_1_8_say(players):
    match = LobbyFactory(players=players, buy_in=50, ante=2)
    seats = list(match.seats.order_by("seat"))
    buy = stakes.buy_ins(seats=seats, amount=50)
    assert buy[0].as_dict() == {
        "from": f"wallet:{players[0].pk}",
        "to": "seat:0",
        "amount": 50,
        "kind": "buy_in",
    }
    antes = stakes.ante_round(match=match, round_number=1, seats=seats, ante=2)
    assert [m.kind for m in antes] == ["ante_round", "ante_game"] * 3
    assert antes[0].as_dict() == {
        "from": "seat:0",
        "to": "round_pot",
        "amount": 2,
        "kind": "ante_round",
    }
    pots = stakes.pots_for(match)
    assert (balance(pots.round), balance(pots.game)) == (6, 6)
    win = stakes.round_pot_payout(match=match, round_number=1, seat=seats[1])
    assert win.as_dict() == {
        "from": "round_pot",
        "to": "seat:1",
        "amount": 6,
        "kind": "round_pot_win",
    }
    assert balance(stakes.stack_for(seats[1])) == 50 - 4 + 6
    final = stakes.game_pot_payout(match=match, winner_seats=[seats[2]])
    assert [(m.to_label, m.amount) for m in final] == [("seat:2", 6)]
    outs = stakes.match_cash_out(match=match)
    assert sorted(m.amount for m in outs) == [46, 52, 52]
    Match.objects.filter(pk=match.pk).update(status=Match.Status.FINISHED)
    assert [wallet_balance(user=p) for p in players] == [996, 1002, 1002]
    assert_ledger_clean()


def test_a_short_stack_pays_what_it_has_round_pot_first(players):
    match = LobbyFactory(players=players, buy_in=5, ante=2)
    seats = list(match.seats.order_by("seat"))
    stakes.buy_ins(seats=seats, amount=5)
    stakes.ante_round(match=match, round_number=1, seats=seats, ante=2)
    moves = stakes.ante_round(match=match, round_number=2, seats=seats, ante=2)
    # Each stack has 1 left: it goes to the round pot, nothing to the game pot.
    assert [(m.kind, m.amount) for m in moves] == [("ante_round", 1)] * 3
    moves = stakes.ante_round(match=match, round_number=3, seats=seats, ante=2)
    assert moves == []


def test_helpers_are_idempotent_on_retry(players):
    match = LobbyFactory(players=players, buy_in=10, ante=3)
    seats = list(match.seats.order_by("seat"))
    stakes.buy_ins(seats=seats, amount=10)
    assert all(m.replayed for m in stakes.buy_ins(seats=seats, amount=10))
    first = stakes.ante_round(match=match, round_number=1, seats=seats, ante=3)
    again = stakes.ante_round(match=match, round_number=1, seats=seats, ante=3)
    assert [m.transfer.pk for m in again] == [m.transfer.pk for m in first]
    assert all(m.replayed for m in again)
    win = stakes.round_pot_payout(match=match, round_number=1, seat=seats[0])
    assert stakes.round_pot_payout(match=match, round_number=1, seat=seats[0]).replayed
    assert win.amount == 9
    with pytest.raises(IdempotencyKeyReused):
        stakes.round_pot_payout(match=match, round_number=1, seat=seats[1])
    with pytest.raises(IdempotencyKeyReused):
        stakes.buy_in(seat=seats[0], amount=11)
    assert balance(stakes.stack_for(seats[0])) == 10 - 6 + 9
    assert_ledger_clean()


def test_poker_dice_game_pot_is_shared_and_the_remainder_goes_clockwise_from_the_loser():
    users = [funded_user(100) for _ in range(4)]
    match = LobbyFactory(players=users, buy_in=20, ante=0)
    seats = list(match.seats.order_by("seat"))
    stakes.buy_ins(seats=seats, amount=20)
    pots = stakes.pots_for(match)
    # Eleven chips into the game pot, from several stacks.
    for seat, amount in zip(seats, (3, 3, 3, 2), strict=True):
        ledger.transfer(
            debit=stakes.stack_for(seat),
            credit=pots.game,
            amount=amount,
            kind=TransferKind.ANTE_GAME,
            idempotency_key=f"g:{seat.pk}",
            scope=stakes.match_scope(match.pk),
        )
    loser = seats[2]
    winners = [seats[0], seats[1], seats[3]]
    moves = stakes.game_pot_payout(
        match=match, winner_seats=winners, loser_seat=loser, seat_order=seats
    )
    # 11 = 3 * 3 + 2: seat 3 sits right after the loser (seat 2) and takes the remainder.
    assert {m.to_label: m.amount for m in moves} == {"seat:0": 3, "seat:1": 3, "seat:3": 5}
    assert balance(pots.game) == 0


def test_game_pot_shares_wrap_around_the_table(players):
    seats = list(LobbyFactory(players=players).seats.order_by("seat"))
    shares = stakes.game_pot_shares(
        total=9, winner_seats=[seats[1], seats[0]], loser_seat=seats[2], seat_order=seats
    )
    assert shares == [(seats[1], 4), (seats[0], 5)]


def test_match_refund_returns_unsettled_pot_contributions_then_stacks(players):
    match = LobbyFactory(players=players, buy_in=20, ante=2)
    seats = list(match.seats.order_by("seat"))
    stakes.buy_ins(seats=seats, amount=20)
    stakes.ante_round(match=match, round_number=1, seats=seats, ante=2)
    stakes.round_pot_payout(match=match, round_number=1, seat=seats[0])  # settled
    stakes.ante_round(match=match, round_number=2, seats=seats[:2], ante=2)
    # Stacks: seat0 = 20-2-2+6-2-2 = 18, seat1 = 12, seat2 = 16. Unsettled: round pot
    # 2+2 (round 2), game pot 2+2+2 (round 1) + 2+2 (round 2).
    moves = stakes.match_refund(match=match)
    refunds = {(m.from_label, m.to_label): m.amount for m in moves if m.kind == "refund"}
    w = [f"wallet:{p.pk}" for p in players]
    assert refunds == {
        ("round_pot", w[0]): 2,
        ("round_pot", w[1]): 2,
        ("game_pot", w[0]): 4,
        ("game_pot", w[1]): 4,
        ("game_pot", w[2]): 2,
    }
    cash = {m.to_label: m.amount for m in moves if m.kind == "cash_out"}
    assert cash == {w[0]: 18, w[1]: 12, w[2]: 16}
    Match.objects.filter(pk=match.pk).update(status=Match.Status.ABORTED)
    # Everyone is back where they started, except seat 0 who won round 1 fairly.
    assert [wallet_balance(user=p) for p in players] == [1004, 998, 998]
    assert stakes.match_refund(match=match) == []
    assert_ledger_clean()


def test_abort_refunds_and_cash_outs_name_the_moderator(players):
    match = games.match_create(
        user=players[0],
        ruleset="milton_bradley",
        max_players=2,
        turn_seconds=60,
        buy_in=20,
        ante=2,
    ).match
    games.match_join(match_id=match.pk, user=players[1])  # full: the match starts
    moderator = UserFactory(is_staff=True)
    match_abort(match_id=match.pk, moderator=moderator, reason="testing the ledger")
    moved = Transfer.objects.filter(scope=stakes.match_scope(match.pk))
    paid_back = moved.filter(kind__in=[TransferKind.REFUND, TransferKind.CASH_OUT])
    assert {t.kind for t in paid_back} == {TransferKind.REFUND, TransferKind.CASH_OUT}
    assert {t.actor_id for t in paid_back} == {moderator.pk}
    # Each buy-in is its player's own act; play moved the rest: no actor, but the match
    # (and the round, for antes) is recorded.
    buy_ins = moved.filter(kind=TransferKind.BUY_IN)
    assert sorted(buy_ins.values_list("actor_id", flat=True)) == [p.pk for p in players[:2]]
    antes = moved.filter(kind__in=[TransferKind.ANTE_ROUND, TransferKind.ANTE_GAME])
    assert antes.count() == 4 and set(antes.values_list("round_number", flat=True)) == {1}
    played = moved.exclude(pk__in=paid_back).exclude(pk__in=buy_ins)
    assert set(played.values_list("actor_id", flat=True)) == {None}
    assert [wallet_balance(user=p) for p in players[:2]] == [1000, 1000]
    assert_ledger_clean()


def test_buy_in_and_cash_out_record_the_actor_given(players):
    match = LobbyFactory(players=players, buy_in=5)
    seats = list(match.seats.order_by("seat"))
    joined = stakes.buy_in(seat=seats[0], amount=5, actor=players[0])
    left = stakes.cash_out(seat=seats[0], actor=players[0])
    assert joined.transfer.actor_id == left.transfer.actor_id == players[0].pk
    assert joined.transfer.scope == left.transfer.scope == stakes.match_scope(match.pk)
    # At the start every buy-in is its own player's act, whoever pressed start.
    started = stakes.buy_ins(seats=seats[1:3], amount=5)
    assert [Transfer.objects.get(pk=m.transfer.pk).actor_id for m in started] == [
        players[1].pk,
        players[2].pk,
    ]


def test_cash_out_of_an_empty_stack_moves_nothing(players):
    seats = list(LobbyFactory(players=players, buy_in=5).seats.order_by("seat"))
    assert stakes.cash_out(seat=seats[0]) is None
    stakes.buy_in(seat=seats[0], amount=5)
    assert stakes.cash_out(seat=seats[0]).amount == 5
    assert stakes.cash_out(seat=seats[0]) is None
    assert wallet_balance(user=players[0]) == 1000


def test_buy_in_without_enough_chips_is_insufficient_chips(players):
    poor = funded_user(10)
    seats = list(LobbyFactory(players=[poor, *players[:1]]).seats.order_by("seat"))
    with pytest.raises(InsufficientChips):
        stakes.buy_ins(seats=seats, amount=50)
    assert not Account.objects.filter(kind=AccountKind.STACK, balance__gt=0).exists()
