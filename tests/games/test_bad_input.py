"""Bad input gets a 4xx problem+json with the right code and changes nothing: not the
match, not its events, not a single balance."""

import json
import random

import pytest

from games.models import Match, MatchEvent
from ledger.models import Account
from tests.conftest import client_for
from tests.factories import ActiveMatchFactory, PlayerFactory
from tests.games.helpers import MATCHES, seated_players
from tests.problems import assert_problem

pytestmark = pytest.mark.django_db

ACTION_FIELDS = (
    "Unknown field; the fields are type, quantity, face, show, target_seat, hand, "
    "direction, hold, expected_version."
)


@pytest.fixture(autouse=True)
def _seeded_dice(monkeypatch):
    monkeypatch.setattr("games.fairness.SECURE_DICE", random.Random(42))


def snapshot(match_id: int) -> tuple:
    match = Match.objects.get(pk=match_id)
    return (
        match.status,
        match.version,
        match.event_seq,
        match.state,
        match.secrets,
        list(MatchEvent.objects.filter(match=match).values_list("seq", "type")),
        sorted(Account.objects.values_list("id", "balance")),
        list(match.seats.values_list("seat", "player_id", "status")),
    )


def assert_rejected(response, status: int, code: str) -> None:
    assert response.status_code == status, response.content
    assert response["Content-Type"] == "application/problem+json"
    assert response.json()["code"] == code


@pytest.fixture
def running():
    players = seated_players(3)
    match_id = ActiveMatchFactory(
        players=[user for user, _ in players], ruleset="milton_bradley", buy_in=30, ante=1
    ).pk
    match = Match.objects.get(pk=match_id)
    turn = match.turn_seat
    seat_of = {s.player_id: s.seat for s in match.seats.all()}
    by_seat = {seat_of[u.pk]: c for u, c in players}
    return match_id, by_seat[turn], by_seat[(turn + 1) % 3]


@pytest.mark.parametrize(
    ("body", "status", "code"),
    [
        ({}, 400, "validation_error"),
        ({"type": "shout"}, 400, "validation_error"),
        ({"type": "bid"}, 400, "validation_error"),
        ({"type": "bid", "quantity": "3", "face": 4}, 400, "validation_error"),
        ({"type": "bid", "quantity": 3.0, "face": 4}, 400, "validation_error"),
        ({"type": "bid", "quantity": True, "face": 4}, 400, "validation_error"),
        ({"type": "bid", "quantity": 3, "face": 7}, 400, "validation_error"),
        ({"type": "bid", "quantity": 0, "face": 4}, 400, "validation_error"),
        ({"type": "bid", "quantity": 16, "face": 4}, 400, "invalid_bid"),
        ({"type": "challenge"}, 400, "illegal_action"),
        ({"type": "accept"}, 400, "illegal_action"),
        ({"type": "bid", "hand": ["A", "A"]}, 400, "validation_error"),
        ({"type": "bid", "quantity": 2, "face": 3, "expected_version": 999}, 409, "stale_version"),
        (
            {"type": "bid", "quantity": 2, "face": 3, "expected_version": "x"},
            400,
            "validation_error",
        ),
    ],
)
def test_bad_actions_change_nothing(running, body, status, code):
    match_id, on_turn, _ = running
    before = snapshot(match_id)
    assert_rejected(
        on_turn.post(f"{MATCHES}{match_id}/actions/", body, format="json"), status, code
    )
    assert snapshot(match_id) == before


@pytest.mark.parametrize(
    ("body", "errors"),
    [
        (
            {
                "type": "bid",
                "quantity": True,
                "face": 7,
                "show": None,
                "hand": ["A", " ", "KKKKKK"],
            },
            [
                ("quantity", "invalid", "A JSON integer is required."),
                ("face", "max_value", "Ensure this value is less than or equal to 6."),
                ("show", "null", "This field may not be null."),
                ("hand.1", "blank", "This field may not be blank."),
                ("hand.2", "max_length", "Ensure this field has no more than 5 characters."),
            ],
        ),
        (
            {"type": "Bid", "hold": [0, 1, 2, 3, 4, 4], "unknown": 1},
            [
                ("type", "invalid_choice", '"Bid" is not a valid choice.'),
                ("hold", "max_length", "Ensure this field has no more than 5 elements."),
                ("unknown", "unknown_field", ACTION_FIELDS),
            ],
        ),
        (
            {"show": "01", "target_seat": -1},
            [
                ("type", "required", "This field is required."),
                ("show", "not_a_list", 'Expected a list of items but got type "str".'),
                ("target_seat", "min_value", "Ensure this value is greater than or equal to 0."),
            ],
        ),
        (
            ["bid"],
            [
                (
                    "non_field_errors",
                    "invalid",
                    "Invalid data. Expected a dictionary, but got list.",
                )
            ],
        ),
        (None, [("non_field_errors", "null", "No data provided")]),
    ],
)
def test_a_malformed_action_is_answered_field_by_field(running, body, errors):
    """The whole problem body: clients show these messages and match on these codes."""
    match_id, on_turn, _ = running
    before = snapshot(match_id)
    response = on_turn.post(
        f"{MATCHES}{match_id}/actions/", json.dumps(body), content_type="application/json"
    )
    assert_rejected(response, 400, "validation_error")
    assert response.json() == {
        "type": "https://liarsdice.example/problems/validation_error",
        "title": "Invalid input",
        "status": 400,
        "detail": "; ".join(f"{field}: {detail}" for field, _, detail in errors),
        "code": "validation_error",
        "errors": [
            {"field": field, "code": code, "detail": detail} for field, code, detail in errors
        ],
    }
    assert snapshot(match_id) == before


