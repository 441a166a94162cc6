"""Tightens the ledger's database guards (see 0002_triggers).

* `ledger_account_guard` let any UPDATE at trigger depth >= 2 move a balance, so a
  trigger on another table could edit balances. Now a balance moves only from inside a
  trigger while the transaction-local setting `ledger.applying` is on, which
  `ledger_transfer_apply` does around its own UPDATEs and undoes before returning (an
  error rolls the setting back with the rest).
* These guards stop mistakes in application code, other triggers and admin tools; like
  any trigger they do not stop a database owner who disables them on purpose.
* `ledger_transfer_no_truncate` (BEFORE TRUNCATE, per statement) refuses TRUNCATE of
  ledger_transfer, also when it is reached through TRUNCATE ... CASCADE, as TRUNCATE fires
  no row-level DELETE trigger. A session that sets `ledger.allow_truncate` to `on` may
  truncate: only the test settings do, so that test teardown can flush the database.
"""

from importlib import import_module

from django.db import migrations

_triggers_0002 = import_module("ledger.migrations.0002_triggers")

APPLY_FUNCTION = r"""
CREATE OR REPLACE FUNCTION ledger_transfer_apply() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    debit_after bigint;
    credit_after bigint;
BEGIN
    PERFORM set_config('ledger.applying', 'on', true);
    IF NEW.debit_id < NEW.credit_id THEN
        UPDATE ledger_account SET balance = balance - NEW.amount
            WHERE id = NEW.debit_id RETURNING balance INTO debit_after;
        UPDATE ledger_account SET balance = balance + NEW.amount
            WHERE id = NEW.credit_id RETURNING balance INTO credit_after;
    ELSE
        UPDATE ledger_account SET balance = balance + NEW.amount
            WHERE id = NEW.credit_id RETURNING balance INTO credit_after;
        UPDATE ledger_account SET balance = balance - NEW.amount
            WHERE id = NEW.debit_id RETURNING balance INTO debit_after;
    END IF;
    PERFORM set_config('ledger.applying', 'off', true);
    IF (NEW.debit_balance_after IS NOT NULL AND NEW.debit_balance_after <> debit_after)
       OR (NEW.credit_balance_after IS NOT NULL AND NEW.credit_balance_after <> credit_after)
    THEN
        RAISE EXCEPTION 'ledger transfer %: stated balances (%, %) differ from actual (%, %)',
            NEW.idempotency_key, NEW.debit_balance_after, NEW.credit_balance_after,
            debit_after, credit_after
            USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    RETURN NULL;
END;
$$;
"""

# The guard 0006 replaces; its reverse step puts this one back.
GUARD_FUNCTION = r"""
CREATE OR REPLACE FUNCTION ledger_account_guard() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        IF NEW.balance <> 0 THEN
            RAISE EXCEPTION 'ledger account must open with a zero balance'
                USING ERRCODE = 'restrict_violation';
        END IF;
        RETURN NEW;
    END IF;
    IF NEW.kind IS DISTINCT FROM OLD.kind OR NEW.user_id IS DISTINCT FROM OLD.user_id
       OR NEW.match_id IS DISTINCT FROM OLD.match_id OR NEW.seat_id IS DISTINCT FROM OLD.seat_id
    THEN
        RAISE EXCEPTION 'ledger account % identity is immutable', OLD.id
            USING ERRCODE = 'restrict_violation';
    END IF;
    -- Only ledger_transfer_apply turns the setting on, around its own UPDATEs, which
    -- run inside that trigger: both must hold.
    IF NEW.balance IS DISTINCT FROM OLD.balance
       AND (current_setting('ledger.applying', true) IS DISTINCT FROM 'on'
            OR pg_trigger_depth() < 2)
    THEN
        RAISE EXCEPTION 'ledger account % balance moves only through transfers', OLD.id
            USING ERRCODE = 'restrict_violation';
    END IF;
    RETURN NEW;
END;
$$;
"""

FORWARD = (
    APPLY_FUNCTION
    + GUARD_FUNCTION
    + r"""
CREATE OR REPLACE FUNCTION ledger_transfer_no_truncate() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF current_setting('ledger.allow_truncate', true) = 'on' THEN
        RETURN NULL;
    END IF;
    RAISE EXCEPTION 'ledger_transfer is append-only: TRUNCATE refused'
        USING ERRCODE = 'restrict_violation';
END;
$$;

CREATE TRIGGER ledger_transfer_no_truncate
    BEFORE TRUNCATE ON ledger_transfer
    FOR EACH STATEMENT EXECUTE FUNCTION ledger_transfer_no_truncate();
"""
)

# Puts back the functions of 0002_triggers (its triggers stay: they call them by name).
BACKWARD = (
    """
DROP TRIGGER IF EXISTS ledger_transfer_no_truncate ON ledger_transfer;
DROP FUNCTION IF EXISTS ledger_transfer_no_truncate();
"""
    + _triggers_0002.APPLY_FUNCTION
    + _triggers_0002.GUARD_FUNCTION
)


class Migration(migrations.Migration):
    dependencies = [("ledger", "0002_triggers")]

    operations = [migrations.RunSQL(FORWARD, BACKWARD)]
