"""Every chip movement goes through `transfer`; the helpers below are the game's vocabulary.

Locking: every function locks the accounts it touches with one
`SELECT ... ORDER BY id FOR UPDATE` before moving anything, so two transactions always
take account locks in ascending primary-key order and cannot deadlock on them. A caller
that also locks a match row should lock it first (`select_for_update(no_key=True)`), then
call these helpers.

Idempotency: every transfer carries a unique key. `transfer` inserts with
`ON CONFLICT (idempotency_key) DO NOTHING`: when the key exists (a replay, or a concurrent
caller that won the race, whose commit the insert waits for) the stored transfer is
compared with the request: the same payload returns it and moves nothing, a different
payload raises `IdempotencyKeyReused`. The helpers derive keys from match, round and seat,
so a retried match operation is safe.

All helpers are keyword-only, may run inside the caller's transaction, and return
`Movement`s the match service can report as `chips: [{from, to, amount, kind}]`.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

from django.conf import settings
from django.db import IntegrityError, connection, transaction
from django.db.models import Max, Q, Sum
from django.utils import timezone

from accounts.models import User
from games.models import Match, Seat
from ledger.errors import IdempotencyKeyReused, InsufficientChips, InvalidTransfer, LedgerError
from ledger.models import POT_KINDS, Account, AccountKind, Transfer, TransferKind

MAX_KEY_LENGTH = 255


@dataclass(frozen=True)
class Movement:
    """One transfer as the game reports it."""

    transfer: Transfer
    from_label: str
    to_label: str
    replayed: bool = False

    @property
    def amount(self) -> int:
        return self.transfer.amount

    @property
    def kind(self) -> str:
        return self.transfer.kind

    def as_dict(self) -> dict[str, Any]:
        return {
            "from": self.from_label,
            "to": self.to_label,
            "amount": self.transfer.amount,
            "kind": self.transfer.kind,
        }


class Pots(NamedTuple):
    round: Account
    game: Account


# --------------------------------------------------------------------------- accounts


def issuer_account() -> Account:
    return Account.objects.get_or_create(kind=AccountKind.ISSUER)[0]


def house_account() -> Account:
    return Account.objects.get_or_create(kind=AccountKind.HOUSE)[0]


def wallet_for(user: User) -> Account:
    return _wallet(user.pk)


def _wallet(user_id: int) -> Account:
    return Account.objects.get_or_create(kind=AccountKind.WALLET, user_id=user_id)[0]


def stack_for(seat: Seat) -> Account:
    account, _ = Account.objects.get_or_create(
        kind=AccountKind.STACK,
        seat_id=seat.pk,
        defaults={"match_id": seat.match_id, "user_id": seat.player_id},
    )
    account.seat = seat  # for labels, no query
    return account


def pots_for(match: Match) -> Pots:
    """The match's two pots, read in one query; a missing one is created (the match
    service opens both when the match starts, so rounds only read them)."""
    found = {a.kind: a for a in Account.objects.filter(match_id=match.pk, kind__in=POT_KINDS)}
    for kind in POT_KINDS:
        if kind not in found:
            found[kind] = Account.objects.get_or_create(kind=kind, match_id=match.pk)[0]
    return Pots(round=found[AccountKind.ROUND_POT], game=found[AccountKind.GAME_POT])


def accounts_lock(*, accounts: Iterable[Account]) -> None:
    """Locks the accounts in ascending id order and refreshes their `balance` in place."""
    by_id: dict[int, list[Account]] = {}
    for account in accounts:
        by_id.setdefault(account.pk, []).append(account)
    if not by_id:
        return
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT id, balance FROM ledger_account WHERE id = ANY(%s) ORDER BY id FOR UPDATE",
            [sorted(by_id)],
        )
        for account_id, balance in cursor.fetchall():
            for account in by_id[account_id]:
                account.balance = balance


# --------------------------------------------------------------------------- transfer

_LOCK_PAIR_SQL = (
    "SELECT id, kind, balance FROM ledger_account WHERE id IN (%s, %s) ORDER BY id FOR UPDATE"
)
_INSERT_HEAD = (
    "INSERT INTO ledger_transfer (debit_id, credit_id, amount, kind, match_id, round_number,"
    " actor_id, reason, idempotency_key, debit_balance_after, credit_balance_after,"
    " created_at) VALUES "
)
_INSERT_ROW = "(%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)"
_INSERT_SQL = f"{_INSERT_HEAD}{_INSERT_ROW} ON CONFLICT (idempotency_key) DO NOTHING RETURNING id"


def _validate(
    *,
    debit: Account,
    credit: Account,
    amount: int,
    kind: str,
    idempotency_key: str,
    actor: User | None,
    reason: str,
) -> None:
    if isinstance(amount, bool) or not isinstance(amount, int) or amount <= 0:
        raise InvalidTransfer(f"A transfer moves a positive whole number of chips, not {amount!r}.")
    if debit.pk is None or credit.pk is None:
        raise InvalidTransfer("Both accounts must exist.")
    if debit.pk == credit.pk:
        raise InvalidTransfer("A transfer needs two different accounts.")
    if kind not in TransferKind.values:
        raise InvalidTransfer(f"Unknown transfer kind {kind!r}.")
    if not idempotency_key or len(idempotency_key) > MAX_KEY_LENGTH:
        raise InvalidTransfer(f"An idempotency key has 1 to {MAX_KEY_LENGTH} characters.")
    if kind == TransferKind.ADJUSTMENT and (actor is None or not reason.strip()):
        raise InvalidTransfer("An adjustment needs a reason and the person making it.")


def transfer(
    *,
    debit: Account,
    credit: Account,
    amount: int,
    kind: str,
    idempotency_key: str,
    match: Match | None = None,
    round_number: int | None = None,
    actor: User | None = None,
    reason: str = "",
) -> Transfer:
    """Moves `amount` chips from `debit` to `credit`, atomically and exactly once.

    Returns the Transfer with `replayed` set: False when this call moved the chips, True
    when the key was already used for the same payload (nothing moved). Updates
    `debit.balance` and `credit.balance` in place. Raises InsufficientChips,
    IdempotencyKeyReused or InvalidTransfer; a domain error leaves the caller's
    transaction usable (nothing was written).
    """
    _validate(
        debit=debit,
        credit=credit,
        amount=amount,
        kind=kind,
        idempotency_key=idempotency_key,
        actor=actor,
        reason=reason,
    )
    match_id = match.pk if match is not None else None
    actor_id = actor.pk if actor is not None else None
    error: LedgerError | None = None
    # No savepoint: a domain error is raised after the block, and only when nothing was
    # written, so the caller's transaction stays usable without SAVEPOINT/RELEASE.
    with transaction.atomic(savepoint=False), connection.cursor() as cursor:
        try:
            result = _transfer_locked(
                cursor,
                debit=debit,
                credit=credit,
                amount=amount,
                kind=kind,
                idempotency_key=idempotency_key,
                match_id=match_id,
                round_number=round_number,
                actor_id=actor_id,
                reason=reason,
            )
        except LedgerError as exc:
            if isinstance(exc.__cause__, IntegrityError):
                raise  # the database refused: this transaction is aborted anyway
            error = exc
    if error is not None:
        raise error
    return result


def _transfer_locked(
    cursor,
    *,
    debit: Account,
    credit: Account,
    amount: int,
    kind: str,
    idempotency_key: str,
    match_id: int | None,
    round_number: int | None,
    actor_id: int | None,
    reason: str,
) -> Transfer:
    payload = (debit.pk, credit.pk, amount, kind, match_id, round_number, actor_id, reason)
    cursor.execute(_LOCK_PAIR_SQL, [debit.pk, credit.pk])
    locked = {row[0]: (row[1], row[2]) for row in cursor.fetchall()}
    if len(locked) != 2:
        raise InvalidTransfer("Both accounts must exist.")
    debit_kind, debit_balance = locked[debit.pk]
    credit_balance = locked[credit.pk][1]
    debit.balance, credit.balance = debit_balance, credit_balance
    if debit_balance < amount and debit_kind != AccountKind.ISSUER:
        replay = _replay_of(idempotency_key, payload)
        if replay is not None:
            return replay
        raise InsufficientChips(
            f"The {debit.label} account holds {debit_balance} chips; {amount} are needed."
        )
    created_at = timezone.now()
    debit_after, credit_after = debit_balance - amount, credit_balance + amount
    try:
        cursor.execute(
            _INSERT_SQL,
            [
                debit.pk,
                credit.pk,
                amount,
                kind,
                match_id,
                round_number,
                actor_id,
                reason,
                idempotency_key,
                debit_after,
                credit_after,
                created_at,
            ],
        )
    except IntegrityError as exc:
        if _constraint_name(exc) == "ledger_account_balance_non_negative":
            raise InsufficientChips(f"The {debit.label} account cannot pay.") from exc
        raise
    row = cursor.fetchone()
    if row is None:  # the key exists: a replay, or a concurrent caller won the race
        replay = _replay_of(idempotency_key, payload)
        if replay is None:  # pragma: no cover - ON CONFLICT saw a committed row
            raise LedgerError(f"Idempotency key {idempotency_key!r} vanished.")
        return replay
    result = Transfer(
        id=row[0],
        debit=debit,
        credit=credit,
        amount=amount,
        kind=kind,
        match_id=match_id,
        round_number=round_number,
        actor_id=actor_id,
        reason=reason,
        idempotency_key=idempotency_key,
        debit_balance_after=debit_after,
        credit_balance_after=credit_after,
        created_at=created_at,
    )
    result._state.adding = False
    result._state.db = "default"
    result.replayed = False
    debit.balance, credit.balance = debit_after, credit_after
    return result


def _replay_of(idempotency_key: str, payload: tuple) -> Transfer | None:
    """The stored transfer under this key if its payload matches; raises if it differs."""
    existing = Transfer.objects.filter(idempotency_key=idempotency_key).first()
    if existing is None:
        return None
    if existing.payload() != payload:
        raise IdempotencyKeyReused(
            f"Idempotency key {idempotency_key!r} was already used for another movement."
        )
    existing.replayed = True
    return existing


def _constraint_name(exc: IntegrityError) -> str | None:
    diag = getattr(exc.__cause__, "diag", None)
    return getattr(diag, "constraint_name", None)


def _move(
    debit: Account,
    credit: Account,
    amount: int,
    kind: str,
    key: str,
    *,
    match: Match | None = None,
    round_number: int | None = None,
    actor: User | None = None,
    reason: str = "",
) -> Movement:
    done = transfer(
        debit=debit,
        credit=credit,
        amount=amount,
        kind=kind,
        idempotency_key=key,
        match=match,
        round_number=round_number,
        actor=actor,
        reason=reason,
    )
    return Movement(done, debit.label, credit.label, replayed=done.replayed)


def _replayed(existing: Transfer, debit: Account, credit: Account) -> Movement:
    existing.replayed = True
    return Movement(existing, debit.label, credit.label, replayed=True)


def _match_ref(match_id: int | None) -> Match | None:
    """A Match standing for its id, to record on a transfer without loading it."""
    return Match(pk=match_id) if match_id is not None else None


def _existing(keys: Iterable[str]) -> dict[str, Transfer]:
    return {t.idempotency_key: t for t in Transfer.objects.filter(idempotency_key__in=list(keys))}


# --------------------------------------------------------------------------- house


def _from_house(
    target: Account,
    amount: int,
    *,
    kind: str,
    key: str,
    actor: User | None = None,
) -> Movement:
    """Pays `amount` from the house, minting the shortfall from the issuer first."""
    house, issuer = house_account(), issuer_account()
    with transaction.atomic():
        accounts_lock(accounts=[issuer, house, target])
        prior = _existing([key]).get(key)
        if prior is not None:
            return _move(house, target, amount, kind, key, actor=actor)  # compares payloads
        if house.balance < amount:
            _move(
                issuer,
                house,
                amount - house.balance,
                TransferKind.HOUSE_FUNDING,
                f"house_funding:{key}",
                actor=actor,
            )
        return _move(house, target, amount, kind, key, actor=actor)


def signup_grant(
    *, user: User, amount: int | None = None, actor: User | None = None
) -> Movement | None:
    """Grants a new account its starting chips (settings.SIGNUP_CHIPS) from the house;
    `actor` is who caused it (the registering user)."""
    amount = settings.SIGNUP_CHIPS if amount is None else amount
    if amount <= 0:
        return None
    return _from_house(
        wallet_for(user),
        amount,
        kind=TransferKind.SIGNUP_GRANT,
        key=f"signup_grant:user:{user.pk}",
        actor=actor,
    )


def bot_funding(*, user: User, amount: int, idempotency_key: str | None = None) -> Movement:
    """Gives a bot's wallet `amount` chips from the house (e.g. before it sits down)."""
    key = idempotency_key or f"bot_funding:{uuid.uuid4().hex}"
    return _from_house(wallet_for(user), amount, kind=TransferKind.BOT_FUNDING, key=key)


