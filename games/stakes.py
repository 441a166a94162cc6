"""The table's money rules (RULES.md 1.8): buy-ins, antes, pot payouts, the game pot's
shares, cash-outs and refunds, on top of the ledger. The house stakes the server's bots.

The ledger knows no match: a table's accounts are named by opaque references this module
writes and alone reads. A match's stacks and pots live in scope `match_scope(match.pk)`
("match:812"), a stack's ref is `seat_ref(seat.pk)` ("seat:4031"), and every transfer of
the match records that scope (and the round, for antes and round pots).

Every call runs inside the caller's transaction, under the match's lock, and locks
ledger accounts only through the ledger's `accounts_lock` (the order of every lock:
`games.services.locks`). The idempotency keys below are derived from match, round,
seat, stack and pot so nothing can pay twice; their formats are part of the ledger's
history (a replay of an old key must find it), so they never change.

The `take_*`, `pay_*`, `settle_*` and `refund_*` functions are what the match service
calls: each returns the movements as `{from, to, amount, kind}` for the round record,
stacks named by seat number ("seat:2"). The helpers below them return `Movement`s.

The house's economics (RULES.md 1.8): only the strongest bots (`STAKED_STRATEGIES`)
play for chips; the house stakes each at most `HOUSE_BOT_MAX_STAKE` a seat, from its
bankroll (the house account's balance, funded by staff adjustments, fees and what its
bots win), which the ledger never mints into. `house_stake_check` says so before a bot
sits down; the ledger refuses a stake the bankroll cannot cover at the buy-in itself.
"""

from collections.abc import Iterable, Sequence
from typing import NamedTuple

from django.conf import settings
from django.db import transaction
from django.db.models import (
    CharField,
    OuterRef,
    Q,
    Subquery,
    Sum,
    Value,
)
from django.db.models.functions import Cast, Concat

from accounts.models import User
from games.errors import BotNotStaked, BotStakeTooHigh
from games.models import Match, Seat
from ledger import services as ledger
from ledger.errors import HouseBankrollInsufficient, IdempotencyKeyReused, InvalidTransfer
from ledger.models import POT_KINDS, SCOPED_KINDS, Account, AccountKind, Transfer, TransferKind
from ledger.selectors import (
    AuditCheck,
    accounts_in_scope,
    house_balance,
    transfers_in_scope,
)
from ledger.services import Movement, PlannedTransfer

# --------------------------------------------------------------------------- references

SEAT_REF_PREFIX = "seat:"


def match_scope(match_id: int) -> str:
    """The ledger scope of a match's stacks, pots and transfers."""
    return f"match:{match_id}"


def seat_ref(seat_id: int) -> str:
    """The ledger ref of a seat's stack within its match's scope."""
    return f"{SEAT_REF_PREFIX}{seat_id}"


def seat_id_of(ref: str) -> int | None:
    """The seat id of a stack's ref, None for any other ref."""
    number = ref.removeprefix(SEAT_REF_PREFIX)
    return int(number) if number != ref and number.isascii() and number.isdigit() else None


def seat_label(seat_number: int) -> str:
    """How a movement names a seat's stack: by its number at the table."""
    return f"seat:{seat_number}"


def _seat_number(match_id: int, ref_field: str) -> Subquery:
    """The number of the seat whose stack ref is in `ref_field`, read in the same query."""
    return Subquery(
        Seat.objects.filter(match_id=match_id)
        .annotate(stack_ref=Concat(Value(SEAT_REF_PREFIX), Cast("pk", output_field=CharField())))
        .filter(stack_ref=OuterRef(ref_field))
        .values("seat")[:1]
    )


# --------------------------------------------------------------------------- accounts


class Pots(NamedTuple):
    round: Account
    game: Account


def stack_for(seat: Seat) -> Account:
    """The seat's stack (opened at zero the first time), labelled by seat number."""
    account = ledger.scoped_account(
        kind=AccountKind.STACK,
        scope=match_scope(seat.match_id),
        ref=seat_ref(seat.pk),
        user_id=seat.player_id,
    )
    account.label = seat_label(seat.seat)
    return account


def pots_for(match: Match) -> Pots:
    """The match's two pots, read in one query; a missing one is created (the match
    service opens both when the match starts, so rounds only read them)."""
    scope = match_scope(match.pk)
    found = {a.kind: a for a in accounts_in_scope(scope=scope, kinds=POT_KINDS)}
    for kind in POT_KINDS:
        if kind not in found:
            found[kind] = ledger.scoped_account(kind=kind, scope=scope)
    return Pots(round=found[AccountKind.ROUND_POT], game=found[AccountKind.GAME_POT])


