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
]


def ensure_moderators_group(group_model: Any, permission_model: Any) -> Any:
    """Creates the group with exactly these permissions (models passed in, so migrations
    can use their historical ones)."""
    group, _ = group_model.objects.get_or_create(name=MODERATORS)
    group.permissions.set(
        [
            permission_model.objects.get(content_type__app_label=app_label, codename=codename)
            for app_label, codename in PERMISSIONS
        ]
    )
    return group