# The largest single correction: far beyond any real one, and far from the 64-bit limit
# of a balance (an amount past it would fail in PostgreSQL, not as a domain error).
MAX_ADJUSTMENT = 10**12


def adjustment(
    *,
    account: Account,
    amount: int,
    reason: str,
    actor: User,
    idempotency_key: str | None = None,
) -> Movement:
    """A correction: `amount` > 0 credits the account from the issuer, < 0 debits it back.

    Never edits history; it is a new compensating transfer naming its reason and author.
    """
    if isinstance(amount, bool) or not isinstance(amount, int) or amount == 0:
        raise InvalidTransfer("An adjustment moves a non-zero whole number of chips.")
    if abs(amount) > MAX_ADJUSTMENT:
        raise InvalidTransfer(f"An adjustment moves at most {MAX_ADJUSTMENT} chips.")
    if actor is None or not reason or not reason.strip():
        raise InvalidTransfer("An adjustment needs a reason and the person making it.")
    if account.kind == AccountKind.ISSUER:
        raise InvalidTransfer("The issuer cannot be adjusted against itself.")
    issuer = issuer_account()
    key = idempotency_key or f"adjustment:{uuid.uuid4().hex}"
    debit, credit = (issuer, account) if amount > 0 else (account, issuer)
    return _move(
        debit,
        credit,
        abs(amount),
        TransferKind.ADJUSTMENT,
        key,
        match=_match_ref(account.match_id),
        actor=actor,
        reason=reason.strip(),
    )