def table_balances(match: Match) -> dict:
    """{"stacks": {seat id: balance}, "round": pot, "game": pot, "pots": {kind: balance of
    each pot opened}}, in one query."""
    balances: dict = {"stacks": {}, "round": 0, "game": 0, "pots": {}}
    for kind, ref, balance in accounts_in_scope(scope=match_scope(match.pk)).values_list(
        "kind", "ref", "balance"
    ):
        if kind == AccountKind.STACK:
            balances["stacks"][seat_id_of(ref)] = balance
        elif kind in POT_KINDS:
            balances["pots"][kind] = balance
            balances["round" if kind == AccountKind.ROUND_POT else "game"] = balance
    return balances


def match_transfers(match: Match) -> list[Transfer]:
    """Every transfer of the match, oldest first, in one query: both accounts and their
    users loaded, stacks labelled by seat number."""
    transfers = list(
        transfers_in_scope(scope=match_scope(match.pk))
        .select_related("debit__user", "credit__user")
        .annotate(
            debit_seat=_seat_number(match.pk, "debit__ref"),
            credit_seat=_seat_number(match.pk, "credit__ref"),
        )
    )
    for t in transfers:
        if t.debit.kind == AccountKind.STACK and t.debit_seat is not None:
            t.debit.label = seat_label(t.debit_seat)
        if t.credit.kind == AccountKind.STACK and t.credit_seat is not None:
            t.credit.label = seat_label(t.credit_seat)
    return transfers


def chips_won_by_seat(match: Match) -> dict[int, int]:
    """What each seat took from the table less what it brought to it (cash-out and
    refunds versus buy-in), by seat number: chips won (+) or lost (-), 0 at no stake."""
    won: dict[int, int] = {}
    if not match.buy_in:
        return won
    for t in match_transfers(match):
        if t.credit.kind == AccountKind.STACK and t.debit.kind not in SCOPED_KINDS:
            won[t.credit_seat] = won.get(t.credit_seat, 0) - t.amount
        elif t.debit.kind == AccountKind.STACK and t.credit.kind not in SCOPED_KINDS:
            won[t.debit_seat] = won.get(t.debit_seat, 0) + t.amount
    return won


# --------------------------------------------------------------------------- buy-ins


# The strategies the house stakes: its strongest. The practice levels (`easy`,
# `medium`) and the test strategies (`random`, `cautious`) only play where no chips are
# at stake, as a card room would never stake a bot built to lose.
STAKED_STRATEGIES = ("hard", "expert")


def is_house_staked(player: User) -> bool:
    """The server's own bots play on the house's chips: their buy-ins come from the house
    and their stacks go back to it, so a bot's wallet is never used and any number of
    tables can seat one bot at once."""
    return bool(player.bot_strategy)


def plays_for_chips(strategy: str) -> bool:
    """Whether the house stakes a bot of `strategy` at a table (or an entry) with a
    buy-in."""
    return strategy in STAKED_STRATEGIES


def house_stake_check(*, strategy: str, amount: int, owed: int = 0) -> None:
    """Refuses a bot of `strategy` staked `amount` chips by the house, which already owes
    `owed` at the same table (its other bots' buy-ins): `BotNotStaked` for a strategy
    that never plays for chips, `BotStakeTooHigh` above `HOUSE_BOT_MAX_STAKE`,
    `HouseBankrollInsufficient` when the bankroll cannot cover it. Free play (`amount`
    0) seats any bot."""
    if amount <= 0:
        return
    if not plays_for_chips(strategy):
        raise BotNotStaked(
            f"The {strategy} bot does not play for chips: only {' and '.join(STAKED_STRATEGIES)}"
            " bots play where there is a buy-in."
        )
    if amount > settings.HOUSE_BOT_MAX_STAKE:
        raise BotStakeTooHigh(
            f"The house stakes a bot at most {settings.HOUSE_BOT_MAX_STAKE} chips; "
            f"this buy-in is {amount}."
        )
    if house_balance() < amount + owed:
        raise HouseBankrollInsufficient(
            f"The house's bankroll cannot cover {amount} chips; a moderator funds it."
        )


