"""Database-level guarantees of the ledger, independent of application code.

* `ledger_transfer_apply` (AFTER INSERT, per row): moves the amount between the two
  accounts, updating them in primary-key order (the same fixed order the service locks
  in), and checks the balances the service wrote into `*_balance_after`. Being an AFTER
  trigger it does not fire for rows skipped by INSERT ... ON CONFLICT DO NOTHING, which
  the service uses for idempotency. A negative result fails the CHECK constraint
  `ledger_account_balance_non_negative`.
* `ledger_transfer_append_only` (BEFORE UPDATE OR DELETE): transfers are immutable.
* `ledger_account_guard` (BEFORE INSERT OR UPDATE): an account opens at zero, its identity
  never changes, and its balance only moves inside the transfer trigger.
"""

from django.db import migrations

# The two functions 0003 replaces; its reverse step puts these back.
APPLY_FUNCTION = r"""
CREATE OR REPLACE FUNCTION ledger_transfer_apply() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    debit_after bigint;
    credit_after bigint;
BEGIN
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
    -- Depth 1 is a direct UPDATE; the transfer trigger's UPDATE runs at depth 2.
    IF NEW.balance IS DISTINCT FROM OLD.balance AND pg_trigger_depth() < 2 THEN
        RAISE EXCEPTION 'ledger account % balance moves only through transfers', OLD.id
            USING ERRCODE = 'restrict_violation';
    END IF;
    RETURN NEW;
END;
$$;
"""

FORWARD = (
    APPLY_FUNCTION
    + r"""
CREATE TRIGGER ledger_transfer_apply
    AFTER INSERT ON ledger_transfer
    FOR EACH ROW EXECUTE FUNCTION ledger_transfer_apply();

CREATE OR REPLACE FUNCTION ledger_transfer_append_only() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'ledger_transfer is append-only: % refused (make a compensating transfer)',
        TG_OP USING ERRCODE = 'restrict_violation';
END;
$$;

CREATE TRIGGER ledger_transfer_append_only
    BEFORE UPDATE OR DELETE ON ledger_transfer
    FOR EACH ROW EXECUTE FUNCTION ledger_transfer_append_only();

"""
    + GUARD_FUNCTION
    + r"""
CREATE TRIGGER ledger_account_guard
    BEFORE INSERT OR UPDATE ON ledger_account
    FOR EACH ROW EXECUTE FUNCTION ledger_account_guard();
"""
)

BACKWARD = r"""
DROP TRIGGER IF EXISTS ledger_account_guard ON ledger_account;
DROP TRIGGER IF EXISTS ledger_transfer_append_only ON ledger_transfer;
DROP TRIGGER IF EXISTS ledger_transfer_apply ON ledger_transfer;
DROP FUNCTION IF EXISTS ledger_account_guard();
DROP FUNCTION IF EXISTS ledger_transfer_append_only();
DROP FUNCTION IF EXISTS ledger_transfer_apply();
"""


class Migration(migrations.Migration):
    dependencies = [("ledger", "0001_initial")]

    operations = [migrations.RunSQL(FORWARD, BACKWARD)]
