"""A tournament's chips in the ledger (docs/RULES.md, "Tournaments"): each entry's buy-in
moves into the tournament's prize pool (scope "tournament:<id>"), its fee, if any, into
the tournament's escrow, held for the house until the tournament is played out
(`fees_collect`); the pool leaves only as prizes or as refunds, the escrow only to the
house or as refunds, each entry's exactly what it paid, so a refund never needs the
house's bankroll. The server's bots enter on the house's chips (as they sit at tables,
`games.stakes.is_house_staked`): their buy-in comes from the house's bankroll (never
minted: `HouseBankrollInsufficient` when it is short), pays no fee, and their refund or
prize goes back to it.

Every call runs in the caller's transaction under the tournament's row lock (the lock
order: `games.services.locks`), and locks the ledger accounts it moves through the
ledger. Keys name the entry, so nothing is paid or refunded twice."""

from collections.abc import Sequence

from django.db import transaction

from accounts.models import User
from games.stakes import is_house_staked
from ledger import services as ledger
from ledger.errors import InsufficientChips
from ledger.models import Account, AccountKind, TransferKind
from ledger.selectors import AuditCheck, accounts_in_scope
from tournaments.models import Entry, Tournament


def pool_scope(tournament_id: int) -> str:
    """The ledger scope of a tournament's prize pool and of every transfer into or out."""
    return f"tournament:{tournament_id}"


def pool_account(tournament: Tournament) -> Account:
    return ledger.scoped_account(kind=AccountKind.PRIZE_POOL, scope=pool_scope(tournament.pk))


def escrow_account(tournament: Tournament) -> Account:
    """Where the entries' fees wait until the tournament is played out."""
    return ledger.scoped_account(kind=AccountKind.ESCROW, scope=pool_scope(tournament.pk))


def _entry_key(entry: Entry) -> str:
    return f"tournament_entry:entry:{entry.pk}"


def _fee_key(entry: Entry) -> str:
    return f"tournament_fee:entry:{entry.pk}"


def _owner_account(entry: Entry) -> Account:
    """Where an entry's chips come from and go back to: the player's wallet, or the
    house for a server bot."""
    if is_house_staked(entry.user):
        return ledger.house_account()
    return ledger.wallet_for_user_id(entry.user_id)


def entry_pay(*, tournament: Tournament, entry: Entry) -> None:
    """The entry's buy-in into the pool and its fee into the escrow; `InsufficientChips`,
    moving nothing, when the wallet cannot cover both."""
    scope = pool_scope(tournament.pk)
    pool = pool_account(tournament)
    if is_house_staked(entry.user):
        if tournament.buy_in:
            ledger.pay_from_house(
                pool, tournament.buy_in, kind=TransferKind.ENTRY, key=_entry_key(entry), scope=scope
            )
        return
    wallet = ledger.wallet_for_user_id(entry.user_id)
    escrow = [escrow_account(tournament)] if tournament.fee else []
    with transaction.atomic(savepoint=False):
        ledger.accounts_lock(accounts=[wallet, pool, *escrow])
        cost = tournament.buy_in + tournament.fee
        if wallet.balance < cost:
            raise InsufficientChips(f"You have {wallet.balance} chips; the entry costs {cost}.")
        actor = entry.user
        if tournament.buy_in:
            ledger.move(
                wallet,
                pool,
                tournament.buy_in,
                TransferKind.ENTRY,
                _entry_key(entry),
                scope=scope,
                actor=actor,
            )
        if tournament.fee:
            ledger.move(
                wallet,
                escrow[0],
                tournament.fee,
                TransferKind.ENTRY_FEE,
                _fee_key(entry),
                scope=scope,
                actor=actor,
            )


def entries_refund(
    *, tournament: Tournament, entries: Sequence[Entry], actor: User | None = None
) -> dict[int, int]:
    """Gives each entry back exactly what it paid (buy-in from the pool, fee from the
    escrow), as recorded under its keys; returns the chips refunded by entry id. Every
    account it moves is locked at once, in the ledger's order (ascending id)."""
    scope = pool_scope(tournament.pk)
    paid = ledger.existing_transfers(
        key for entry in entries for key in (_entry_key(entry), _fee_key(entry))
    )
    refunded = {entry.pk: 0 for entry in entries}
    if not paid:
        return refunded
    # Each payment is refunded from where it went: the pool, the escrow, or (a fee paid
    # before fees were held in escrow) the house, whose bankroll refunds it, never minting.
    sources = Account.objects.in_bulk({t.credit_id for t in paid.values()})
    owners = {entry.pk: _owner_account(entry) for entry in entries}
    with transaction.atomic(savepoint=False):
        ledger.accounts_lock(accounts=[*sources.values(), *owners.values()])
        for entry in entries:
            for key in (_entry_key(entry), _fee_key(entry)):
                done = paid.get(key)
                if done is None:
                    continue
                owner, source = owners[entry.pk], sources[done.credit_id]
                refund_key = f"tournament_refund:{key}"
                if source.kind == AccountKind.HOUSE:
                    ledger.pay_from_house(
                        owner,
                        done.amount,
                        kind=TransferKind.REFUND,
                        key=refund_key,
                        actor=actor,
                        scope=scope,
                    )
                else:
                    ledger.move(
                        source,
                        owner,
                        done.amount,
                        TransferKind.REFUND,
                        refund_key,
                        scope=scope,
                        actor=actor,
                    )
                refunded[entry.pk] += done.amount
    return refunded


def fees_collect(*, tournament: Tournament) -> None:
    """The house earns the fees held in the tournament's escrow (it was played out)."""
    scope = pool_scope(tournament.pk)
    escrow = accounts_in_scope(scope=scope, kinds=[AccountKind.ESCROW]).first()
    if escrow is None:
        return
    house = ledger.house_account()
    with transaction.atomic(savepoint=False):
        ledger.accounts_lock(accounts=[escrow, house])
        if escrow.balance > 0:
            ledger.move(
                escrow,
                house,
                escrow.balance,
                TransferKind.ENTRY_FEE,
                f"tournament_fees:tournament:{tournament.pk}",
                scope=scope,
            )


def prizes_pay(*, tournament: Tournament, winners: Sequence[tuple[Entry, int]]) -> None:
    """Pays each (entry, prize) from the pool, which they empty."""
    scope = pool_scope(tournament.pk)
    pool = pool_account(tournament)
    owners = {entry.pk: _owner_account(entry) for entry, _ in winners}
    with transaction.atomic(savepoint=False):
        ledger.accounts_lock(accounts=[pool, *owners.values()])
        for entry, amount in winners:
            if amount > 0:
                ledger.move(
                    pool,
                    owners[entry.pk],
                    amount,
                    TransferKind.PRIZE,
                    f"tournament_prize:entry:{entry.pk}",
                    scope=scope,
                )


def pool_balance(tournament: Tournament) -> int:
    return pool_account(tournament).balance


# Only this app knows which pools are closed: ledger_check runs this as well.
CLOSED_POOLS_CHECK = AuditCheck(
    name="every finished or cancelled tournament has an empty prize pool and fee escrow",
    sql="""
        SELECT t.id AS tournament_id, t.status, a.id AS account_id, a.kind, a.balance
        FROM ledger_account a JOIN tournaments_tournament t ON a.scope = 'tournament:' || t.id
        WHERE t.status IN (%s, %s) AND a.kind IN ('prize_pool', 'escrow') AND a.balance <> 0
        ORDER BY t.id
        """,
    params=lambda: [Tournament.Status.FINISHED, Tournament.Status.CANCELLED],
)