def post_action(client, match_id: int, body: dict):
    return client.post(f"{MATCHES}{match_id}/actions/", body, format="json")


def field_errors(response) -> list[tuple[str, str]]:
    return [(e["field"], e["code"]) for e in response.json()["errors"]]


def test_an_unknown_field_is_refused_by_name_not_ignored(running):
    """A misspelt `expected_version` would silently switch the stale-version check off."""
    match_id, on_turn, _ = running
    before = snapshot(match_id)
    response = post_action(
        on_turn, match_id, {"type": "bid", "quantity": 2, "face": 5, "expectedVersion": 3}
    )
    assert_problem(response, 400, "validation_error")
    assert response.json()["errors"] == [
        {"field": "expectedVersion", "code": "unknown_field", "detail": ACTION_FIELDS}
    ]
    assert snapshot(match_id) == before


def test_a_post_that_takes_no_fields_refuses_any_and_changes_nothing(running):
    """Leave, start, resign and a challenge's answers take no body: a field sent to them
    (a misplaced option, a typo) is refused by name rather than ignored."""
    match_id, on_turn, _ = running
    before = snapshot(match_id)
    for path in ("resign/", "leave/", "start/"):
        response = on_turn.post(f"{MATCHES}{match_id}/{path}", {"force": True}, format="json")
        body = assert_problem(response, 400, "validation_error")
        assert [(e["field"], e["code"]) for e in body["errors"]] == [("force", "unknown_field")]
    assert snapshot(match_id) == before
    response = on_turn.post("/api/v1/challenges/1/accept/", {"why": "not"}, format="json")
    assert_problem(response, 400, "validation_error")
    assert on_turn.post(f"{MATCHES}{match_id}/resign/", {}, format="json").status_code == 200


def test_an_unknown_field_is_listed_with_every_other_bad_field(running):
    match_id, on_turn, _ = running
    before = snapshot(match_id)
    response = post_action(
        on_turn, match_id, {"type": "bid", "quantity": "2", "face": 0, "note": "hi", "x": None}
    )
    assert_problem(response, 400, "validation_error")
    assert field_errors(response) == [
        ("quantity", "invalid"),
        ("face", "min_value"),
        ("note", "unknown_field"),
        ("x", "unknown_field"),
    ]
    assert snapshot(match_id) == before


@pytest.mark.parametrize(
    ("body", "errors"),
    [
        ({"type": "bid"}, [("quantity", "required"), ("face", "required")]),
        ({"type": "bid", "quantity": 2}, [("face", "required")]),
        ({"type": "bid", "face": 5, "show": [0]}, [("quantity", "required")]),
    ],
)
def test_every_missing_field_of_an_action_is_listed(running, body, errors):
    match_id, on_turn, _ = running
    before = snapshot(match_id)
    response = post_action(on_turn, match_id, body)
    problem = assert_problem(response, 400, "validation_error")
    assert field_errors(response) == errors
    for field, _ in errors:
        assert field in problem["detail"]
    assert snapshot(match_id) == before


@pytest.fixture
def poker_running():
    players = seated_players(3)
    match_id = ActiveMatchFactory(players=[u for u, _ in players], ruleset="poker_dice").pk
    turn = Match.objects.get(pk=match_id).turn_seat
    seat_of = {s.player_id: s.seat for s in Match.objects.get(pk=match_id).seats.all()}
    return match_id, next(c for u, c in players if seat_of[u.pk] == turn)


