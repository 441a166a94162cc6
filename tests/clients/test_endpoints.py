"""The client library against a real server: every family of operations, and its typed
errors carrying the problem code."""

import liarsdice
import pytest
from liarsdice import Match, SeatResult, ShownRating

from tests.clients.conftest import PASSWORD, play_out

pytestmark = pytest.mark.django_db(transaction=True)


def test_accounts_tokens_webhooks_wallet_and_rankings(live_asgi, new_client):
    ann = new_client(live_asgi.url, "acct")
    me = ann.me()
    assert ann.index()["links"] and me["chips"] > 0
    assert ann.update_me(is_bot=True)["is_bot"] is True
    assert [entry["amount"] for entry in ann.pages(ann.transactions())] == [me["chips"]]
    assert ann.player(me["username"])["username"] == me["username"]
    assert ann.player_matches(me["username"])["results"] == []
    listed = {e["username"] for e in ann.pages(ann.leaderboard(by="chips"))}
    assert me["username"] not in listed  # balances are private unless shown
    assert ann.update_me(show_chips=True)["show_chips"] is True
    assert any(e["username"] == me["username"] for e in ann.pages(ann.leaderboard(by="chips")))
    assert {r["name"] for r in ann.rulesets()} >= {"classic", "poker_dice"}

    first = ann.token
    ann.login(me["username"], PASSWORD, name="second", expires_in=3600)
    tokens = ann.pages(ann.tokens())
    named = {t["name"]: t for t in tokens}
    assert named["second"]["current"] and named["second"]["expires_at"]
    assert named["registration"]["expires_at"] is None
    ann.revoke_token(named["registration"]["id"])
    stale = liarsdice.Client(live_asgi.url, first)
    with pytest.raises(liarsdice.NotAuthenticated) as caught:
        stale.me()
    assert caught.value.status == 401 and caught.value.code
    stale.close()

    with pytest.raises(liarsdice.ValidationFailed) as caught:  # API.md: 16 to 128 characters
        ann.create_webhook("http://127.0.0.1:9/hook", secret="s" * 15)
    assert [(e["field"], e["code"]) for e in caught.value.errors] == [("secret", "min_length")]
    hook = ann.create_webhook("http://127.0.0.1:9/hook", secret="s" * 16)
    assert [h["id"] for h in ann.webhooks()] == [hook["id"]]
    assert ann.webhook_deliveries(hook["id"]) == []
    ann.delete_webhook(hook["id"])
    assert ann.webhooks() == []

    ann.logout()
    assert ann.token is None

    # A bot's start: registered as a program's account the first time, logged in after.
    with liarsdice.Client(live_asgi.url) as bot:
        created = bot.login_or_register(f"{me['username']}_bot", PASSWORD, is_bot=True)
        assert created["is_bot"] is True and bot.me()["is_bot"] is True
        again = bot.login_or_register(f"{me['username']}_bot", PASSWORD, is_bot=True)
        assert again["token"] != created["token"]


