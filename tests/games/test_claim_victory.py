"""Claiming the win: once every opponent still playing had their last
CLAIM_AFTER_TIMEOUTS turns played by the timeout policy, a player claims the match;
the gone seats are forfeited and the match finishes through the usual end."""

import random
from io import StringIO

import pytest
from django.conf import settings
from django.core.management import call_command

from accounts.models import User
from games import engine, services
from games.engine.limits import CLAIM_AFTER_TIMEOUTS
from games.models import Match, RoundRecord, Seat
from ledger.selectors import wallet_balance
from tests.factories import ActiveMatchFactory
from tests.games.helpers import MATCHES, action_from_legal, seated_players
from tests.problems import assert_problem

pytestmark = pytest.mark.django_db


def _ledger_ok() -> None:
    out = StringIO()
    call_command("ledger_check", stdout=out, stderr=out)
    assert "Ledger OK" in out.getvalue()


def _claim(client, match_id, body=None):
    return client.post(f"{MATCHES}{match_id}/claim-victory/", body or {}, format="json")


def _time_out_until_gone(match: Match, present: User, rng: random.Random) -> None:
    """`present` plays each of their turns; every other seat's turn times out, until
    each of those has timed out CLAIM_AFTER_TIMEOUTS times in a row."""
    for _ in range(200):
        match.refresh_from_db()
        assert match.status == Match.Status.ACTIVE
        seats = list(match.seats.select_related("player"))
        if all(
            s.consecutive_timeouts >= CLAIM_AFTER_TIMEOUTS
            for s in seats
            if s.player_id != present.pk and s.status == Seat.Status.PLAYING
        ):
            return
        turn = next(s for s in seats if s.seat == match.turn_seat)
        if turn.player_id == present.pk:
            state = engine.state_from_json(match.state)
            legal = engine.legal_actions(state, turn.seat)
            bids = [e for e in legal if e["type"] == "bid"] or legal
            services.action_submit(
                match_id=match.pk, user=present, action=action_from_legal(bids, rng)
            )
        else:
            services.turn_force_timeout(match_id=match.pk)
    raise AssertionError("the opponents never timed out enough")


@pytest.mark.parametrize("players", [2, 3])
def test_the_present_player_claims_the_win_over_gone_opponents(players):
    seated = seated_players(players)
    users = [u for u, _ in seated]
    before = sum(wallet_balance(user=u) for u in users)
    match = ActiveMatchFactory(
        players=users, buy_in=40, ante=1, on_timeout="challenge", max_timeouts=5
    )
    (claimant, client) = seated[0]
    assert_problem(_claim(client, match.pk), 409, "opponents_not_gone")
    _time_out_until_gone(match, claimant, random.Random(players))

    # A claim is a forfeit: rated only once RATED_MIN_ROUNDS rounds ended with a result
    # (the forfeits may end one more round at a table of three).
    ended = RoundRecord.objects.filter(match=match, record__result__isnull=False)
    ended_before = ended.count()
    body = _claim(client, match.pk, {"expected_version": match.version}).json()
    assert body["status"] == "finished" and body["winner_seats"] == [0]
    assert all(s["status"] == "left" for s in body["seats"][1:])
    rated = body["unrated_reason"] is None
    if rated:
        assert ended.count() >= settings.RATED_MIN_ROUNDS
    else:
        assert body["unrated_reason"] == Match.Unrated.ABANDONED
        assert ended_before < settings.RATED_MIN_ROUNDS
    events = client.get(f"{MATCHES}{match.pk}/events/").json()["events"]
    claimed = next(e for e in events if e["type"] == "victory_claimed")
    assert claimed["data"]["gone_seats"] == list(range(1, players))
    forfeits = [e for e in events if e["type"] == "player_out" and e["seq"] > claimed["seq"]]
    assert [e["data"]["reason"] for e in forfeits] == ["forfeit"] * (players - 1)
    assert sum(wallet_balance(user=u) for u in users) == before
    assert User.objects.get(pk=claimant.pk).games_won == int(rated)
    _ledger_ok()


def test_an_opponent_who_plays_again_is_not_gone():
    seated = seated_players(2)
    users = [u for u, _ in seated]
    match = ActiveMatchFactory(players=users, on_timeout="challenge", max_timeouts=5)
    _time_out_until_gone(match, users[0], random.Random(7))
    match.refresh_from_db()
    # The opponent comes back and plays their own turn: their count starts again.
    rng = random.Random(3)
    while match.status == Match.Status.ACTIVE and match.turn_seat != 1:
        state = engine.state_from_json(match.state)
        legal = [e for e in engine.legal_actions(state, 0) if e["type"] == "bid"]
        action = action_from_legal(legal, rng)
        services.action_submit(match_id=match.pk, user=users[0], action=action)
        match.refresh_from_db()
    state = engine.state_from_json(match.state)
    legal = [e for e in engine.legal_actions(state, 1) if e["type"] == "bid"]
    services.action_submit(match_id=match.pk, user=users[1], action=action_from_legal(legal, rng))
    version = Match.objects.get(pk=match.pk).version
    assert_problem(_claim(seated[0][1], match.pk), 409, "opponents_not_gone")
    assert Match.objects.get(pk=match.pk).version == version


def test_poker_dice_ends_at_the_first_forfeit():
    seated = seated_players(2)
    users = [u for u, _ in seated]
    match = ActiveMatchFactory(
        players=users, ruleset="poker_dice", buy_in=20, on_timeout="challenge", max_timeouts=5
    )
    _time_out_until_gone(match, users[1], random.Random(1))
    body = _claim(seated[1][1], match.pk).json()
    assert body["status"] == "finished" and body["winner_seats"] == [1]
    _ledger_ok()


def test_claim_refusals():
    seated = seated_players(2)
    match = ActiveMatchFactory(players=[u for u, _ in seated])
    outsider = seated_players(1)[0][1]
    assert_problem(_claim(outsider, match.pk), 403, "not_a_player")
    assert_problem(
        _claim(seated[0][1], match.pk, {"expected_version": match.version + 3}),
        409,
        "stale_version",
    )
    assert seated[1][1].post(f"{MATCHES}{match.pk}/resign/", {}, format="json").status_code == 200
    assert_problem(_claim(seated[0][1], match.pk), 409, "match_not_active")
