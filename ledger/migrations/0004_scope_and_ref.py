"""First of three steps that make the ledger independent of the games tables.

The match and seat foreign keys become opaque owner references: `Account.scope` and
`Account.ref` (a stack: "match:812" and "seat:4031"; a pot: "match:812"), and
`Transfer.scope` ("match:812"). This step adds the new columns (empty) and drops the
constraints and the index that name the old ones; 0005 copies the references over and
0006 drops the old columns and constrains the new ones. Each step runs in its own
transaction, and every step reverses, on a populated database too.
"""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("ledger", "0003_guard_by_setting_and_no_truncate")]

    operations = [
        migrations.RemoveConstraint(model_name="account", name="ledger_account_kind_shape"),
        migrations.RemoveConstraint(model_name="account", name="ledger_account_one_stack_per_seat"),
        migrations.RemoveConstraint(
            model_name="account", name="ledger_account_one_pot_per_kind_per_match"
        ),
        migrations.RemoveIndex(model_name="transfer", name="ledger_transfer_match_idx"),
        migrations.AddField(
            model_name="account",
            name="scope",
            field=models.CharField(
                blank=True,
                default="",
                db_default="",
                help_text='Opaque owner of a stack or pot, e.g. "match:812"; empty otherwise.',
                max_length=64,
            ),
        ),
        migrations.AddField(
            model_name="account",
            name="ref",
            field=models.CharField(
                blank=True,
                default="",
                db_default="",
                help_text='A stack\'s holder within its scope, e.g. "seat:4031"; empty otherwise.',
                max_length=64,
            ),
        ),
        migrations.AddField(
            model_name="transfer",
            name="scope",
            field=models.CharField(
                blank=True,
                default="",
                db_default="",
                help_text='Opaque reference of what moved it, e.g. "match:812"; empty for none.',
                max_length=64,
            ),
        ),
    ]
