"""Migrations 0004-0006 turn the ledger's match/seat foreign keys into opaque references
(scope "match:<id>", ref "seat:<id>") without changing any id, amount, kind, key or
balance, and they reverse on a populated database."""

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from games import stakes
from games.models import Match, Seat
from ledger.models import Account, AccountKind, Transfer
from ledger.selectors import ledger_problems
from tests.factories import PlayerFactory

BEFORE = [("ledger", "0003_guard_by_setting_and_no_truncate")]


def _migrate(targets) -> None:
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(targets)


def _latest() -> list[tuple[str, str]]:
    executor = MigrationExecutor(connection)
    # Every app's latest: going back unapplies other apps' migrations that depend on the
    # ledger's later ones, and the tests after this one need them.
    return executor.loader.graph.leaf_nodes()


def _sql(sql: str, params=None) -> list[tuple]:
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchall() if cursor.description else []


def _old_schema_table(players) -> dict:
    """A running match in the old schema: stacks and pots with match/seat foreign keys and
    transfers of several kinds naming the match (raw SQL: the models are the new ones)."""
    match = Match.objects.create(
        status="active",
        ruleset="sheet_000",
        family="common_pool",
        rules={},
        created_by=players[0],
        max_players=2,
        turn_seconds=60,
        buy_in=50,
        ante=2,
    )
    seats = [Seat.objects.create(match=match, seat=i, player=p) for i, p in enumerate(players)]
    wallets = {
        p.pk: _sql("SELECT id FROM ledger_account WHERE kind = 'wallet' AND user_id = %s", [p.pk])[
            0
        ][0]
        for p in players
    }
    insert_account = (
        "INSERT INTO ledger_account (kind, user_id, match_id, seat_id, balance, created_at)"
        " VALUES (%s, %s, %s, %s, 0, now()) RETURNING id"
    )
    stacks = {
        s.pk: _sql(insert_account, ["stack", s.player_id, match.pk, s.pk])[0][0] for s in seats
    }
    pots = {
        kind: _sql(insert_account, [kind, None, match.pk, None])[0][0]
        for kind in ("round_pot", "game_pot")
    }
    insert_transfer = (
        "INSERT INTO ledger_transfer (debit_id, credit_id, amount, kind, match_id, round_number,"
        " actor_id, reason, idempotency_key, created_at)"
        " VALUES (%s, %s, %s, %s, %s, %s, %s, '', %s, now())"
    )
    for s in seats:
        _sql(
            insert_transfer,
            [
                wallets[s.player_id],
                stacks[s.pk],
                50,
                "buy_in",
                match.pk,
                None,
                s.player_id,
                f"buy_in:seat:{s.pk}",
            ],
        )
        for pot, kind in (("round_pot", "ante_round"), ("game_pot", "ante_game")):
            _sql(
                insert_transfer,
                [
                    stacks[s.pk],
                    pots[pot],
                    2,
                    kind,
                    match.pk,
                    1,
                    None,
                    f"{kind}:m{match.pk}:r1:seat:{s.pk}",
                ],
            )
    _sql(
        insert_transfer,
        [
            pots["round_pot"],
            stacks[seats[0].pk],
            4,
            "round_pot_win",
            match.pk,
            1,
            None,
            f"round_pot_win:m{match.pk}:r1",
        ],
    )
    return {"match": match, "seats": seats, "stacks": stacks, "pots": pots}


def _snapshot() -> tuple[list, list]:
    accounts = _sql("SELECT id, kind, user_id, balance FROM ledger_account ORDER BY id")
    transfers = _sql(
        "SELECT id, debit_id, credit_id, amount, kind, round_number, actor_id, reason,"
        " idempotency_key, debit_balance_after, credit_balance_after, created_at"
        " FROM ledger_transfer ORDER BY id"
    )
    return accounts, transfers


@pytest.mark.django_db(transaction=True)
def test_references_migrate_forward_and_back_on_a_populated_ledger():
    latest = _latest()
    players = [PlayerFactory(), PlayerFactory()]  # each with a signup grant (no match)
    try:
        _migrate(BEFORE)
        table = _old_schema_table(players)
        match, seats = table["match"], table["seats"]
        before = _snapshot()

        _migrate(latest)
        assert _snapshot() == before  # ids, amounts, kinds, keys, balances untouched
        assert ledger_problems() == []
        scope = stakes.match_scope(match.pk)
        for seat in seats:
            stack = Account.objects.get(pk=table["stacks"][seat.pk])
            assert (stack.kind, stack.scope, stack.ref) == ("stack", scope, f"seat:{seat.pk}")
            assert stack.user_id == seat.player_id
            assert stakes.stack_for(seat).pk == stack.pk  # the new code finds it
        pots = stakes.pots_for(match)
        assert (pots.round.pk, pots.game.pk) == (
            table["pots"]["round_pot"],
            table["pots"]["game_pot"],
        )
        assert {(a.scope, a.ref) for a in pots} == {(scope, "")}
        assert set(
            Transfer.objects.filter(kind="signup_grant").values_list("scope", flat=True)
        ) == {""}
        assert Transfer.objects.filter(scope=scope).count() == 2 + 4 + 1
        wallets = Account.objects.filter(kind=AccountKind.WALLET)
        assert set(wallets.values_list("scope", "ref")) == {("", "")}
        # Old keys replay: the same movement asked for again moves nothing.
        again = stakes.buy_in(seat=seats[0], amount=50, actor=players[0])
        assert again.replayed
        assert stakes.table_balances(match)["stacks"] == {
            seats[0].pk: 50 - 4 + 4,
            seats[1].pk: 50 - 4,
        }

        # Backwards on the populated database: the foreign keys come back.
        _migrate(BEFORE)
        assert _snapshot() == before
        rows = _sql(
            "SELECT id, match_id, seat_id FROM ledger_account WHERE match_id IS NOT NULL"
            " ORDER BY id"
        )
        assert rows == sorted(
            [(table["stacks"][s.pk], match.pk, s.pk) for s in seats]
            + [(pk, match.pk, None) for pk in table["pots"].values()]
        )
        assert _sql("SELECT count(*) FROM ledger_transfer WHERE match_id = %s", [match.pk]) == [
            (7,)
        ]
        # The grants and the house's funding name no match.
        assert _sql("SELECT count(*) FROM ledger_transfer WHERE match_id IS NULL") == [
            (len(before[1]) - 7,)
        ]
        # The old guard is back and still refuses identity changes.
        with pytest.raises(Exception, match="identity is immutable"):
            _sql(
                "UPDATE ledger_account SET seat_id = NULL WHERE id = %s",
                [table["stacks"][seats[0].pk]],
            )
    finally:
        _migrate(latest)
    # And forward again.
    assert _snapshot()[0] == before[0]
    assert ledger_problems() == []
    assert Account.objects.filter(scope=stakes.match_scope(match.pk)).count() == 4
    with pytest.raises(Exception, match="identity is immutable"), connection.cursor() as c:
        c.execute(
            "UPDATE ledger_account SET ref = 'seat:0' WHERE id = %s",
            [table["stacks"][seats[0].pk]],
        )