# --------------------------------------------------------------------------- matches


def buy_in(*, seat: Seat, amount: int, actor: User | None = None) -> Movement | None:
    """Moves the match's buy-in from the player's wallet to the seat's stack; `actor` is
    who caused it (`buy_ins` names each seat's own player)."""
    if amount <= 0:
        return None
    wallet, stack = _wallet(seat.player_id), stack_for(seat)
    return _move(
        wallet,
        stack,
        amount,
        TransferKind.BUY_IN,
        f"buy_in:seat:{seat.pk}",
        match=_match_ref(seat.match_id),
        actor=actor,
    )


def buy_ins(*, seats: Sequence[Seat], amount: int) -> list[Movement]:
    """`buy_in` for every seat, all accounts locked up front (use this at match start).
    Each is recorded as its player's own act: they took the seat, knowing the buy-in."""
    if amount <= 0:
        return []
    with transaction.atomic():
        accounts_lock(accounts=[a for s in seats for a in (_wallet(s.player_id), stack_for(s))])
        return [
            m for s in seats if (m := buy_in(seat=s, amount=amount, actor=s.player)) is not None
        ]


class _Planned(NamedTuple):
    debit: Account
    credit: Account
    amount: int
    kind: str
    key: str


def _match_accounts_locked(
    match: Match, *, seats: Sequence[Seat], pot_kinds: Sequence[str]
) -> tuple[dict[str, Account], dict[int, Account]]:
    """The match's pots of `pot_kinds` and the stacks of `seats`, read in one query and
    then locked in one (`accounts_lock`), so their balances are current: pots by kind,
    stacks by seat id. Accounts never opened (a caller that skipped the buy-in) are
    created before these account locks are taken, as waiting on another transaction's insert while
    holding locks could deadlock."""
    wanted = Q(match_id=match.pk, kind__in=pot_kinds) | Q(
        kind=AccountKind.STACK, seat_id__in=[s.pk for s in seats]
    )
    rows = list(Account.objects.filter(wanted))
    if len(rows) < len(pot_kinds) + len(seats):
        pots_for(match)
        for seat in seats:
            stack_for(seat)
        rows = list(Account.objects.filter(wanted))
    accounts_lock(accounts=rows)
    pots = {a.kind: a for a in rows if a.kind != AccountKind.STACK}
    stacks = {a.seat_id: a for a in rows if a.kind == AccountKind.STACK}
    for seat in seats:
        stacks[seat.pk].seat = seat  # for labels, no query
    return pots, stacks


