"""The `moderators` group: everything in the moderation admin, nothing that edits ledger
history, settings, groups or staff. `moderation.view_hidden_dice` is not in it: a
superuser grants it to the few who need it."""

from django.contrib.auth.management import create_permissions
from django.db import migrations

from moderation.permissions import MODERATORS, ensure_moderators_group


def create_group(apps, schema_editor):
    # Permissions are normally created after all migrations; this one needs them now.
    for app_config in apps.get_app_configs():
        app_config.models_module = True
        create_permissions(app_config, apps=apps, verbosity=0)
        app_config.models_module = None
    ensure_moderators_group(apps.get_model("auth", "Group"), apps.get_model("auth", "Permission"))


def remove_group(apps, schema_editor):
    apps.get_model("auth", "Group").objects.filter(name=MODERATORS).delete()


class Migration(migrations.Migration):
    dependencies = [
        ("moderation", "0002_triggers"),
        ("accounts", "0003_user_chat_muted_until"),
        ("games", "0003_match_max_timeouts_match_on_timeout_and_more"),
        ("ledger", "0002_triggers"),
        ("auth", "0012_alter_user_first_name_max_length"),
        ("contenttypes", "0002_remove_content_type_name"),
    ]

    operations = [migrations.RunPython(create_group, remove_group)]