def buy_in(*, seat: Seat, amount: int, actor: User | None = None) -> Movement | None:
    """Moves the match's buy-in from the player's wallet (the house's bankroll, for a
    server bot: `HouseBankrollInsufficient` when it is short) to the seat's stack;
    `actor` is who caused it (`buy_ins` names each seat's own player)."""
    if amount <= 0:
        return None
    stack, key, scope = stack_for(seat), f"buy_in:seat:{seat.pk}", match_scope(seat.match_id)
    if is_house_staked(seat.player):
        return ledger.pay_from_house(
            stack, amount, kind=TransferKind.BUY_IN, key=key, actor=actor, scope=scope
        )
    wallet = ledger.wallet_for_user_id(seat.player_id)
    return ledger.move(wallet, stack, amount, TransferKind.BUY_IN, key, scope=scope, actor=actor)


def _source_of(seat: Seat) -> Account:
    """The account a seat's buy-in moves from: its player's wallet, or the house."""
    if is_house_staked(seat.player):
        return ledger.house_account()
    return ledger.wallet_for_user_id(seat.player_id)


def buy_ins(*, seats: Sequence[Seat], amount: int) -> list[Movement]:
    """`buy_in` for every seat, all accounts locked up front (use this at match start).
    Each is recorded as its player's own act: they took the seat, knowing the buy-in."""
    if amount <= 0:
        return []
    with transaction.atomic():
        ledger.accounts_lock(accounts=[a for s in seats for a in (_source_of(s), stack_for(s))])
        return [
            m for s in seats if (m := buy_in(seat=s, amount=amount, actor=s.player)) is not None
        ]


# --------------------------------------------------------------------------- rounds


def _match_accounts_locked(
    match: Match, *, seats: Sequence[Seat], pot_kinds: Sequence[str]
) -> tuple[dict[str, Account], dict[int, Account]]:
    """The match's pots of `pot_kinds` and the stacks of `seats`, read in one query and
    then locked in one (`accounts_lock`), so their balances are current: pots by kind,
    stacks by seat id. Accounts never opened (a caller that skipped the buy-in) are
    created before these account locks are taken, as waiting on another transaction's
    insert while holding locks could deadlock."""
    scope = match_scope(match.pk)
    wanted = Q(scope=scope) & (
        Q(kind__in=pot_kinds) | Q(kind=AccountKind.STACK, ref__in=[seat_ref(s.pk) for s in seats])
    )
    rows = list(Account.objects.filter(wanted))
    if len(rows) < len(pot_kinds) + len(seats):
        pots_for(match)
        for seat in seats:
            stack_for(seat)
        rows = list(Account.objects.filter(wanted))
    ledger.accounts_lock(accounts=rows)
    pots = {a.kind: a for a in rows if a.kind != AccountKind.STACK}
    stacks = {seat_id_of(a.ref): a for a in rows if a.kind == AccountKind.STACK}
    for seat in seats:
        stacks[seat.pk].label = seat_label(seat.seat)
    return pots, stacks


def ante_round(
    *, match: Match, round_number: int, seats: Sequence[Seat], ante: int
) -> list[Movement]:
    """Each seat pays `ante` to the round pot, then `ante` to the game pot, from its stack.

    A stack that cannot pay in full pays what it has (round pot first). Retrying the same
    round returns the movements already made. A constant number of queries for any number
    of seats: one read and one lock of every account, one look-up of the keys, one INSERT.
    """
    if ante <= 0:
        return []
    # No savepoint (two round trips): no domain error can arise below, as each seat pays
    # at most what its stack holds; a database error aborts the caller's action anyway.
    with transaction.atomic(savepoint=False):
        pots, stacks = _match_accounts_locked(match, seats=seats, pot_kinds=POT_KINDS)
        plan = [
            (
                stacks[seat.pk],
                pots[pot_kind],
                kind,
                f"{kind}:m{match.pk}:r{round_number}:seat:{seat.pk}",
            )
            for seat in seats
            for pot_kind, kind in (
                (AccountKind.ROUND_POT, TransferKind.ANTE_ROUND),
                (AccountKind.GAME_POT, TransferKind.ANTE_GAME),
            )
        ]
        done = ledger.existing_transfers(key for *_, key in plan)
        left = {stack.pk: stack.balance for stack in stacks.values()}
        slots: list[Movement | PlannedTransfer] = []
        for stack, pot, kind, key in plan:
            if key in done:
                slots.append(Movement.replay_of(done[key], stack, pot))
                continue
            pay = min(ante, left[stack.pk])
            if pay > 0:
                left[stack.pk] -= pay
                slots.append(PlannedTransfer(stack, pot, pay, kind, key))
        written = iter(
            ledger.transfer_batch(
                [s for s in slots if isinstance(s, PlannedTransfer)],
                scope=match_scope(match.pk),
                round_number=round_number,
            )
        )
        return [s if isinstance(s, Movement) else next(written) for s in slots]