def test_a_poker_hand_sent_to_a_common_pool_match_says_what_a_bid_takes_here(running):
    match_id, on_turn, _ = running
    before = snapshot(match_id)
    response = post_action(on_turn, match_id, {"type": "bid", "hand": ["A", "A", "K", None, None]})
    problem = assert_problem(response, 400, "validation_error")
    assert problem["detail"].startswith(
        "This is a common-pool match: a bid takes quantity and face"
    )
    assert field_errors(response) == [
        ("hand", "other_family"),
        ("quantity", "required"),
        ("face", "required"),
    ]
    # A hand beside a bid that would be legal is refused as well, not ignored.
    response = post_action(
        on_turn, match_id, {"type": "bid", "quantity": 2, "face": 3, "hand": ["junk"]}
    )
    assert_problem(response, 400, "validation_error")
    assert field_errors(response) == [("hand", "other_family")]
    assert snapshot(match_id) == before


def test_a_common_pool_bid_sent_to_a_poker_dice_match_says_what_a_bid_takes_here(
    poker_running,
):
    match_id, on_turn = poker_running
    before = snapshot(match_id)
    response = post_action(on_turn, match_id, {"type": "bid", "quantity": 2, "face": 3})
    problem = assert_problem(response, 400, "validation_error")
    assert problem["detail"].startswith("This is a poker-dice match: a bid takes hand")
    assert field_errors(response) == [
        ("face", "other_family"),
        ("quantity", "other_family"),
        ("hand", "required"),
    ]
    response = post_action(on_turn, match_id, {"type": "bid", "direction": "left"})
    assert_problem(response, 400, "validation_error")
    assert field_errors(response) == [("hand", "required")]
    assert snapshot(match_id) == before


def test_a_bid_that_is_not_higher_is_rejected_with_a_clear_message(running):
    match_id, on_turn, next_player = running
    assert (
        on_turn.post(
            f"{MATCHES}{match_id}/actions/",
            {"type": "bid", "quantity": 5, "face": 4},
            format="json",
        ).status_code
        == 201
    )
    before = snapshot(match_id)
    response = next_player.post(
        f"{MATCHES}{match_id}/actions/", {"type": "bid", "quantity": 4, "face": 6}, format="json"
    )
    assert_rejected(response, 400, "bid_not_higher")
    assert "five 4s" in response.json()["detail"]
    assert snapshot(match_id) == before


def test_acting_out_of_turn(running):
    match_id, _, next_player = running
    before = snapshot(match_id)
    response = next_player.post(
        f"{MATCHES}{match_id}/actions/", {"type": "bid", "quantity": 2, "face": 3}, format="json"
    )
    assert_rejected(response, 409, "not_your_turn")
    assert snapshot(match_id) == before


def test_acting_in_someone_elses_match(running):
    match_id, _, _ = running
    stranger = client_for(PlayerFactory())
    before = snapshot(match_id)
    assert_rejected(
        stranger.post(
            f"{MATCHES}{match_id}/actions/",
            {"type": "bid", "quantity": 2, "face": 3},
            format="json",
        ),
        403,
        "not_a_player",
    )
    assert_rejected(
        stranger.post(f"{MATCHES}{match_id}/messages/", {"text": "hi"}, format="json"),
        403,
        "not_a_player",
    )
    assert snapshot(match_id) == before


def test_acting_in_a_missing_match():
    client = client_for(PlayerFactory())
    assert_rejected(
        client.post(f"{MATCHES}987654/actions/", {"type": "challenge"}, format="json"),
        404,
        "not_found",
    )


def test_acting_in_a_finished_match(running):
    match_id, on_turn, _ = running
    Match.objects.filter(pk=match_id).update(status="finished")
    before = snapshot(match_id)
    assert_rejected(
        on_turn.post(
            f"{MATCHES}{match_id}/actions/",
            {"type": "bid", "quantity": 2, "face": 3},
            format="json",
        ),
        409,
        "match_not_active",
    )
    assert snapshot(match_id) == before


def test_joining_a_full_or_started_match_and_a_second_join():
    players = seated_players(2)
    creator = players[0][1]
    response = creator.post(
        MATCHES, {"ruleset": "classic", "max_players": 3, "turn_seconds": 60}, format="json"
    )
    match_id = response.json()["id"]
    before = snapshot(match_id)
    assert_rejected(
        creator.post(f"{MATCHES}{match_id}/join/", {}, format="json"), 409, "already_seated"
    )
    assert snapshot(match_id) == before
    players[1][1].post(f"{MATCHES}{match_id}/join/", {}, format="json")
    third = client_for(PlayerFactory())
    assert third.post(f"{MATCHES}{match_id}/join/", {}, format="json").status_code == 200
    # Full: it started by itself, and a late joiner is told it is full.
    assert Match.objects.get(pk=match_id).status == "active"
    fourth = client_for(PlayerFactory())
    before = snapshot(match_id)
    assert_rejected(fourth.post(f"{MATCHES}{match_id}/join/", {}, format="json"), 409, "match_full")
    assert snapshot(match_id) == before


