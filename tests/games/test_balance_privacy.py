"""No message ever names another player's balance (issue 25): every path that checks the
stakes of several players at once (a challenge's last acceptance, a rematch's, quick
play's pairing, joining a full table, starting one) refuses or goes on naming nobody's
chips; only your own balance is ever told to you."""

import re

import pytest

from games import services
from games.models import Match, MatchEvent, Seek
from games.services.lobby import match_open_full
from ledger.errors import InsufficientChips
from ledger.selectors import wallet_balance
from tests.conftest import client_for
from tests.factories import FinishedMatchFactory, PlayerFactory, fund_house
from tests.games.helpers import MATCHES
from tests.problems import assert_problem

pytestmark = pytest.mark.django_db

KEEP = 13  # what the drained player keeps: it must appear in no one else's message
BUY_IN = 100


def _drain(user) -> None:
    """`user` puts all but KEEP chips into another table that starts at once."""
    lobby = services.match_create(
        user=user,
        ruleset="classic",
        max_players=2,
        turn_seconds=60,
        buy_in=wallet_balance(user=user) - KEEP,
    ).match
    services.match_join(match_id=lobby.pk, user=PlayerFactory())
    assert wallet_balance(user=user) == KEEP


def _names_no_balance(text: str) -> None:
    assert not re.search(r"\d", text), text


def test_the_last_acceptance_of_a_challenge():
    ann, bob = PlayerFactory(), PlayerFactory()
    body = {"usernames": [bob.username], "ruleset": "classic", "turn_seconds": 60}
    challenge = (
        client_for(ann)
        .post("/api/v1/challenges/", {**body, "buy_in": BUY_IN}, format="json")
        .json()
    )
    _drain(ann)
    accept = client_for(bob).post(
        f"/api/v1/challenges/{challenge['id']}/accept/", {}, format="json"
    )
    _names_no_balance(assert_problem(accept, 409, "insufficient_chips")["detail"])


def test_the_last_acceptance_of_a_rematch():
    ann, bob = PlayerFactory(), PlayerFactory()
    old = FinishedMatchFactory(players=[ann, bob], options={"dice_per_player": 2}, buy_in=BUY_IN)
    assert client_for(ann).post(f"{MATCHES}{old.pk}/rematch/", {}, format="json").status_code == 200
    _drain(ann)
    accept = client_for(bob).post(f"{MATCHES}{old.pk}/rematch/", {}, format="json")
    _names_no_balance(assert_problem(accept, 409, "insufficient_chips")["detail"])


def test_quick_play_pairs_nobody_who_cannot_pay_and_says_nothing_of_them():
    ann, bob = PlayerFactory(), PlayerFactory()
    seek = {"ruleset": "classic", "players": 2, "turn_seconds": 60, "buy_in": BUY_IN}
    assert client_for(ann).post("/api/v1/seeks/", seek, format="json").json()["status"] == "waiting"
    _drain(ann)
    mine = client_for(bob).post("/api/v1/seeks/", seek, format="json")
    assert mine.status_code == 201 and mine.json()["status"] == "waiting"
    assert not Match.objects.filter(seats__player=bob).exists()
    assert Seek.objects.filter(status="waiting").count() == 2


def test_a_table_opened_for_several_refuses_naming_nobody():
    """The shared opening of a challenge's, a pairing's and a rematch's table: a wallet
    emptied since its check refuses it with the caller's words only."""
    ann, bob = PlayerFactory(), PlayerFactory()
    _drain(bob)
    with pytest.raises(InsufficientChips) as refused:
        match_open_full(
            players=[ann, bob],
            refusal="A player can no longer cover the buy-in.",
            ruleset="classic",
            turn_seconds=60,
            buy_in=BUY_IN,
        )
    assert refused.value.detail == "A player can no longer cover the buy-in."


def test_joining_a_full_table_unseats_the_short_player_naming_no_balance():
    ann, bob = PlayerFactory(), PlayerFactory()
    lobby = client_for(ann).post(
        MATCHES,
        {"ruleset": "classic", "max_players": 2, "turn_seconds": 60, "buy_in": BUY_IN},
        format="json",
    )
    match_id = lobby.json()["id"]
    _drain(ann)
    joined = client_for(bob).post(f"{MATCHES}{match_id}/join/", {}, format="json")
    assert joined.status_code == 200, joined.content
    assert joined.json()["status"] == "open"  # ann lost her seat; bob waits for another
    left = MatchEvent.objects.get(match_id=match_id, type="player_left")
    assert left.data == {
        "type": "player_left",
        "seat": 0,
        "player": left.data["player"],
        "reason": "insufficient_chips",
    }


def test_starting_a_table_whose_player_spent_their_chips():
    ann, bob = PlayerFactory(), PlayerFactory()
    a = client_for(ann)
    body = {"ruleset": "classic", "max_players": 3, "turn_seconds": 60, "buy_in": BUY_IN}
    match_id = a.post(MATCHES, body, format="json").json()["id"]
    assert client_for(bob).post(f"{MATCHES}{match_id}/join/", {}, format="json").status_code == 200
    _drain(bob)
    started = a.post(f"{MATCHES}{match_id}/start/", {}, format="json")
    _names_no_balance(assert_problem(started, 409, "not_enough_players")["detail"])


def test_only_your_own_balance_is_ever_told_to_you():
    ann = PlayerFactory()
    _drain(ann)
    body = {"ruleset": "classic", "max_players": 2, "turn_seconds": 60, "buy_in": BUY_IN}
    fund_house(BUY_IN)  # the bot is staked: only ann's own chips are short
    bots = [{"strategy": "hard"}]
    refused = client_for(ann).post(MATCHES, {**body, "bots": bots}, format="json")
    detail = assert_problem(refused, 409, "insufficient_chips")["detail"]
    assert detail == f"You have {KEEP} chips; the buy-in is {BUY_IN}."
