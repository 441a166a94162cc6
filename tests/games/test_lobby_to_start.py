"""From lobby to round 1 and past the end, through the API: who opens (RULES.md 1.4),
a player who spent their buy-in after joining, an aborted match's round, forfeits."""

from datetime import timedelta

import pytest
from django.utils import timezone

from games import services
from games.models import Match, MatchEvent
from ledger.selectors import wallet_balance
from moderation.services import match_abort
from tests.conftest import client_for
from tests.factories import ActiveMatchFactory, fund_house, people_at
from tests.games.helpers import MATCHES, seated_players
from tests.moderation.conftest import make_moderator

pytestmark = pytest.mark.django_db

CREATOR_OPENS = {"ruleset": "classic", "options": {"first_opener": "creator"}, "turn_seconds": 60}


def _create(client, **body) -> dict:
    response = client.post(MATCHES, {"turn_seconds": 60, **body}, format="json")
    assert response.status_code == 201, response.content
    return response.json()


def _post(client, match_id: int, verb: str):
    return client.post(f"{MATCHES}{match_id}/{verb}/", {}, format="json")


def _get(client, match_id: int) -> dict:
    return client.get(f"{MATCHES}{match_id}/").json()


# --- who opens round 1 ---------------------------------------------------------------


def test_the_named_seat_opens_round_one():
    players = seated_players(3)
    created = _create(players[0][1], max_players=3, opener_seat=2, **CREATOR_OPENS)
    assert created["opener_seat"] == 2
    for _, client in players[1:]:
        assert _post(client, created["id"], "join").status_code == 200
    match = _get(players[0][1], created["id"])
    assert match["status"] == "active"
    assert match["round"]["opener_seat"] == 2
    assert match["round"]["turn_seat"] == 2
    assert match["opener_seat"] == 2


def test_the_named_seat_follows_its_player_when_the_seats_close_up():
    (a, ca), (_, cb), (c, cc) = seated_players(3)
    created = _create(ca, max_players=4, opener_seat=2, **CREATOR_OPENS)
    assert _post(cb, created["id"], "join").status_code == 200
    assert _post(cc, created["id"], "join").status_code == 200  # lobby seat 2
    assert _post(cb, created["id"], "leave").status_code == 200
    match = _post(ca, created["id"], "start").json()
    seat_of = {s["player"]["id"]: s["seat"] for s in match["seats"]}
    assert seat_of == {a.pk: 0, c.pk: 1}
    assert match["round"]["opener_seat"] == seat_of[c.pk]
    assert match["opener_seat"] == seat_of[c.pk]  # renumbered with the seats


def test_an_empty_named_seat_falls_back_to_the_creators_seat():
    (_, ca), (_, cb) = seated_players(2)
    created = _create(ca, max_players=4, opener_seat=3, **CREATOR_OPENS)
    assert _post(cb, created["id"], "join").status_code == 200
    match = _post(ca, created["id"], "start").json()
    assert match["status"] == "active"
    assert match["round"]["opener_seat"] == 0 and match["opener_seat"] is None


def test_the_creators_actual_seat_opens_after_the_creator_changed():
    (_, ca), (b, cb), (c, cc) = seated_players(3)
    created = _create(ca, max_players=3, **CREATOR_OPENS)
    assert _post(cb, created["id"], "join").status_code == 200  # seat 1
    assert _post(ca, created["id"], "leave").status_code == 200  # b now creates
    assert _post(cc, created["id"], "join").status_code == 200  # seat 0
    match = _post(cb, created["id"], "start").json()
    assert match["created_by"]["id"] == b.pk
    seat_of = {s["player"]["id"]: s["seat"] for s in match["seats"]}
    assert seat_of == {c.pk: 0, b.pk: 1}
    assert match["round"]["opener_seat"] == 1


@pytest.mark.parametrize(
    "body",
    [
        {"ruleset": "classic", "max_players": 3, "opener_seat": 1},  # first_opener random
        {"ruleset": "milton_bradley", "options": {"first_opener": "roll_off"}, "opener_seat": 0},
        {"ruleset": "poker_dice", "max_players": 3, "opener_seat": 1},
        {**CREATOR_OPENS, "max_players": 3, "opener_seat": 3},
        {**CREATOR_OPENS, "max_players": 3, "opener_seat": -1},
        {**CREATOR_OPENS, "max_players": 3, "opener_seat": 8},
        {**CREATOR_OPENS, "max_players": 3, "opener_seat": "1"},
        {**CREATOR_OPENS, "max_players": 3, "opener_seat": True},
    ],
)
def test_an_invalid_opener_seat_is_refused_and_creates_nothing(body):
    ((_, client),) = seated_players(1)
    response = client.post(MATCHES, {"max_players": 3, "turn_seconds": 60, **body}, format="json")
    assert response.status_code == 400, response.content
    assert response["Content-Type"].startswith("application/problem+json")
    problem = response.json()
    assert problem["code"] == "validation_error"
    assert [e["field"] for e in problem["errors"]] == ["opener_seat"]
    assert not Match.objects.exists()


# --- a player who spent their chips after joining ------------------------------------


def _spend_all_but(user, client, keep: int) -> None:
    """`user` puts everything but `keep` chips into another table that starts at once."""
    ((_, other),) = seated_players(1)
    buy_in = wallet_balance(user=user) - keep
    created = _create(client, ruleset="classic", max_players=2, buy_in=buy_in)
    assert _post(other, created["id"], "join").status_code == 200
    assert wallet_balance(user=user) == keep


