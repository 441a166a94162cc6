"""`core` names no database object of an app above it: its IdempotencyRecord has a core
table and its claim a core SQL function (core migration 0003 renamed both from their
`games` names, rows kept, and reverses)."""

import re
from pathlib import Path

import pytest
from django.apps import apps
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from core.models import IdempotencyRecord
from tests.factories import UserFactory

ROOT = Path(__file__).resolve().parent.parent
ABOVE_CORE = ("ledger", "accounts", "games", "moderation")
BEFORE = [("core", "0002_heartbeat")]


def _sql(sql: str, params=None) -> list[tuple]:
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchall() if cursor.description else []


def _names_of_objects_above_core() -> set[str]:
    """The tables of the apps above core, and every SQL function or trigger of the
    database that is not core's own."""
    tables = {
        model._meta.db_table
        for app in ABOVE_CORE
        for model in apps.get_app_config(app).get_models()
    }
    functions = _sql(
        "SELECT proname FROM pg_proc WHERE pronamespace = 'public'::regnamespace"
        " AND proname NOT LIKE 'core\\_%'"
    )
    triggers = _sql("SELECT tgname FROM pg_trigger WHERE NOT tgisinternal")
    return tables | {name for (name,) in functions + triggers}


@pytest.mark.django_db
def test_no_core_module_names_a_table_or_sql_object_of_an_app_above_it():
    names = _names_of_objects_above_core()
    assert {"games_match", "ledger_account"} <= names  # the look-up sees them
    named = re.compile(rf"\b(?:{'|'.join(map(re.escape, sorted(names)))})\b")
    by_prefix = re.compile(rf"\b(?:{'|'.join(ABOVE_CORE)})_\w+")
    # Migrations are history: core 0003 names what it renames.
    sources = [p for p in (ROOT / "core").rglob("*.py") if "migrations" not in p.parts]
    offences = []
    for path in sources:
        text = path.read_text()
        offences += [
            f"{path.relative_to(ROOT)}: {found}"
            for found in named.findall(text) + by_prefix.findall(text)
        ]
    assert offences == []


@pytest.mark.django_db
def test_core_owns_the_idempotency_table_and_the_claim_function():
    assert IdempotencyRecord._meta.db_table == "core_idempotencyrecord"
    assert _sql("SELECT to_regclass('games_idempotencyrecord')") == [(None,)]
    functions = _sql("SELECT proname FROM pg_proc WHERE proname LIKE '%claim_idempotency_key'")
    assert functions == [("core_claim_idempotency_key",)]


def _records(table: str) -> list[tuple]:
    return _sql(
        f"SELECT id, user_id, key, request_hash, response_status, response_body::text,"
        f" created_at FROM {table} ORDER BY id"
    )


def _claim(function: str, user_id: int, key: str) -> int | None:
    return _sql(f"SELECT {function}(%s, %s, %s)", [user_id, key, "f" * 64])[0][0]


@pytest.mark.django_db(transaction=True)
def test_the_idempotency_records_move_to_core_and_back_with_their_rows():
    executor = MigrationExecutor(connection)
    latest = [key for key in executor.loader.graph.leaf_nodes() if key[0] == "core"]
    user = UserFactory()
    try:
        MigrationExecutor(connection).migrate(BEFORE)
        # The old schema, as an existing database has it: games' table and claim.
        claimed = _claim("games_claim_idempotency_key", user.pk, "old-1")
        assert claimed is not None
        _sql(
            "UPDATE games_idempotencyrecord SET response_status = 201,"
            " response_body = '{\"id\": 7}' WHERE id = %s",
            [claimed],
        )
        assert _claim("games_claim_idempotency_key", user.pk, "old-2") is not None
        before = _records("games_idempotencyrecord")

        MigrationExecutor(connection).migrate(latest)
        assert _records("core_idempotencyrecord") == before
        assert _sql("SELECT to_regclass('games_idempotencyrecord')") == [(None,)]
        # The key stays unique under its new constraint, and core's claim sees old keys.
        assert _claim("core_claim_idempotency_key", user.pk, "old-1") is None
        assert _claim("core_claim_idempotency_key", user.pk, "new-1") is not None
        replayed = IdempotencyRecord.objects.get(user=user, key="old-1")
        assert (replayed.response_status, replayed.response_body) == (201, {"id": 7})
        with_new = _records("core_idempotencyrecord")

        # Backwards: games' names and claim come back, rows kept.
        MigrationExecutor(connection).migrate(BEFORE)
        assert _records("games_idempotencyrecord") == with_new
        assert _claim("games_claim_idempotency_key", user.pk, "new-1") is None
        assert _sql("SELECT to_regprocedure('core_claim_idempotency_key(bigint,text,text)')") == [
            (None,)
        ]
    finally:
        MigrationExecutor(connection).migrate(latest)
    assert _records("core_idempotencyrecord") == with_new
    constraints = _sql(
        "SELECT conname FROM pg_constraint WHERE conrelid = 'core_idempotencyrecord'::regclass"
        " AND contype = 'u'"
    )
    assert constraints == [("core_idempotency_unique",)]
