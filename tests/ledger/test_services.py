"""The transfer service and the game's helpers (RULES.md 1.8)."""

import pytest
from django.db import connection, transaction

from accounts.models import User
from accounts.services import user_register
from games import services as games
from games.models import Match
from ledger import services
from ledger.errors import IdempotencyKeyReused, InsufficientChips, InvalidTransfer
from ledger.models import Account, AccountKind, Transfer, TransferKind
from ledger.selectors import circulation, wallet_balance
from moderation.services import match_abort
from tests.factories import UserFactory
from tests.ledger.conftest import assert_ledger_clean, balance, funded_user, make_match

pytestmark = pytest.mark.django_db


def _move(debit, credit, amount, key, kind=TransferKind.REFUND, **kw):
    return services.transfer(
        debit=debit, credit=credit, amount=amount, kind=kind, idempotency_key=key, **kw
    )


# --------------------------------------------------------------------------- sign-up


def test_register_grants_signup_chips_naming_the_new_user_as_actor():
    user, _ = user_register(username="newcomer", password="a-long-pass-phrase-42")
    assert wallet_balance(user=user) == 1000
    grant = Transfer.objects.get(kind=TransferKind.SIGNUP_GRANT)
    assert grant.credit.user_id == user.pk and grant.debit.kind == AccountKind.HOUSE
    assert grant.actor_id == user.pk and grant.match_id is None
    assert circulation() == 1000
    assert_ledger_clean()


def test_register_grants_signup_chips_in_the_same_transaction():
    """A grant that fails undoes the registration: no user without their chips."""
    someone = funded_user(10)
    with connection.cursor() as cursor:
        cursor.execute("SELECT nextval(pg_get_serial_sequence('accounts_user', 'id'))")
        next_user_id = cursor.fetchone()[0] + 1
    # The key the new user's grant will use, already taken by another movement.
    taken = _move(
        services.wallet_for(someone),
        services.house_account(),
        1,
        f"signup_grant:user:{next_user_id}",
        kind=TransferKind.SIGNUP_GRANT,
    )
    users, transfers = User.objects.count(), Transfer.objects.count()
    accounts = Account.objects.count()
    with pytest.raises(IdempotencyKeyReused):
        user_register(username="unlucky", password="a-long-pass-phrase-42")
    assert not User.objects.filter(username="unlucky").exists()
    assert not User.objects.filter(pk=next_user_id).exists()
    assert (User.objects.count(), Transfer.objects.count()) == (users, transfers)
    assert Account.objects.count() == accounts  # not even the wallet was kept
    assert Transfer.objects.get(pk=taken.pk).debit_id == services.wallet_for(someone).pk
    assert_ledger_clean()


def test_signup_chips_setting_is_honoured(settings):
    settings.SIGNUP_CHIPS = 250
    user, _ = user_register(username="frugal", password="a-long-pass-phrase-42")
    assert wallet_balance(user=user) == 250


def test_signup_grant_replay_moves_nothing():
    user = UserFactory()
    first = services.signup_grant(user=user)
    again = services.signup_grant(user=user)
    assert not first.replayed and again.replayed
    assert again.transfer.pk == first.transfer.pk
    assert wallet_balance(user=user) == 1000
    assert Transfer.objects.filter(kind=TransferKind.SIGNUP_GRANT).count() == 1


def test_house_is_funded_from_the_issuer_only_for_the_shortfall():
    services.bot_funding(user=UserFactory(), amount=300)
    services.adjustment(
        account=services.house_account(), amount=500, reason="float", actor=UserFactory()
    )
    services.signup_grant(user=UserFactory(), amount=200)  # the house has enough
    assert Transfer.objects.filter(kind=TransferKind.HOUSE_FUNDING).count() == 1
    assert balance(services.house_account()) == 300
    assert circulation() == 800
    assert_ledger_clean()


