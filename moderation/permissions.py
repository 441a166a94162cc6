"""The `moderators` group: everything in the moderation admin, nothing that edits ledger
history, settings, groups or staff. `moderation.view_hidden_dice` is not in it: a
superuser grants it to the few who need it."""

from typing import Any

MODERATORS = "moderators"
PERMISSIONS = [
    ("accounts", "view_user"),
    ("accounts", "view_apitoken"),
    ("games", "view_match"),
    ("games", "view_seat"),
    ("games", "view_matchevent"),
    ("games", "view_roundrecord"),
    ("games", "view_chatmessage"),
    ("ledger", "view_account"),
    ("ledger", "view_transfer"),
    # The "Adjust chips" form records a new compensating transfer; history stays read-only.
    ("ledger", "add_transfer"),
    ("moderation", "view_auditrecord"),
    ("moderation", "view_suspicionreport"),
    ("moderation", "abort_match"),
    ("moderation", "force_timeout"),
    ("moderation", "ban_player"),
    ("moderation", "mute_player"),
    ("moderation", "hide_message"),
    ("moderation", "view_playerreport"),
    ("moderation", "resolve_report"),
    ("tournaments", "view_tournament"),
    ("tournaments", "view_entry"),
    ("tournaments", "view_stage"),
    ("moderation", "cancel_tournament"),
]


def ensure_moderators_group(group_model: Any, permission_model: Any) -> Any:
    """Creates the group with exactly these permissions (models passed in, so migrations
    can use their historical ones). A migration sees only the permissions of the models
    that exist at its point: the migration that adds a model runs this again."""
    group, _ = group_model.objects.get_or_create(name=MODERATORS)
    group.permissions.set(
        [
            permission
            for app_label, codename in PERMISSIONS
            for permission in permission_model.objects.filter(
                content_type__app_label=app_label, codename=codename
            )
        ]
    )
    return group


def refresh_moderators_group(apps: Any, schema_editor: Any) -> None:
    """A migration's step: the group as PERMISSIONS lists it, with the permissions of the
    models migrated so far (Django creates permissions only after all migrations)."""
    from django.contrib.auth.management import create_permissions

    for app_config in apps.get_app_configs():
        app_config.models_module = True
        create_permissions(app_config, apps=apps, verbosity=0)
        app_config.models_module = None
    ensure_moderators_group(apps.get_model("auth", "Group"), apps.get_model("auth", "Permission"))