def round_pot_payout(*, match: Match, round_number: int, seat: Seat) -> Movement | None:
    """The round's winner takes the whole round pot into their stack."""
    key = f"round_pot_win:m{match.pk}:r{round_number}"
    # No savepoint: the only domain error is raised after the block, nothing written.
    with transaction.atomic(savepoint=False):
        pots, stacks = _match_accounts_locked(
            match, seats=[seat], pot_kinds=[AccountKind.ROUND_POT]
        )
        pot, stack = pots[AccountKind.ROUND_POT], stacks[seat.pk]
        prior = ledger.existing_transfers([key]).get(key)
        if prior is None:
            if pot.balance == 0:
                return None
            planned = PlannedTransfer(pot, stack, pot.balance, TransferKind.ROUND_POT_WIN, key)
            return ledger.transfer_batch(
                [planned], scope=match_scope(match.pk), round_number=round_number
            )[0]
    if prior.credit_id != stack.pk:
        raise IdempotencyKeyReused(f"Round {round_number} was paid to another seat.")
    return Movement.replay_of(prior, pot, stack)


# --------------------------------------------------------------------------- game pot


def game_pot_shares(
    *, total: int, winner_seats: Sequence[Seat], loser_seat: Seat | None, seat_order: Sequence[Seat]
) -> list[tuple[Seat, int]]:
    """Equal shares; the indivisible remainder goes to the first winner clockwise from the
    loser (or to the first winner in `seat_order` when there is no loser)."""
    if not winner_seats:
        raise InvalidTransfer("A game pot needs at least one winner.")
    base, remainder = divmod(total, len(winner_seats))
    winner_ids = {s.pk for s in winner_seats}
    order = list(seat_order)
    start = 0
    if loser_seat is not None:
        start = next((i + 1 for i, s in enumerate(order) if s.pk == loser_seat.pk), 0)
    clockwise = order[start:] + order[:start]
    first = next((s for s in clockwise if s.pk in winner_ids), winner_seats[0])
    return [(s, base + (remainder if s.pk == first.pk else 0)) for s in winner_seats]


def game_pot_payout(
    *,
    match: Match,
    winner_seats: Sequence[Seat],
    loser_seat: Seat | None = None,
    seat_order: Sequence[Seat] | None = None,
) -> list[Movement]:
    """Pays out the whole game pot: one winner takes all (common pool), or it is shared
    equally by everyone but the loser (poker dice). `seat_order` is the clockwise order
    (default: by seat number)."""
    keys = {seat.pk: f"game_pot_win:m{match.pk}:seat:{seat.pk}" for seat in winner_seats}
    if seat_order is None:
        everyone = [*winner_seats, *([loser_seat] if loser_seat is not None else [])]
        seat_order = sorted(everyone, key=lambda s: s.seat)
    with transaction.atomic():
        pots, stacks = _match_accounts_locked(
            match, seats=winner_seats, pot_kinds=[AccountKind.GAME_POT]
        )
        pot = pots[AccountKind.GAME_POT]
        done = ledger.existing_transfers(keys.values())
        if done:
            return [
                Movement.replay_of(done[keys[s.pk]], pot, stacks[s.pk])
                for s in winner_seats
                if keys[s.pk] in done
            ]
        shares = game_pot_shares(
            total=pot.balance,
            winner_seats=winner_seats,
            loser_seat=loser_seat,
            seat_order=seat_order,
        )
        planned = [
            PlannedTransfer(pot, stacks[s.pk], share, TransferKind.GAME_POT_WIN, keys[s.pk])
            for s, share in shares
            if share > 0
        ]
        return ledger.transfer_batch(planned, scope=match_scope(match.pk))


# --------------------------------------------------------------------------- cash-out


def cash_out(*, seat: Seat, actor: User | None = None) -> Movement | None:
    """Returns the seat's whole stack to the player's wallet (the house, for a server
    bot; nothing when it is empty); `actor` is who caused it, None when play did."""
    stack = stack_for(seat)
    wallet = (
        ledger.house_account()
        if is_house_staked(seat.player)
        else ledger.wallet_for_user_id(seat.player_id)
    )
    with transaction.atomic():
        ledger.accounts_lock(accounts=[stack, wallet])
        return _cash_out_locked(stack, wallet, actor=actor)