def _moves_locked(
    planned: Sequence[_Planned], *, match: Match, round_number: int | None = None
) -> list[Movement]:
    """Writes `planned` transfers, in order, with one multi-row INSERT.

    For a caller holding the locks of every account involved (so their balances are
    current) that found none of the keys used. Each row states the balances it leaves and
    the per-row trigger checks them against the real ones, so a plan that is off (or a key
    taken after all: ON CONFLICT skips its row) aborts the transaction instead of moving
    the wrong chips. A domain error is raised before anything is written.
    """
    if not planned:
        return []
    balances: dict[int, int] = {}
    for p in planned:
        _validate(
            debit=p.debit,
            credit=p.credit,
            amount=p.amount,
            kind=p.kind,
            idempotency_key=p.key,
            actor=None,
            reason="",
        )
        balances.setdefault(p.debit.pk, p.debit.balance)
        balances.setdefault(p.credit.pk, p.credit.balance)
        if balances[p.debit.pk] < p.amount and p.debit.kind != AccountKind.ISSUER:
            raise InsufficientChips(
                f"The {p.debit.label} account holds {balances[p.debit.pk]} chips;"
                f" {p.amount} are needed."
            )
        balances[p.debit.pk] -= p.amount
        balances[p.credit.pk] += p.amount
    created_at = timezone.now()
    transfers = []
    for p in planned:
        p.debit.balance -= p.amount
        p.credit.balance += p.amount
        transfers.append(
            Transfer(
                debit=p.debit,
                credit=p.credit,
                amount=p.amount,
                kind=p.kind,
                match_id=match.pk,
                round_number=round_number,
                reason="",
                idempotency_key=p.key,
                debit_balance_after=p.debit.balance,
                credit_balance_after=p.credit.balance,
                created_at=created_at,
            )
        )
    params = [
        value
        for t in transfers
        for value in (
            t.debit_id,
            t.credit_id,
            t.amount,
            t.kind,
            t.match_id,
            t.round_number,
            None,
            t.reason,
            t.idempotency_key,
            t.debit_balance_after,
            t.credit_balance_after,
            t.created_at,
        )
    ]
    sql = (
        f"{_INSERT_HEAD}{', '.join([_INSERT_ROW] * len(transfers))}"
        " ON CONFLICT (idempotency_key) DO NOTHING RETURNING id, idempotency_key"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        ids = {key: pk for pk, key in cursor.fetchall()}
    if len(ids) != len(transfers):
        raise LedgerError("A planned transfer's key was used concurrently.")
    movements = []
    for t in transfers:
        t.pk = ids[t.idempotency_key]
        t._state.adding = False
        t._state.db = "default"
        t.replayed = False
        movements.append(Movement(t, t.debit.label, t.credit.label))
    return movements


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
        done = _existing(key for *_, key in plan)
        left = {stack.pk: stack.balance for stack in stacks.values()}
        slots: list[Movement | _Planned] = []
        for stack, pot, kind, key in plan:
            if key in done:
                slots.append(_replayed(done[key], stack, pot))
                continue
            pay = min(ante, left[stack.pk])
            if pay > 0:
                left[stack.pk] -= pay
                slots.append(_Planned(stack, pot, pay, kind, key))
        written = iter(
            _moves_locked(
                [s for s in slots if isinstance(s, _Planned)],
                match=match,
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
        prior = _existing([key]).get(key)
        if prior is None:
            if pot.balance == 0:
                return None
            planned = _Planned(pot, stack, pot.balance, TransferKind.ROUND_POT_WIN, key)
            return _moves_locked([planned], match=match, round_number=round_number)[0]
    if prior.credit_id != stack.pk:
        raise IdempotencyKeyReused(f"Round {round_number} was paid to another seat.")
    return _replayed(prior, pot, stack)


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
        done = _existing(keys.values())
        if done:
            return [
                _replayed(done[keys[s.pk]], pot, stacks[s.pk])
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
            _Planned(pot, stacks[s.pk], share, TransferKind.GAME_POT_WIN, keys[s.pk])
            for s, share in shares
            if share > 0
        ]
        return _moves_locked(planned, match=match)


def _stack_history_mark(stack: Account) -> int:
    last = Transfer.objects.filter(Q(debit_id=stack.pk) | Q(credit_id=stack.pk)).aggregate(
        m=Max("id")
    )["m"]
    return last or 0


def cash_out(*, seat: Seat, actor: User | None = None) -> Movement | None:
    """Returns the seat's whole stack to the player's wallet (nothing when it is empty);
    `actor` is who caused it, None when play did (the end of the match)."""
    stack, wallet = stack_for(seat), _wallet(seat.player_id)
    with transaction.atomic():
        accounts_lock(accounts=[stack, wallet])
        return _cash_out_locked(stack, wallet, actor=actor)


def _cash_out_locked(
    stack: Account, wallet: Account, *, actor: User | None = None
) -> Movement | None:
    if stack.balance == 0:
        return None
    key = f"cash_out:stack:{stack.pk}:after:{_stack_history_mark(stack)}"
    return _move(
        stack,
        wallet,
        stack.balance,
        TransferKind.CASH_OUT,
        key,
        match=_match_ref(stack.match_id),
        actor=actor,
    )


def _match_stacks_and_wallets(match: Match) -> list[tuple[Account, Account]]:
    stacks = list(
        Account.objects.filter(kind=AccountKind.STACK, match_id=match.pk)
        .select_related("seat", "match")
        .order_by("id")
    )
    return [(stack, _wallet(stack.user_id)) for stack in stacks]


def match_cash_out(*, match: Match) -> list[Movement]:
    """At the end of a match, every stack returns to its owner's wallet."""
    pairs = _match_stacks_and_wallets(match)
    with transaction.atomic():
        accounts_lock(accounts=[a for pair in pairs for a in pair])
        return [m for stack, wallet in pairs if (m := _cash_out_locked(stack, wallet))]


_POT_PAYOUTS = (TransferKind.ROUND_POT_WIN, TransferKind.GAME_POT_WIN)
_ANTES = (TransferKind.ANTE_ROUND, TransferKind.ANTE_GAME)


def match_refund(*, match: Match, actor: User | None = None) -> list[Movement]:
    """Abort: each player gets back exactly what they put into unsettled pots, then their
    stack; every movement names `actor` (the moderator who aborted). A pot settles with a
    payout, which always empties it: a seat's unsettled part is its antes into the pot
    since the last payout, less what the pot refunded to its stack since (a voided round's
    antes). Other transfers do not count: a pot never pays out more than it holds, and
    whatever no ante accounts for stays in it."""
    pots = list(Account.objects.filter(kind__in=POT_KINDS, match_id=match.pk).order_by("id"))
    pairs = _match_stacks_and_wallets(match)
    wallet_of_stack = {stack.pk: wallet for stack, wallet in pairs}
    movements: list[Movement] = []
    with transaction.atomic():
        accounts_lock(accounts=[*pots, *(a for pair in pairs for a in pair)])
        for pot in pots:
            if pot.balance == 0:
                continue
            last_payout = (
                Transfer.objects.filter(debit_id=pot.pk, kind__in=_POT_PAYOUTS).aggregate(
                    m=Max("id")
                )["m"]
                or 0
            )
            for stack_id, unsettled in _unsettled_antes(pot, last_payout, set(wallet_of_stack)):
                amount = min(unsettled, pot.balance)
                if amount <= 0:
                    continue
                key = f"refund:pot:{pot.pk}:from:{stack_id}:after:{last_payout}"
                movements.append(
                    _move(
                        pot,
                        wallet_of_stack[stack_id],
                        amount,
                        TransferKind.REFUND,
                        key,
                        match=match,
                        actor=actor,
                    )
                )
        movements.extend(
            m for stack, wallet in pairs if (m := _cash_out_locked(stack, wallet, actor=actor))
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
