"""Last step of 0004-0006: the ledger no longer points at games tables.

Drops the match and seat foreign keys (their values live on in `scope` and `ref`),
constrains the references in their place (the shape of each kind of account, one stack
per ref and one pot of each kind per scope), indexes them, and makes `scope` and `ref`
part of an account's immutable identity in `ledger_account_guard` (the rest of the
function is 0003's). Backwards, the old columns come back empty for 0005 to fill, and
0003's guard returns.
"""

from importlib import import_module

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

_guards_0003 = import_module("ledger.migrations.0003_guard_by_setting_and_no_truncate")

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
       OR NEW.scope IS DISTINCT FROM OLD.scope OR NEW.ref IS DISTINCT FROM OLD.ref
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

_POTS = ("round_pot", "game_pot")


class Migration(migrations.Migration):
    dependencies = [
        ("ledger", "0005_copy_references"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.RunSQL(GUARD_FUNCTION, _guards_0003.GUARD_FUNCTION),
        migrations.RemoveField(model_name="account", name="match"),
        migrations.RemoveField(model_name="account", name="seat"),
        migrations.RemoveField(model_name="transfer", name="match"),
        migrations.AlterField(
            model_name="account",
            name="user",
            field=models.ForeignKey(
                blank=True,
                help_text="Owner of a wallet, or the user holding a stack.",
                null=True,
                on_delete=django.db.models.deletion.PROTECT,
                related_name="ledger_accounts",
                to=settings.AUTH_USER_MODEL,
            ),
        ),
        migrations.AddConstraint(
            model_name="account",
            constraint=models.CheckConstraint(
                condition=models.Q(
                    models.Q(
                        ("kind", "wallet"), ("ref", ""), ("scope", ""), ("user__isnull", False)
                    ),
                    models.Q(
                        ("kind", "stack"),
                        ("user__isnull", False),
                        models.Q(("scope", ""), _negated=True),
                        models.Q(("ref", ""), _negated=True),
                    ),
                    models.Q(
                        ("kind__in", _POTS),
                        ("ref", ""),
                        ("user__isnull", True),
                        models.Q(("scope", ""), _negated=True),
                    ),
                    models.Q(
                        ("kind__in", ("house", "issuer")),
                        ("ref", ""),
                        ("scope", ""),
                        ("user__isnull", True),
                    ),
                    _connector="OR",
                ),
                name="ledger_account_kind_shape",
            ),
        ),
        migrations.AddConstraint(
            model_name="account",
            constraint=models.UniqueConstraint(
                condition=models.Q(kind="stack"),
                fields=("scope", "ref"),
                name="ledger_account_one_stack_per_ref",
            ),
        ),
        migrations.AddConstraint(
            model_name="account",
            constraint=models.UniqueConstraint(
                condition=models.Q(kind__in=_POTS),
                fields=("scope", "kind"),
                name="ledger_account_one_pot_per_kind_per_scope",
            ),
        ),
        migrations.AddIndex(
            model_name="account",
            index=models.Index(
                condition=models.Q(scope="", _negated=True),
                fields=["scope", "kind"],
                name="ledger_account_scope_idx",
            ),
        ),
        migrations.AddIndex(
            model_name="transfer",
            index=models.Index(
                condition=models.Q(scope="", _negated=True),
                fields=["scope", "round_number"],
                name="ledger_transfer_scope_idx",
            ),
        ),
    ]