def _cash_out_locked(
    stack: Account, wallet: Account, *, actor: User | None = None
) -> Movement | None:
    if stack.balance == 0:
        return None
    key = f"cash_out:stack:{stack.pk}:after:{ledger.last_transfer_id(stack)}"
    return ledger.move(
        stack, wallet, stack.balance, TransferKind.CASH_OUT, key, scope=stack.scope, actor=actor
    )


def _match_stacks_and_wallets(match: Match) -> list[tuple[Account, Account]]:
    """The match's stacks (labelled by seat number, read in one query) with the account
    each returns to: its owner's wallet, or the house for a server bot's."""
    stacks = list(
        accounts_in_scope(scope=match_scope(match.pk), kinds=[AccountKind.STACK])
        .select_related("user")
        .annotate(seat_number=_seat_number(match.pk, "ref"))
        .order_by("id")
    )
    for stack in stacks:
        if stack.seat_number is not None:
            stack.label = seat_label(stack.seat_number)
    return [
        (
            stack,
            ledger.house_account()
            if is_house_staked(stack.user)
            else ledger.wallet_for_user_id(stack.user_id),
        )
        for stack in stacks
    ]


def match_cash_out(*, match: Match) -> list[Movement]:
    """At the end of a match, every stack returns to its owner's wallet."""
    pairs = _match_stacks_and_wallets(match)
    with transaction.atomic():
        ledger.accounts_lock(accounts=[a for pair in pairs for a in pair])
        return [m for stack, wallet in pairs if (m := _cash_out_locked(stack, wallet))]


# --------------------------------------------------------------------------- refunds

_POT_PAYOUTS = (TransferKind.ROUND_POT_WIN, TransferKind.GAME_POT_WIN)
_ANTES = (TransferKind.ANTE_ROUND, TransferKind.ANTE_GAME)


def match_refund(*, match: Match, actor: User | None = None) -> list[Movement]:
    """Abort: each player gets back exactly what they put into unsettled pots, then their
    stack; every movement names `actor` (the moderator who aborted)."""
    return [move for _, move in _refund_by_seat(match=match, actor=actor)]


def _refund_by_seat(*, match: Match, actor: User | None) -> list[tuple[int | None, Movement]]:
    """`match_refund`'s movements, each with the number of the seat it gives back to. A
    pot settles with a payout, which always empties it: a seat's unsettled part is its
    antes into the pot since the last payout, less what the pot refunded to its stack
    since (a voided round's antes). Other transfers do not count: a pot never pays out
    more than it holds, and whatever no ante accounts for stays in it."""
    scope = match_scope(match.pk)
    pots = list(accounts_in_scope(scope=scope, kinds=POT_KINDS).order_by("id"))
    pairs = _match_stacks_and_wallets(match)
    wallet_of_stack = {stack.pk: wallet for stack, wallet in pairs}
    seat_of_stack = {stack.pk: stack.seat_number for stack, _ in pairs}
    movements: list[tuple[int | None, Movement]] = []
    with transaction.atomic():
        ledger.accounts_lock(accounts=[*pots, *(a for pair in pairs for a in pair)])
        for pot in pots:
            if pot.balance == 0:
                continue
            last_payout = ledger.last_transfer_id(pot, kinds=_POT_PAYOUTS)
            for stack_id, unsettled in _unsettled_antes(pot, last_payout, set(wallet_of_stack)):
                amount = min(unsettled, pot.balance)
                if amount <= 0:
                    continue
                key = f"refund:pot:{pot.pk}:from:{stack_id}:after:{last_payout}"
                move = ledger.move(
                    pot,
                    wallet_of_stack[stack_id],
                    amount,
                    TransferKind.REFUND,
                    key,
                    scope=scope,
                    actor=actor,
                )
                movements.append((seat_of_stack[stack_id], move))
        movements.extend(
            (stack.seat_number, m)
            for stack, wallet in pairs
            if (m := _cash_out_locked(stack, wallet, actor=actor))
        )
    return movements


