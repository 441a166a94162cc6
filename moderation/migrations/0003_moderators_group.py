"""The `moderators` group: everything in the moderation admin, nothing that edits ledger
history, settings, groups or staff. `moderation.view_hidden_dice` is not in it: a
superuser grants it to the few who need it."""

from django.db import migrations

from moderation.permissions import MODERATORS, refresh_moderators_group


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

    operations = [migrations.RunPython(refresh_moderators_group, remove_group)]
