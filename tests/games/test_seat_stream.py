"""A seat's own stream (`seat-stream/`) through the real ASGI server: the seated player's
view as `GET` answers it, first as it is, then once per change, so a whole match plays
from one stream and the POSTs; nobody else has one, and it ends with the seat."""

import time

import pytest

from accounts.services import token_create
from games.models import Match
from tests.conftest import client_for
from tests.factories import ActiveMatchFactory, FinishedMatchFactory, LobbyFactory, PlayerFactory
from tests.games.helpers import MATCHES
from tests.live_server import StreamReader

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]


def _open(live_asgi, match_id: int, user, **headers) -> StreamReader:
    url = f"{live_asgi.url}/api/v1/matches/{match_id}/seat-stream/"
    return StreamReader(url, token_create(user=user)[1], headers=headers)


def _states(stream: StreamReader) -> list:
    assert all(e.type == "state" for e in stream.events)
    return stream.events


def test_a_seat_plays_a_turn_from_its_stream_alone(live_asgi):
    match = ActiveMatchFactory(players=2, ruleset="classic")
    seats = {s.seat: s.player for s in match.seats.select_related("player")}
    mover, waiter = seats[match.turn_seat], seats[1 - match.turn_seat]
    stream = _open(live_asgi, match.pk, waiter)
    assert stream.wait_for(lambda s: len(s.events) == 1), stream.items
    first = _states(stream)[0].data
    # Exactly what GET answers the same player: own dice, no legal action yet.
    assert first == client_for(waiter).get(f"{MATCHES}{match.pk}/").json()
    assert first["round"]["your_dice"] and first["legal_actions"] == []

    legal = client_for(mover).get(f"{MATCHES}{match.pk}/").json()["legal_actions"]
    bid = next(a for a in legal if a["type"] == "bid")
    face, quantity = sorted(bid["min_quantity_by_face"].items())[0]
    action = {"type": "bid", "quantity": quantity, "face": int(face)}
    moved = client_for(mover).post(f"{MATCHES}{match.pk}/actions/", action, format="json")
    assert moved.status_code == 201, moved.content
    assert stream.wait_for(lambda s: len(s.events) == 2), stream.items
    second = _states(stream)[1].data
    assert second["version"] == first["version"] + 1
    assert second["legal_actions"], "the waiter's turn: what it may do is in the state"
    assert second["round"]["your_dice"] == first["round"]["your_dice"]
    assert stream.events[1].id == Match.objects.get(pk=match.pk).event_seq
    stream.drop()


def test_chat_sends_no_state_and_a_resume_sends_only_what_changed(live_asgi):
    match = ActiveMatchFactory(players=2, ruleset="poker_dice")
    player = match.seats.get(seat=0).player
    seq = Match.objects.get(pk=match.pk).event_seq
    stream = _open(live_asgi, match.pk, player, **{"Last-Event-ID": str(seq)})
    assert stream.wait_for(lambda s: s.status == 200)
    chat = client_for(player).post(f"{MATCHES}{match.pk}/messages/", {"text": "hi"}, format="json")
    assert chat.status_code == 201
    time.sleep(1.0)
    assert stream.events == []  # resumed at the current state, and chat is no change
    turn_seat = Match.objects.get(pk=match.pk).turn_seat
    mover = match.seats.get(seat=turn_seat).player
    legal = client_for(mover).get(f"{MATCHES}{match.pk}/").json()["legal_actions"]
    bid = next(a for a in legal if a["type"] == "bid")
    action = {"type": "bid", "hand": bid["min_hand"]}
    if bid.get("needs_direction"):
        action["direction"] = "left"
    moved = client_for(mover).post(f"{MATCHES}{match.pk}/actions/", action, format="json")
    assert moved.status_code == 201, moved.content
    assert stream.wait_for(lambda s: len(s.events) == 1), stream.items
    assert _states(stream)[0].data["version"] == moved.json()["version"]
    stream.drop()


def test_a_finished_match_sends_its_final_state_and_ends(live_asgi):
    match = FinishedMatchFactory(players=2, options={"dice_per_player": 1})
    stream = _open(live_asgi, match.pk, match.seats.get(seat=0).player)
    assert stream.ended.wait(10), "the stream of a finished match did not end"
    (final,) = _states(stream)
    assert final.data["status"] == "finished" and final.data["legal_actions"] == []


def test_only_a_seated_player_has_one_and_it_ends_with_the_seat(live_asgi):
    public = ActiveMatchFactory(players=2)
    spectator = _open(live_asgi, public.pk, PlayerFactory())
    assert spectator.ended.wait(10) and spectator.status == 403
    assert spectator.items[0]["code"] == "not_a_player"
    private = LobbyFactory(players=2, private=True)
    stranger = _open(live_asgi, private.pk, PlayerFactory())
    assert stranger.ended.wait(10) and stranger.status == 404

    leaver = private.seats.get(seat=1).player
    stream = _open(live_asgi, private.pk, leaver)
    assert stream.wait_for(lambda s: len(s.events) == 1)
    left = client_for(leaver).post(f"{MATCHES}{private.pk}/leave/", {}, format="json")
    assert left.status_code == 200
    left_at = time.monotonic()
    assert stream.ended.wait(5) and time.monotonic() - left_at < 2.0
    assert len(stream.events) == 1  # nothing of the match after the seat went