def _unsettled_antes(pot: Account, after: int, stack_ids: set[int]) -> list[tuple[int, int]]:
    """[(stack id, antes paid into `pot` after transfer `after` less refunds back to that
    stack)] for the stacks in `stack_ids`, by stack id."""
    paid = dict(
        Transfer.objects.filter(credit_id=pot.pk, id__gt=after, kind__in=_ANTES)
        .values("debit_id")
        .annotate(total=Sum("amount"))
        .values_list("debit_id", "total")
    )
    returned = dict(
        Transfer.objects.filter(debit_id=pot.pk, id__gt=after, kind=TransferKind.REFUND)
        .values("credit_id")
        .annotate(total=Sum("amount"))
        .values_list("credit_id", "total")
    )
    return [
        (stack_id, total - returned.get(stack_id, 0))
        for stack_id, total in sorted(paid.items())
        if stack_id in stack_ids
    ]


# --------------------------------------------------------------------------- audit

# Only the games layer knows which scopes are closed: ledger_check runs this as well.
CLOSED_TABLES_CHECK = AuditCheck(
    name="every finished or aborted match has empty pots and stacks",
    sql="""
        SELECT m.id AS match_id, m.status, a.id AS account_id, a.kind, a.balance
        FROM ledger_account a JOIN games_match m ON a.scope = 'match:' || m.id
        WHERE m.status IN (%s, %s) AND a.kind IN ('round_pot', 'game_pot', 'stack')
          AND a.balance <> 0
        ORDER BY m.id, a.id
        """,
    params=lambda: [Match.Status.FINISHED, Match.Status.ABORTED],
)


# ------------------------------------------------------------ the match service's calls


def _dicts(moves: Iterable[Movement | None]) -> list[dict]:
    return [m.as_dict() for m in moves if m is not None]


def take_buy_ins(*, match: Match, seats: list[Seat]) -> list[dict]:
    if not match.buy_in:
        return []
    pots_for(match)  # opens the pots once: every round after only reads them
    return _dicts(buy_ins(seats=seats, amount=match.buy_in))


def take_antes(*, match: Match, round_number: int, seats: list[Seat]) -> list[dict]:
    if not match.buy_in or not match.ante:
        return []
    return _dicts(ante_round(match=match, round_number=round_number, seats=seats, ante=match.ante))


def pay_round_pot(*, match: Match, round_number: int, seat: Seat) -> list[dict]:
    if not match.buy_in:
        return []
    return _dicts([round_pot_payout(match=match, round_number=round_number, seat=seat)])


def settle_match(
    *, match: Match, seats: list[Seat], winner_seats: list[int], loser_seat: int | None
) -> list[dict]:
    """Game pot to the winner(s), then every stack back to its owner's wallet."""
    if not match.buy_in:
        return []
    moves = game_pot_payout(
        match=match,
        winner_seats=[s for s in seats if s.seat in winner_seats],
        loser_seat=next((s for s in seats if s.seat == loser_seat), None),
        seat_order=seats,
    )
    return _dicts([*moves, *match_cash_out(match=match)])


class Refund(NamedTuple):
    """An abort's movements (`ChipMove` dicts) and the chips each seat got back
    (`{"<seat>": n}`: its unsettled antes and its stack)."""

    moves: list[dict]
    by_seat: dict[str, int]


def refund_match(*, match: Match, actor: User | None = None) -> Refund:
    if not match.buy_in:
        return Refund(moves=[], by_seat={})
    moves = _refund_by_seat(match=match, actor=actor)
    by_seat: dict[str, int] = {}
    for seat, move in moves:
        if seat is not None:
            by_seat[str(seat)] = by_seat.get(str(seat), 0) + move.amount
    return Refund(moves=_dicts(m for _, m in moves), by_seat=by_seat)


def refund_voided_round(*, match: Match, round_number: int) -> list[dict]:
    """A round voided by a forfeit settles nothing: each ante in its round pot goes back
    to the stack that paid it."""
    if not match.buy_in or not match.ante:
        return []
    scope = match_scope(match.pk)
    pot = pots_for(match).round
    antes = (
        transfers_in_scope(scope=scope)
        .filter(round_number=round_number, kind=TransferKind.ANTE_ROUND, credit=pot)
        .select_related("debit")
        .annotate(seat_number=_seat_number(match.pk, "debit__ref"))
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
            scope=scope,
            round_number=round_number,
        )
        moves.append(
            {
                "from": "round_pot",
                "to": seat_label(ante.seat_number),
                "amount": ante.amount,
                "kind": TransferKind.REFUND,
            }
        )
    return moves