def test_wallet_balance_is_zero_without_a_wallet():
    assert wallet_balance(user=UserFactory()) == 0


# --------------------------------------------------------------------------- transfer


def test_transfer_moves_chips_and_records_balances_after():
    a, b = funded_user(100), funded_user(5)
    wa, wb = services.wallet_for(a), services.wallet_for(b)
    done = _move(wa, wb, 40, "t1", match=None, round_number=None)
    assert not done.replayed
    assert (wa.balance, wb.balance) == (60, 45)  # updated in place
    assert (balance(wa), balance(wb)) == (60, 45)
    stored = Transfer.objects.get(pk=done.pk)
    assert (stored.debit_balance_after, stored.credit_balance_after) == (60, 45)
    assert_ledger_clean()


def test_replay_with_the_same_payload_returns_the_first_transfer_and_moves_nothing():
    a, b = funded_user(100), UserFactory()
    wa, wb = services.wallet_for(a), services.wallet_for(b)
    first = _move(wa, wb, 40, "same")
    again = _move(wa, wb, 40, "same")
    assert again.replayed and again.pk == first.pk
    assert (balance(wa), balance(wb)) == (60, 40)
    assert Transfer.objects.filter(idempotency_key="same").count() == 1


def test_replay_is_honoured_even_when_the_debit_can_no_longer_pay():
    a, b = funded_user(100), UserFactory()
    wa, wb = services.wallet_for(a), services.wallet_for(b)
    first = _move(wa, wb, 100, "all-in")
    assert _move(wa, wb, 100, "all-in").pk == first.pk


@pytest.mark.parametrize(
    "change",
    [{"amount": 41}, {"kind": TransferKind.BUY_IN}, {"round_number": 3}, {"swap": True}],
)
def test_same_key_with_a_different_payload_is_a_conflict(change):
    a, b = funded_user(100), funded_user(100)
    wa, wb = services.wallet_for(a), services.wallet_for(b)
    _move(wa, wb, 40, "k")
    debit, credit = (wb, wa) if change.pop("swap", False) else (wa, wb)
    kwargs = {"amount": 40, "kind": TransferKind.REFUND, **change}
    with transaction.atomic():
        with pytest.raises(IdempotencyKeyReused) as info:
            _move(debit, credit, kwargs.pop("amount"), "k", **kwargs)
        # Nothing was written, so the caller's transaction is still usable.
        assert Transfer.objects.filter(idempotency_key="k").count() == 1
    assert info.value.code == "idempotency_key_reused" and info.value.status == 422
    assert (balance(wa), balance(wb)) == (60, 140)


def test_insufficient_chips_moves_nothing_and_leaves_the_transaction_usable():
    a, b = funded_user(30), UserFactory()
    wa, wb = services.wallet_for(a), services.wallet_for(b)
    with transaction.atomic():
        with pytest.raises(InsufficientChips) as info:
            _move(wa, wb, 31, "too-much")
        assert not connection.needs_rollback
        _move(wa, wb, 30, "just-enough")
    assert info.value.code == "insufficient_chips" and info.value.status == 409
    assert (balance(wa), balance(wb)) == (0, 30)


@pytest.mark.parametrize("amount", [0, -1, 1.5, True])
def test_invalid_amounts_are_refused(amount):
    a, b = funded_user(30), UserFactory()
    with pytest.raises(InvalidTransfer):
        _move(services.wallet_for(a), services.wallet_for(b), amount, "bad")


def test_same_account_and_missing_key_are_refused():
    wallet = services.wallet_for(funded_user(30))
    with pytest.raises(InvalidTransfer):
        _move(wallet, wallet, 1, "self")
    with pytest.raises(InvalidTransfer):
        _move(wallet, services.house_account(), 1, "")


# --------------------------------------------------------------------------- adjustments