def _values_but_ids(data: object, key: str = "") -> list:
    """Every scalar in a JSON document, but the values of `id` and `*_id` keys."""
    if isinstance(data, dict):
        return [v for k, item in data.items() for v in _values_but_ids(item, k)]
    if isinstance(data, list):
        return [v for item in data for v in _values_but_ids(item, key)]
    return [] if key == "id" or key.endswith("_id") else [data]


def test_a_full_table_unseats_a_player_who_cannot_cover_the_buy_in_any_more():
    (a, ca), (b, cb), (c, cc), (d, cd) = seated_players(4)
    match_id = _create(ca, ruleset="classic", max_players=3, buy_in=100)["id"]
    assert _post(cb, match_id, "join").status_code == 200
    _spend_all_but(b, cb, keep=37)
    joined = _post(cc, match_id, "join")
    assert joined.status_code == 200, joined.content
    match = joined.json()
    assert match["status"] == "open"
    assert {s["player"]["id"] for s in match["seats"]} == {a.pk, c.pk}
    left = MatchEvent.objects.get(match_id=match_id, type="player_left").data
    assert left["player"]["id"] == b.pk and left["reason"] == "insufficient_chips"
    # Their balance is nobody else's business (ids may be 37 by chance: not those).
    shown = _values_but_ids(match) + _values_but_ids(left)
    assert 37 not in shown and not any("37 chips" in str(v) for v in shown)
    assert wallet_balance(user=b) == 37  # nothing taken from them
    # The freed seat fills and the table starts.
    started = _post(cd, match_id, "join").json()
    assert started["status"] == "active"
    assert {s["player"]["id"] for s in started["seats"]} == {a.pk, c.pk, d.pk}


def test_the_creators_start_goes_ahead_without_a_player_who_cannot_cover_it():
    (a, ca), (b, cb), (c, cc) = seated_players(3)
    match_id = _create(ca, ruleset="classic", max_players=4, buy_in=100)["id"]
    assert _post(cb, match_id, "join").status_code == 200
    assert _post(cc, match_id, "join").status_code == 200
    _spend_all_but(b, cb, keep=99)
    started = _post(ca, match_id, "start")
    assert started.status_code == 200, started.content
    match = started.json()
    assert match["status"] == "active"
    assert [s["player"]["id"] for s in match["seats"]] == [a.pk, c.pk]
    assert wallet_balance(user=b) == 99


def test_a_start_left_with_one_player_who_can_pay_is_refused_and_changes_nothing():
    (_, ca), (b, cb) = seated_players(2)
    match_id = _create(ca, ruleset="classic", max_players=3, buy_in=100)["id"]
    assert _post(cb, match_id, "join").status_code == 200
    _spend_all_but(b, cb, keep=5)
    before = Match.objects.get(pk=match_id)
    response = _post(ca, match_id, "start")
    assert response.status_code == 409
    problem = response.json()
    assert problem["code"] == "not_enough_players"
    assert "5" not in problem["detail"]
    after = Match.objects.get(pk=match_id)
    assert (after.status, after.version, after.event_seq) == (
        "open",
        before.version,
        before.event_seq,
    )
    assert after.seats.filter(player=b).exists()


def test_a_bot_seated_at_two_tables_is_topped_up_for_the_second():
    (_, ca), (_, cb) = seated_players(2)
    # One bot account: funded to the buy-in at each seating, then the first start spends it.
    table = {"ruleset": "classic", "max_players": 3, "buy_in": 400}
    fund_house(800)  # both tables' stakes, from the house's bankroll
    first = _create(ca, **table, bots=[{"strategy": "hard"}])
    second = _create(cb, **table, bots=[{"strategy": "hard"}])
    (_, c1), (_, c2) = seated_players(2)
    assert _post(c1, first["id"], "join").json()["status"] == "active"
    joined = _post(c2, second["id"], "join")
    assert joined.status_code == 200, joined.content
    assert joined.json()["status"] == "active"


# --- after the end -------------------------------------------------------------------


def test_an_aborted_match_shows_no_live_round():
    match = ActiveMatchFactory(ruleset="milton_bradley", players=3, buy_in=50, ante=1)
    players = people_at(match)
    client = client_for(players[0])
    live = _get(client, match.pk)
    assert live["round"] is not None
    number = live["round"]["number"]
    match_abort(match_id=match.pk, moderator=make_moderator(), reason="test abort")
    for c in (client, client_for(players[1])):
        shown = _get(c, match.pk)
        assert shown["status"] == "aborted"
        assert shown["round"] is None
        assert shown["legal_actions"] == []
        # The round in play is shown as ended, every die revealed, like a finished one.
        assert shown["last_round"]["number"] == number
        assert shown["last_round"]["aborted"] is True
        assert set(shown["last_round"]["dice"]) == {"0", "1", "2"}
        rounds = c.get(f"{MATCHES}{match.pk}/rounds/").json()
        assert rounds["current"] is None
        assert rounds["rounds"][-1]["number"] == number


def test_a_forfeiting_player_is_shown_as_left():
    match = ActiveMatchFactory(ruleset="classic", players=3)
    players = people_at(match)
    Match.objects.filter(pk=match.pk).update(on_timeout=Match.TimeoutPolicy.FORFEIT)
    seat = match.turn_seat
    Match.objects.filter(pk=match.pk).update(turn_deadline=timezone.now() - timedelta(seconds=1))
    assert services.turn_timeout(match_id=match.pk)
    shown = _get(client_for(players[0]), match.pk)
    assert shown["status"] == "active"
    status = {s["seat"]: s["status"] for s in shown["seats"]}
    assert status[seat] == "left"
    assert sorted(status.values()) == ["left", "playing", "playing"]
