"""Moderators and helpers for admin action POSTs."""

import pytest
from django.contrib.auth.models import Group, Permission
from django.urls import reverse

from ledger.selectors import ledger_problems
from moderation.permissions import ensure_moderators_group
from tests.factories import UserFactory

CHANGELIST = {
    "match": "admin:games_match_changelist",
    "message": "admin:games_chatmessage_changelist",
    "user": "admin:accounts_user_changelist",
    "report": "admin:moderation_playerreport_changelist",
}


def make_moderator(**kwargs):
    user = UserFactory(is_staff=True, **kwargs)
    # Transactional tests flush the data the migration created; put the group back.
    user.groups.add(ensure_moderators_group(Group, Permission))
    return user


def grant(user, codename: str, app_label: str = "moderation"):
    user.user_permissions.add(
        Permission.objects.get(content_type__app_label=app_label, codename=codename)
    )
    # The permission cache lives on the instance: fetch a fresh one.
    return type(user).objects.get(pk=user.pk)


@pytest.fixture
def moderator(db):
    return make_moderator(username="mod")


@pytest.fixture
def mod_client(client, moderator):
    client.force_login(moderator)
    client.user = moderator
    return client


def run_action(client, kind: str, action: str, pks, **form):
    """The two POSTs of an admin action with an intermediate form: the changelist POST
    (which shows the form), then the form's POST with `apply`."""
    url = reverse(CHANGELIST[kind])
    data = {"action": action, "_selected_action": [str(pk) for pk in pks]}
    first = client.post(url, data)
    assert first.status_code == 200, first.content[:500]
    assert b'name="reason"' in first.content
    return client.post(url, {**data, "apply": "1", **form})


def assert_ledger_clean():
    assert ledger_problems() == []
