"""Stateful property test: random grants (from the house's finite bankroll), transfers,
buy-ins, antes, payouts, cash-outs, refunds, adjustments and replays against a plain
in-memory shadow ledger.

After every step every balance must equal the shadow's and `ledger_check` must be clean.
Each example runs in its own savepoint, rolled back at teardown."""

import pytest
from django.db import transaction
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from games import stakes
from games.models import Match
from ledger import services
from ledger.errors import HouseBankrollInsufficient, IdempotencyKeyReused, InsufficientChips
from ledger.models import Account, TransferKind
from ledger.selectors import ledger_problems
from tests.factories import LobbyFactory, UserFactory

PLAYERS = 3
MATCHES = 2

players = st.integers(0, PLAYERS - 1)
matches = st.integers(0, MATCHES - 1)


class Shadow:
    """The ledger as a dict of balances plus the idempotency keys seen so far."""

    def __init__(self) -> None:
        self.balance: dict[tuple, int] = {}
        self.keys: dict[str, tuple] = {}
        self.contributions: dict[tuple, dict[tuple, int]] = {}

    def move(self, debit: tuple, credit: tuple, amount: int) -> None:
        self.balance[debit] = self.balance.get(debit, 0) - amount
        self.balance[credit] = self.balance.get(credit, 0) + amount
        if credit[0] in ("round_pot", "game_pot"):
            pot = self.contributions.setdefault(credit, {})
            pot[debit] = pot.get(debit, 0) + amount
        if debit[0] in ("round_pot", "game_pot"):
            self.contributions[debit] = {}

    def outcome(self, key: str, payload: tuple, debit: tuple, amount: int) -> str:
        """What the service must do with this request: moved, replayed, conflict, short."""
        if key in self.keys:
            return "replayed" if self.keys[key] == payload else "conflict"
        if debit != ("issuer",) and self.balance.get(debit, 0) < amount:
            return "short"
        return "moved"

    def record(self, key: str, payload: tuple, debit: tuple, credit: tuple, amount: int) -> None:
        self.keys[key] = payload
        self.move(debit, credit, amount)