def test_adjustment_needs_a_reason_and_records_its_author():
    admin, player = UserFactory(), funded_user(100)
    wallet = services.wallet_for(player)
    with pytest.raises(InvalidTransfer):
        services.adjustment(account=wallet, amount=10, reason="  ", actor=admin)
    up = services.adjustment(account=wallet, amount=25, reason="lost in outage", actor=admin)
    down = services.adjustment(account=wallet, amount=-5, reason="double payout", actor=admin)
    assert balance(wallet) == 120
    assert up.transfer.actor_id == admin.pk and up.transfer.reason == "lost in outage"
    assert down.transfer.debit_id == wallet.pk
    assert down.transfer.credit_id == services.issuer_account().pk
    with pytest.raises(InsufficientChips):
        services.adjustment(account=wallet, amount=-121, reason="too much", actor=admin)
    assert_ledger_clean()


# --------------------------------------------------------------------------- matches


def test_a_whole_match_moves_chips_as_rules_1_8_say(players):
    match, seats = make_match(players, buy_in=50, ante=2)
    buy = services.buy_ins(seats=seats, amount=50)
    assert buy[0].as_dict() == {
        "from": f"wallet:{players[0].pk}",
        "to": "seat:0",
        "amount": 50,
        "kind": "buy_in",
    }
    antes = services.ante_round(match=match, round_number=1, seats=seats, ante=2)
    assert [m.kind for m in antes] == ["ante_round", "ante_game"] * 3
    assert antes[0].as_dict() == {
        "from": "seat:0",
        "to": "round_pot",
        "amount": 2,
        "kind": "ante_round",
    }
    pots = services.pots_for(match)
    assert (balance(pots.round), balance(pots.game)) == (6, 6)
    win = services.round_pot_payout(match=match, round_number=1, seat=seats[1])
    assert win.as_dict() == {
        "from": "round_pot",
        "to": "seat:1",
        "amount": 6,
        "kind": "round_pot_win",
    }
    assert balance(services.stack_for(seats[1])) == 50 - 4 + 6
    final = services.game_pot_payout(match=match, winner_seats=[seats[2]])
    assert [(m.to_label, m.amount) for m in final] == [("seat:2", 6)]
    outs = services.match_cash_out(match=match)
    assert sorted(m.amount for m in outs) == [46, 52, 52]
    Match.objects.filter(pk=match.pk).update(status=Match.Status.FINISHED)
    assert [wallet_balance(user=p) for p in players] == [996, 1002, 1002]
    assert_ledger_clean()


def test_a_short_stack_pays_what_it_has_round_pot_first(players):
    match, seats = make_match(players, buy_in=5, ante=2)
    services.buy_ins(seats=seats, amount=5)
    services.ante_round(match=match, round_number=1, seats=seats, ante=2)
    moves = services.ante_round(match=match, round_number=2, seats=seats, ante=2)
    # Each stack has 1 left: it goes to the round pot, nothing to the game pot.
    assert [(m.kind, m.amount) for m in moves] == [("ante_round", 1)] * 3
    moves = services.ante_round(match=match, round_number=3, seats=seats, ante=2)
    assert moves == []


def test_helpers_are_idempotent_on_retry(players):
    match, seats = make_match(players, buy_in=10, ante=3)
    services.buy_ins(seats=seats, amount=10)
    assert all(m.replayed for m in services.buy_ins(seats=seats, amount=10))
    first = services.ante_round(match=match, round_number=1, seats=seats, ante=3)
    again = services.ante_round(match=match, round_number=1, seats=seats, ante=3)
    assert [m.transfer.pk for m in again] == [m.transfer.pk for m in first]
    assert all(m.replayed for m in again)
    win = services.round_pot_payout(match=match, round_number=1, seat=seats[0])
    assert services.round_pot_payout(match=match, round_number=1, seat=seats[0]).replayed
    assert win.amount == 9
    with pytest.raises(IdempotencyKeyReused):
        services.round_pot_payout(match=match, round_number=1, seat=seats[1])
    with pytest.raises(IdempotencyKeyReused):
        services.buy_in(seat=seats[0], amount=11)
    assert balance(services.stack_for(seats[0])) == 10 - 6 + 9
    assert_ledger_clean()