def test_lobby_play_chat_history_challenges_and_seeks(live_asgi, new_client):
    ann, bob = new_client(live_asgi.url, "lob"), new_client(live_asgi.url, "lob")
    bob_name = bob.me()["username"]
    match = ann.create_match("classic", max_players=3, options={"dice_per_player": 1})
    assert isinstance(match, Match) and match.your_seat == 0 and match.status == "open"
    # The rules are flat (API.md): the family beside each option, no nested `options`.
    assert match.rules["family"] == "common_pool" and match.rules["dice_per_player"] == 1
    assert "options" not in match.rules
    assert bob.join(match.id).your_seat == 1
    assert bob.leave(match.id).your_seat is None
    bob.join(match.id)
    ladder = [(b.strategy, b.level) for b in ann.bots() if b.level is not None]
    assert ladder == [("easy", 1), ("medium", 2), ("hard", 3), ("expert", 4)]
    assert len(ann.add_bot(match.id, "hard").seats) == 3  # full: it starts
    assert any(s["id"] == match.id for s in ann.pages(ann.matches(mine=True)))
    ann.send_message(match.id, "good luck")
    assert [m["text"] for m in ann.pages(ann.messages(match.id))] == ["good luck"]
    page = ann.events(match.id, after=0)
    assert page.events[0].type == "match_created" and page.last_seq >= len(page.events)
    assert ann.rounds(match.id)["current"]["number"] == 1
    assert ann.resign(match.id).seats[0].status == "left"
    with pytest.raises(liarsdice.ApiError) as caught:
        ann.export(match.id)
    assert caught.value.code == "match_not_finished"
    started = ann.create_match("classic", options={"dice_per_player": 1})
    with pytest.raises(liarsdice.ApiError) as caught:
        ann.start(started.id)
    assert caught.value.code == "not_enough_players"

    challenge = ann.challenge([bob_name], "classic", options={"dice_per_player": 1})
    outgoing = ann.challenges(direction="outgoing")["results"]
    assert outgoing[0]["id"] == challenge["id"]
    assert bob.decline_challenge(challenge["id"])["status"] == "declined"
    second = ann.challenge([bob_name], "classic")
    assert ann.cancel_challenge(second["id"])["status"] == "cancelled"
    third = ann.challenge([bob_name], "classic")
    assert bob.accept_challenge(third["id"])["match_id"]

    seek = bob.seek("perudo", players=3)
    assert seek["status"] == "waiting" and bob.get_seek(seek["id"])["id"] == seek["id"]
    assert [s["id"] for s in bob.pages(bob.seeks())] == [seek["id"]]
    bob.cancel_seek(seek["id"])
    assert bob.get_seek(seek["id"])["status"] == "cancelled"


def test_errors_are_typed_by_their_problem_code(live_asgi, new_client):
    ann, bob = new_client(live_asgi.url, "err"), new_client(live_asgi.url, "err")
    match = ann.create_match("classic", options={"dice_per_player": 2})
    match = bob.join(match.id)
    mover, waiter = (ann, bob) if match.round.turn_seat == 0 else (bob, ann)
    with pytest.raises(liarsdice.NotYourTurn) as caught:
        waiter.act(match.id, {"type": "bid", "quantity": 1, "face": 2})
    assert (caught.value.status, caught.value.code) == (409, "not_your_turn")
    with pytest.raises(liarsdice.VersionConflict) as caught:
        mover.act(match.id, {"type": "bid", "quantity": 1, "face": 2}, expected_version=0)
    assert caught.value.code == "stale_version" and caught.value.detail
    with pytest.raises(liarsdice.IllegalAction):
        mover.act(match.id, {"type": "challenge"})  # no bid to challenge yet
    with pytest.raises(liarsdice.ValidationFailed) as caught:
        mover.act(match.id, {"type": "bid", "quantity": 1, "face": 2, "expectedVersion": 3})
    assert caught.value.errors[0]["code"] == "unknown_field"
    with pytest.raises(liarsdice.NotFound):
        mover.match(10**9)
    # The same Idempotency-Key replays the first answer instead of acting twice.
    key = "one-move-once"
    first = mover.act(match.id, {"type": "bid", "quantity": 1, "face": 2}, idempotency_key=key)
    again = mover.act(match.id, {"type": "bid", "quantity": 1, "face": 2}, idempotency_key=key)
    assert first.version == again.version == match.version + 1


def test_a_finished_matchs_results_are_typed(live_asgi, new_client):
    ann, bob = new_client(live_asgi.url, "res"), new_client(live_asgi.url, "res")
    match = ann.create_match("classic", options={"dice_per_player": 1})
    bob.join(match.id)
    assert match.results is None
    play_out(ann, bob, match.id)
    final = ann.match(match.id)
    assert final.status == "finished"
    assert [type(r) for r in final.results] == [SeatResult, SeatResult]
    assert sorted(r.place for r in final.results) == [1, 2]
    # Played (a bid and a challenge) and rated: both ratings shown, before and after.
    ratings = [r.rating_after for r in final.results] + [r.rating_before for r in final.results]
    assert all(isinstance(rating, ShownRating) for rating in ratings)