class LedgerMachine(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self._atomic = transaction.atomic()
        self._atomic.__enter__()
        self.users = [UserFactory() for _ in range(PLAYERS)]
        self.matches = []
        self.seats = []
        self.accounts: dict[tuple, Account] = {
            ("issuer",): services.issuer_account(),
            ("house",): services.house_account(),
        }
        for i, user in enumerate(self.users):
            self.accounts[("wallet", i)] = services.wallet_for(user)
        for m in range(MATCHES):
            match = LobbyFactory(players=self.users)
            seats = list(match.seats.order_by("seat"))
            self.matches.append(match)
            self.seats.append(seats)
            pots = stakes.pots_for(match)
            self.accounts[("round_pot", m)] = pots.round
            self.accounts[("game_pot", m)] = pots.game
            for s, seat in enumerate(seats):
                self.accounts[("stack", m, s)] = stakes.stack_for(seat)
        self.shadow = Shadow()
        # Start with funded wallets and seated stacks so short runs reach the pots.
        # The house's bankroll is what a moderator funded it with: nothing mints for it.
        services.adjustment(
            account=self.accounts[("house",)], amount=500, reason="bankroll", actor=self.users[0]
        )
        self.shadow.move(("issuer",), ("house",), 500)
        for i, user in enumerate(self.users):
            services.signup_grant(user=user, amount=300)
            self.shadow.record(f"init:{i}", (), ("issuer",), ("wallet", i), 300)
            for m in range(MATCHES):
                stakes.buy_in(seat=self.seats[m][i], amount=40)
                self.shadow.record(
                    f"buy_in:{m}:{i}",
                    (("wallet", i), ("stack", m, i), 40, TransferKind.BUY_IN),
                    ("wallet", i),
                    ("stack", m, i),
                    40,
                )
        self.round = [1] * MATCHES
        self.done: set[int] = set()

    def teardown(self) -> None:
        transaction.set_rollback(True)
        self._atomic.__exit__(None, None, None)

    # ------------------------------------------------------------------ helpers

    def expect(self, outcome: str, call, short: type[Exception] = InsufficientChips):
        if outcome == "conflict":
            with pytest.raises(IdempotencyKeyReused):
                call()
            return None
        if outcome == "short":
            with pytest.raises(short):
                call()
            return None
        result = call()
        assert result.replayed == (outcome == "replayed")
        return result

    def live(self, m: int) -> bool:
        return m not in self.done

    # ------------------------------------------------------------------ rules

    @rule(i=players, amount=st.integers(1, 400), key=st.sampled_from(["f0", "f1", "f2"]))
    def fund(self, i, amount, key):
        wallet = ("wallet", i)
        payload = (("house",), wallet, amount, TransferKind.BOT_FUNDING)
        outcome = self.shadow.outcome(key, payload, ("house",), amount)
        self.expect(
            outcome,
            lambda: services.bot_funding(user=self.users[i], amount=amount, idempotency_key=key),
            short=HouseBankrollInsufficient,  # the bankroll is finite: never minted into
        )
        if outcome == "moved":
            self.shadow.record(key, payload, ("house",), wallet, amount)

    @rule(
        i=players,
        j=players,
        amount=st.integers(1, 300),
        key=st.sampled_from(["t0", "t1", "t2", "t3"]),
    )
    def pay(self, i, j, amount, key):
        if i == j:
            return
        debit, credit = ("wallet", i), ("wallet", j)
        payload = (debit, credit, amount, TransferKind.REFUND)
        outcome = self.shadow.outcome(key, payload, debit, amount)
        self.expect(
            outcome,
            lambda: services.transfer(
                debit=self.accounts[debit],
                credit=self.accounts[credit],
                amount=amount,
                kind=TransferKind.REFUND,
                idempotency_key=key,
            ),
        )
        if outcome == "moved":
            self.shadow.record(key, payload, debit, credit, amount)

    @rule(m=matches, s=players, amount=st.sampled_from([20, 40]))
    def buy_in(self, m, s, amount):
        if not self.live(m):
            return
        debit, credit = ("wallet", s), ("stack", m, s)
        key = f"buy_in:{m}:{s}"
        payload = (debit, credit, amount, TransferKind.BUY_IN)
        outcome = self.shadow.outcome(key, payload, debit, amount)
        self.expect(outcome, lambda: stakes.buy_in(seat=self.seats[m][s], amount=amount))
        if outcome == "moved":
            self.shadow.record(key, payload, debit, credit, amount)

    @rule(m=matches, ante=st.integers(1, 6), replay=st.booleans())
    def ante(self, m, ante, replay):
        if not self.live(m) or (replay and self.round[m] == 1):
            return
        r = self.round[m] - 1 if replay else self.round[m]
        moves = stakes.ante_round(
            match=self.matches[m], round_number=r, seats=self.seats[m], ante=ante
        )
        expected = []
        for s in range(PLAYERS):
            stack = ("stack", m, s)
            for pot, kind in (("round_pot", TransferKind.ANTE_ROUND), ("game_pot", "ante_game")):
                key = f"{kind}:{m}:{r}:{s}"
                if key in self.shadow.keys:
                    expected.append((key, True))
                    continue
                pay = min(ante, self.shadow.balance.get(stack, 0))
                if pay > 0:
                    self.shadow.record(key, (stack, (pot, m), pay), stack, (pot, m), pay)
                    expected.append((key, False))
        assert [mv.replayed for mv in moves] == [replayed for _, replayed in expected]

    @rule(m=matches)
    def next_round(self, m):
        self.round[m] += 1

    def pots_with_chips(self, kind: str) -> list[int]:
        return [m for m in range(MATCHES) if self.live(m) and self.shadow.balance.get((kind, m))]

    @precondition(lambda self: self.pots_with_chips("round_pot"))
    @rule(pick=st.integers(0, MATCHES - 1), s=players, replay=st.booleans())
    def round_win(self, pick, s, replay):
        candidates = self.pots_with_chips("round_pot")
        m = candidates[pick % len(candidates)]
        round_number = self.round[m] - 1 if replay and self.round[m] > 1 else self.round[m]
        key = f"round_win:{m}:{round_number}"
        pot, stack = ("round_pot", m), ("stack", m, s)
        prior = self.shadow.keys.get(key)

        def call():
            return stakes.round_pot_payout(
                match=self.matches[m], round_number=round_number, seat=self.seats[m][s]
            )

        if prior is not None:
            if prior[1] != stack:
                with pytest.raises(IdempotencyKeyReused):
                    call()
            else:
                assert call().replayed
            return
        amount = self.shadow.balance.get(pot, 0)
        result = call()
        assert result.amount == amount and not result.replayed
        self.shadow.record(key, (pot, stack, amount), pot, stack, amount)

    @precondition(lambda self: self.pots_with_chips("game_pot"))
    @rule(pick=st.integers(0, MATCHES - 1), seat=players, shared=st.booleans())
    def game_win(self, pick, seat, shared):
        """Common pool: `seat` takes all. Poker dice: all but the loser `seat` share."""
        candidates = self.pots_with_chips("game_pot")
        m = candidates[pick % len(candidates)]
        winners = [s for s in range(PLAYERS) if s != seat] if shared else [seat]
        loser = seat if shared else None
        keys = {s: f"game_win:{m}:{s}" for s in winners}
        moves = stakes.game_pot_payout(
            match=self.matches[m],
            winner_seats=[self.seats[m][s] for s in winners],
            loser_seat=self.seats[m][loser] if loser is not None else None,
        )
        if any(k in self.shadow.keys for k in keys.values()):
            assert all(mv.replayed for mv in moves)
            assert len(moves) == sum(k in self.shadow.keys for k in keys.values())
            return
        pot = ("game_pot", m)
        total = self.shadow.balance.get(pot, 0)
        base, remainder = divmod(total, len(winners))
        # Clockwise from the loser, the first winner takes the remainder.
        if shared:
            first = next(s for s in [*range(seat + 1, PLAYERS), *range(seat)] if s in winners)
        else:
            first = seat
        paid = {}
        for s in winners:
            share = base + (remainder if s == first else 0)
            if share:
                self.shadow.record(keys[s], (pot, s), pot, ("stack", m, s), share)
                paid[f"seat:{s}"] = share
        assert {mv.to_label: mv.amount for mv in moves} == paid

    @rule(m=matches, s=players)
    def cash_out(self, m, s):
        stack, wallet = ("stack", m, s), ("wallet", s)
        amount = self.shadow.balance.get(stack, 0)
        result = stakes.cash_out(seat=self.seats[m][s])
        if amount == 0:
            assert result is None
        else:
            assert result.amount == amount
            self.shadow.move(stack, wallet, amount)

    @precondition(lambda self: sum(self.round) > 4)
    @rule(m=matches)
    def refund(self, m):
        if not self.live(m):
            return
        stakes.match_refund(match=self.matches[m])
        for pot in (("round_pot", m), ("game_pot", m)):
            for source, amount in list(self.shadow.contributions.get(pot, {}).items()):
                self.shadow.move(pot, ("wallet", source[2]), amount)
        for s in range(PLAYERS):
            amount = self.shadow.balance.get(("stack", m, s), 0)
            if amount:
                self.shadow.move(("stack", m, s), ("wallet", s), amount)
        Match.objects.filter(pk=self.matches[m].pk).update(status=Match.Status.ABORTED)
        self.done.add(m)

    @precondition(lambda self: len(self.done) < MATCHES)
    @rule(
        where=st.sampled_from(["house", "wallet", "stack"]),
        i=players,
        amount=st.integers(-80, 80).filter(bool),
    )
    def adjust(self, where, i, amount):
        name = {"house": ("house",), "wallet": ("wallet", i)}.get(where)
        if name is None:
            m = min(set(range(MATCHES)) - self.done)
            name = ("stack", m, i)
        debit = ("issuer",) if amount > 0 else name
        outcome = "moved" if amount > 0 or self.shadow.balance.get(name, 0) >= -amount else "short"
        self.expect(
            outcome,
            lambda: services.adjustment(
                account=self.accounts[name], amount=amount, reason="test", actor=self.users[0]
            ),
        )
        if outcome == "moved":
            credit = name if amount > 0 else ("issuer",)
            self.shadow.move(debit, credit, abs(amount))

    # ------------------------------------------------------------------ invariants

    @invariant()
    def balances_match_the_shadow(self):
        stored = dict(
            Account.objects.filter(pk__in=[a.pk for a in self.accounts.values()]).values_list(
                "pk", "balance"
            )
        )
        for name, account in self.accounts.items():
            assert stored[account.pk] == self.shadow.balance.get(name, 0), name

    @invariant()
    def ledger_check_is_clean(self):
        assert ledger_problems() == []


LedgerMachine.TestCase.settings = settings(
    max_examples=30,
    stateful_step_count=30,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)


@pytest.mark.django_db
def test_ledger_matches_a_shadow_model():
    from hypothesis.stateful import run_state_machine_as_test

    run_state_machine_as_test(LedgerMachine, settings=LedgerMachine.TestCase.settings)