def test_poker_dice_game_pot_is_shared_and_the_remainder_goes_clockwise_from_the_loser():
    users = [funded_user(100) for _ in range(4)]
    match, seats = make_match(users, buy_in=20, ante=0)
    services.buy_ins(seats=seats, amount=20)
    pots = services.pots_for(match)
    # Eleven chips into the game pot, from several stacks.
    for seat, amount in zip(seats, (3, 3, 3, 2), strict=True):
        services.transfer(
            debit=services.stack_for(seat),
            credit=pots.game,
            amount=amount,
            kind=TransferKind.ANTE_GAME,
            idempotency_key=f"g:{seat.pk}",
            match=match,
        )
    loser = seats[2]
    winners = [seats[0], seats[1], seats[3]]
    moves = services.game_pot_payout(
        match=match, winner_seats=winners, loser_seat=loser, seat_order=seats
    )
    # 11 = 3 * 3 + 2: seat 3 sits right after the loser (seat 2) and takes the remainder.
    assert {m.to_label: m.amount for m in moves} == {"seat:0": 3, "seat:1": 3, "seat:3": 5}
    assert balance(pots.game) == 0


def test_game_pot_shares_wrap_around_the_table(players):
    _, seats = make_match(players)
    shares = services.game_pot_shares(
        total=9, winner_seats=[seats[1], seats[0]], loser_seat=seats[2], seat_order=seats
    )
    assert shares == [(seats[1], 4), (seats[0], 5)]


def test_match_refund_returns_unsettled_pot_contributions_then_stacks(players):
    match, seats = make_match(players, buy_in=20, ante=2)
    services.buy_ins(seats=seats, amount=20)
    services.ante_round(match=match, round_number=1, seats=seats, ante=2)
    services.round_pot_payout(match=match, round_number=1, seat=seats[0])  # settled
    services.ante_round(match=match, round_number=2, seats=seats[:2], ante=2)
    # Stacks: seat0 = 20-2-2+6-2-2 = 18, seat1 = 12, seat2 = 16. Unsettled: round pot
    # 2+2 (round 2), game pot 2+2+2 (round 1) + 2+2 (round 2).
    moves = services.match_refund(match=match)
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
    assert services.match_refund(match=match) == []
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
    moved = Transfer.objects.filter(match_id=match.pk)
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
    match, seats = make_match(players, buy_in=5)
    joined = services.buy_in(seat=seats[0], amount=5, actor=players[0])
    left = services.cash_out(seat=seats[0], actor=players[0])
    assert joined.transfer.actor_id == left.transfer.actor_id == players[0].pk
    assert joined.transfer.match_id == left.transfer.match_id == match.pk
    # At the start every buy-in is its own player's act, whoever pressed start.
    started = services.buy_ins(seats=seats[1:3], amount=5)
    assert [Transfer.objects.get(pk=m.transfer.pk).actor_id for m in started] == [
        players[1].pk,
        players[2].pk,
    ]


def test_cash_out_of_an_empty_stack_moves_nothing(players):
    _, seats = make_match(players, buy_in=5)
    assert services.cash_out(seat=seats[0]) is None
    services.buy_in(seat=seats[0], amount=5)
    assert services.cash_out(seat=seats[0]).amount == 5
    assert services.cash_out(seat=seats[0]) is None
    assert wallet_balance(user=players[0]) == 1000


def test_buy_in_without_enough_chips_is_insufficient_chips(players):
    poor = funded_user(10)
    _, seats = make_match([poor, *players[:1]], buy_in=50)
    with pytest.raises(InsufficientChips):
        services.buy_ins(seats=seats, amount=50)
    assert not Account.objects.filter(kind=AccountKind.STACK, balance__gt=0).exists()
