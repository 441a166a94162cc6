"""Players report each other; moderators see the reports in the admin and resolve them,
each resolution audited."""

import pytest
from django.urls import reverse

from moderation.models import AuditAction, AuditRecord, PlayerReport
from tests.conftest import client_for
from tests.factories import ActiveMatchFactory, PlayerFactory, people_at
from tests.moderation.conftest import run_action
from tests.problems import assert_problem

pytestmark = pytest.mark.django_db


def reports_url(username: str) -> str:
    return reverse("player-reports", args=[username])


def test_a_player_reports_a_tablemate_and_a_moderator_resolves_it(mod_client, moderator):
    match = ActiveMatchFactory(ruleset="milton_bradley")
    reporter, reported = people_at(match)
    response = client_for(reporter).post(
        reports_url(reported.username.upper()),  # usernames match without case
        {"reason": "abuse", "detail": "insults in chat", "match_id": match.pk},
        format="json",
    )
    assert response.status_code == 201, response.content
    body = response.json()
    assert body["reported"] == {"id": reported.pk, "username": reported.username, "is_bot": False}
    assert (body["reason"], body["match_id"], body["status"]) == ("abuse", match.pk, "open")
    assert body["created_at"].endswith("Z")

    listing = mod_client.get(reverse("admin:moderation_playerreport_changelist"))
    assert listing.status_code == 200 and "insults in chat" not in listing.content.decode()
    assert [r.pk for r in listing.context["cl"].result_list] == [body["id"]]

    response = run_action(mod_client, "report", "resolve_reports", [body["id"]], reason="warned")
    assert response.status_code == 302
    report = PlayerReport.objects.get(pk=body["id"])
    assert report.status == "resolved" and report.resolved_by == moderator
    record = AuditRecord.objects.get(action=AuditAction.REPORT_RESOLVE)
    assert (record.target_user, record.match, record.reason) == (reported, match, "warned")
    # Resolved, the same player may be reported again for the same match.
    again = client_for(reporter).post(
        reports_url(reported.username), {"reason": "abuse", "match_id": match.pk}, format="json"
    )
    assert again.status_code == 201


def test_a_second_open_report_of_the_same_thing_is_refused():
    reporter, reported = PlayerFactory(), PlayerFactory()
    api = client_for(reporter)
    assert (
        api.post(reports_url(reported.username), {"reason": "name"}, format="json").status_code
        == 201
    )
    refused = api.post(reports_url(reported.username), {"reason": "other"}, format="json")
    assert_problem(refused, 409, "already_reported")
    assert PlayerReport.objects.count() == 1


@pytest.mark.parametrize(
    ("whom", "body", "status", "code"),
    [
        ("self", {"reason": "other"}, 400, "cannot_report_oneself"),
        ("nobody", {"reason": "other"}, 404, "not_found"),
        ("other", {"reason": "bribery"}, 400, "validation_error"),
        ("other", {"reason": "other", "detail": "x" * 1001}, 400, "validation_error"),
        ("other", {"reason": "other", "match_id": "twelve"}, 400, "validation_error"),
        ("other", {"reason": "other", "colour": "red"}, 400, "validation_error"),
        # A match they did not both sit at: refused alike whether or not it exists.
        ("other", {"reason": "other", "match_id": "elsewhere"}, 400, "not_at_that_match"),
        ("other", {"reason": "other", "match_id": 10**9}, 400, "not_at_that_match"),
    ],
)
def test_bad_reports_are_refused_and_change_nothing(whom, body, status, code):
    reporter, other = PlayerFactory(), PlayerFactory()
    if body.get("match_id") == "elsewhere":
        body = {**body, "match_id": ActiveMatchFactory(ruleset="milton_bradley").pk}
    username = {"self": reporter.username, "nobody": "no-such-player", "other": other.username}
    response = client_for(reporter).post(reports_url(username[whom]), body, format="json")
    assert_problem(response, status, code)
    assert not PlayerReport.objects.exists()


def test_reports_need_a_login():
    reported = PlayerFactory()
    from rest_framework.test import APIClient

    response = APIClient().post(reports_url(reported.username), {"reason": "other"}, format="json")
    assert response.status_code == 401
    assert not PlayerReport.objects.exists()
