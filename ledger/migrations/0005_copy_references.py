"""Copies every match/seat foreign key into the opaque references (see 0004), and back.

Ids, amounts, kinds, keys and balances stay as they are: only the references are
written. The account guard and the append-only trigger refuse these UPDATEs, so they are
switched off for this one transaction (ALTER TABLE is transactional: an error turns them
back on with the rest). Constraints are checked as each statement ends, so no deferred
check is pending when the triggers are switched back on.

Backwards, only "match:<id>" scopes and "seat:<id>" refs have a column to go back to;
the games layer writes no others.
"""

from django.db import migrations

_TRIGGERS_OFF = """
SET CONSTRAINTS ALL IMMEDIATE;
ALTER TABLE ledger_account DISABLE TRIGGER ledger_account_guard;
ALTER TABLE ledger_transfer DISABLE TRIGGER ledger_transfer_append_only;
"""

_TRIGGERS_ON = """
ALTER TABLE ledger_transfer ENABLE TRIGGER ledger_transfer_append_only;
ALTER TABLE ledger_account ENABLE TRIGGER ledger_account_guard;
"""

FORWARD = (
    _TRIGGERS_OFF
    + """
UPDATE ledger_account
    SET scope = 'match:' || match_id,
        ref = CASE WHEN seat_id IS NULL THEN '' ELSE 'seat:' || seat_id END
    WHERE match_id IS NOT NULL;
UPDATE ledger_transfer SET scope = 'match:' || match_id WHERE match_id IS NOT NULL;
"""
    + _TRIGGERS_ON
)

BACKWARD = (
    _TRIGGERS_OFF
    + r"""
UPDATE ledger_account
    SET match_id = substr(scope, 7)::bigint,
        seat_id = CASE WHEN ref ~ '^seat:[0-9]+$' THEN substr(ref, 6)::bigint END
    WHERE scope ~ '^match:[0-9]+$';
UPDATE ledger_transfer SET match_id = substr(scope, 7)::bigint
    WHERE scope ~ '^match:[0-9]+$';
"""
    + _TRIGGERS_ON
)


class Migration(migrations.Migration):
    dependencies = [("ledger", "0004_scope_and_ref")]

    operations = [migrations.RunSQL(FORWARD, BACKWARD)]