def test_joining_a_started_match_with_free_seats_is_not_open():
    players = seated_players(2)
    creator = players[0][1]
    match_id = creator.post(
        MATCHES, {"ruleset": "classic", "max_players": 4, "turn_seconds": 60}, format="json"
    ).json()["id"]
    players[1][1].post(f"{MATCHES}{match_id}/join/", {}, format="json")
    assert creator.post(f"{MATCHES}{match_id}/start/", format="json").status_code == 200
    late = client_for(PlayerFactory())
    before = snapshot(match_id)
    assert_rejected(
        late.post(f"{MATCHES}{match_id}/join/", {}, format="json"), 409, "match_not_open"
    )
    assert snapshot(match_id) == before


def test_join_needs_the_chips_and_the_invite_code():
    players = seated_players(1)
    creator = players[0][1]
    match_id = creator.post(
        MATCHES,
        {
            "ruleset": "classic",
            "max_players": 4,
            "turn_seconds": 60,
            "buy_in": 500,
            "private": True,
        },
        format="json",
    ).json()["id"]
    code = creator.get(f"{MATCHES}{match_id}/").json()["invite_code"]
    assert code
    poor = client_for(PlayerFactory(chips=100))
    rich = client_for(PlayerFactory())
    before = snapshot(match_id)
    assert_rejected(rich.post(f"{MATCHES}{match_id}/join/", {}, format="json"), 404, "not_found")
    assert_rejected(rich.get(f"{MATCHES}{match_id}/"), 404, "not_found")
    assert_rejected(
        poor.post(f"{MATCHES}{match_id}/join/", {"invite_code": code}, format="json"),
        409,
        "insufficient_chips",
    )
    assert snapshot(match_id) == before
    joined = rich.post(f"{MATCHES}{match_id}/join/", {"invite_code": code}, format="json")
    assert joined.status_code == 200
    assert joined.json()["invite_code"] is None  # only the creator sees it


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"ruleset": "yahtzee", "max_players": 3, "turn_seconds": 60}, "ruleset"),
        ({"ruleset": "classic", "max_players": 9, "turn_seconds": 60}, "max_players"),
        ({"ruleset": "classic", "max_players": 1, "turn_seconds": 60}, "max_players"),
        ({"ruleset": "classic", "max_players": 3, "turn_seconds": 5}, "turn_seconds"),
        ({"ruleset": "classic", "max_players": 3, "turn_seconds": 8 * 86400}, "turn_seconds"),
        ({"ruleset": "classic", "max_players": 3, "turn_seconds": 60, "buy_in": -1}, "buy_in"),
        ({"ruleset": "classic", "max_players": 3, "turn_seconds": 60, "ante": 5}, "ante"),
        ({"ruleset": "classic", "max_players": "3", "turn_seconds": 60}, "max_players"),
    ],
)
def test_create_rejects_bad_values(body, field):
    client = client_for(PlayerFactory())
    response = client.post(MATCHES, body, format="json")
    assert_rejected(response, 400, "validation_error")
    assert response.json()["errors"][0]["field"] == field
    assert Match.objects.count() == 0


def test_create_rejects_bad_options_naming_the_option():
    client = client_for(PlayerFactory())
    response = client.post(
        MATCHES,
        {
            "ruleset": "milton_bradley",
            "max_players": 3,
            "turn_seconds": 60,
            "options": {"ones_bids": "face"},
        },
        format="json",
    )
    assert response.status_code == 400
    assert "ones_bids" in response.json()["detail"]
    assert Match.objects.count() == 0


def test_only_the_creator_starts_and_not_alone():
    players = seated_players(2)
    creator, other = players[0][1], players[1][1]
    match_id = creator.post(
        MATCHES, {"ruleset": "classic", "max_players": 4, "turn_seconds": 60}, format="json"
    ).json()["id"]
    assert_rejected(
        creator.post(f"{MATCHES}{match_id}/start/", format="json"), 409, "not_enough_players"
    )
    other.post(f"{MATCHES}{match_id}/join/", {}, format="json")
    before = snapshot(match_id)
    assert_rejected(other.post(f"{MATCHES}{match_id}/start/", format="json"), 403, "not_creator")
    assert snapshot(match_id) == before
    assert creator.post(f"{MATCHES}{match_id}/start/", format="json").status_code == 200
    assert Match.objects.get(pk=match_id).status == "active"
    assert_rejected(other.post(f"{MATCHES}{match_id}/leave/", format="json"), 409, "match_not_open")
