"""No response ever carries another seat's unrevealed dice or the commitment salts, and a
client can verify every finished round's dice against the published commitments."""

import hashlib
import json
import random

import pytest

from games.models import Match
from tests.conftest import client_for
from tests.factories import ActiveMatchFactory, PlayerFactory
from tests.games.helpers import MATCHES, action_from_legal, seated_players
from tests.games.hidden_dice import assert_nothing_hidden, hidden_now

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _seeded_dice(monkeypatch):
    monkeypatch.setattr("games.fairness.SECURE_DICE", random.Random(1987))


def _your_dice(body) -> list | None:
    return (body.get("round") or {}).get("your_dice")


def _responses(client, match_id: int, recent_seq: int):
    yield client.get(f"{MATCHES}{match_id}/")
    # Every event is scanned in the step after it is written.
    yield client.get(f"{MATCHES}{match_id}/events/?after={recent_seq}")
    yield client.get(f"{MATCHES}{match_id}/rounds/")
    yield client.get(f"{MATCHES}{match_id}/messages/")
    yield client.get(MATCHES)
    yield client.post(
        f"{MATCHES}{match_id}/actions/", {"type": "bid", "quantity": 99, "face": 9}, format="json"
    )
    yield client.post(f"{MATCHES}{match_id}/actions/", {"type": "accept"}, format="json")


@pytest.mark.parametrize(
    ("ruleset", "options"),
    [
        ("milton_bradley", {}),
        ("milton_bradley", {"show_and_reroll": "before_raise"}),
        ("poker_dice", {}),
    ],
)
def test_no_response_leaks_hidden_dice_or_salts(ruleset, options):
    rng = random.Random(7)
    players = seated_players(3)
    spectator = client_for(PlayerFactory())
    match_id = ActiveMatchFactory(
        players=[user for user, _ in players], ruleset=ruleset, options=options, buy_in=20, ante=1
    ).pk
    clients = [c for _, c in players]
    checked = own_dice_seen = box_seen = 0
    for _ in range(80):
        match = Match.objects.get(pk=match_id)
        if match.status != "active":
            break
        hidden = hidden_now(match)
        seen_seq = max(0, match.event_seq - 30)
        clients[0].post(
            f"{MATCHES}{match_id}/messages/", {"text": "I hold five sixes"}, format="json"
        )
        for viewer, client in [*enumerate(clients), (None, spectator)]:
            for response in _responses(client, match_id, seen_seq):
                if response.request["REQUEST_METHOD"] == "POST" and response.status_code < 400:
                    hidden = hidden_now(Match.objects.get(pk=match_id))  # an accept: it played
                text = response.content.decode()
                for salt in hidden.salts:
                    assert salt not in text, "a commitment salt leaked before the reveal"
                assert_nothing_hidden(json.loads(text), hidden, viewer, response.request)
                checked += 1
        views = [c.get(f"{MATCHES}{match_id}/").json() for c in clients]
        # Each player sees their own cup (common pool) or the box while holding it.
        for seat, view in enumerate(views):
            if hidden.box is not None:
                assert _your_dice(view) == (hidden.box if seat == hidden.box_holder else None)
                box_seen += seat == hidden.box_holder
            else:
                assert _your_dice(view) == hidden.cups.get(seat)
                own_dice_seen += seat in hidden.cups
        actor = next(i for i, v in enumerate(views) if v["legal_actions"])
        action = action_from_legal(views[actor]["legal_actions"], rng)
        assert (
            clients[actor].post(f"{MATCHES}{match_id}/actions/", action, format="json").status_code
            == 201
        )
    assert checked > 200
    # The scan looked at real dice: cups with shown dice beside them, or a held box.
    if ruleset == "poker_dice":
        assert box_seen > 10
    else:
        assert own_dice_seen > 50
        assert any(a.get("shown") for r in _rounds(clients[0], match_id) for a in r["actions"])


def _rounds(client, match_id: int) -> list[dict]:
    return client.get(f"{MATCHES}{match_id}/rounds/").json()["rounds"]


# What the API sends, as its schema documents it; none of these is ever another seat's.
DICE_KEYS = {"dice", "your_dice", "cup", "box"}


def _keys(node) -> set[str]:
    if isinstance(node, dict):
        return set(node).union(*(_keys(v) for v in node.values()))
    if isinstance(node, list):
        return set().union(*(_keys(v) for v in node))
    return set()


def _examples(node):
    if isinstance(node, dict):
        for k, v in node.items():
            if k == "example":
                yield v
            elif k == "examples":
                yield from (v.values() if isinstance(v, dict) else v)
            else:
                yield from _examples(v)
    elif isinstance(node, list):
        for v in node:
            yield from _examples(v)


def test_the_schema_documents_no_dice_of_other_seats():
    players = seated_players(2)
    match_id = ActiveMatchFactory(
        players=[user for user, _ in players], ruleset="milton_bradley", buy_in=10, ante=1
    ).pk
    client = players[0][1]
    schema = client.get("/api/v1/schema/?format=json").json()
    shapes = schema["components"]["schemas"]
    match_shape = shapes["CommonPoolMatch"]["properties"]
    seat_shape = shapes["CommonPoolSeat"]["properties"]
    # The match and round shapes are documented; a seat, which everyone sees, carries a
    # dice count and no dice; the only dice a live round names are the caller's own.
    assert {"round", "last_round", "seats", "your_seat"} <= set(match_shape)
    assert {"rounds", "current"} <= set(shapes["CommonPoolRounds"]["properties"])
    assert "dice_count" in seat_shape and not DICE_KEYS & set(seat_shape)
    assert not DICE_KEYS & set(match_shape)
    for name in ("CommonPoolRound", "PokerDiceRound"):
        round_fields = set(shapes[name]["properties"])
        assert "your_dice" in round_fields and not {"dice", "cup", "box"} & round_fields
    # No example anywhere shows dice.
    assert not any(DICE_KEYS & _keys(example) for example in _examples(schema))
    # And the real response has no field the schema leaves out.
    body = client.get(f"{MATCHES}{match_id}/").json()
    assert set(body) <= set(match_shape)
    assert all(set(seat) <= set(seat_shape) for seat in body["seats"])


def _digest(salt: str, dice: list) -> str:
    """The commitment as API.md defines it, computed the way any client would."""
    return hashlib.sha256(f"{salt}:{','.join(str(d) for d in dice)}".encode()).hexdigest()


def _holdings(record: dict, key: str) -> list[list]:
    """Every set of dice `key` (a seat, or the poker "box") held during the finished round,
    in order, rebuilt from what the round reveals: its rolls and the dice put face up."""
    if key == "box":
        return record["rolls"]
    rolls = record.get("rolls", {}).get(key)
    if not rolls:  # never rerolled: held its revealed dice all round
        return [record["dice"][key]]
    shows = [a["shown"] for a in record["actions"] if a.get("shown") and str(a["seat"]) == key]
    assert len(shows) == len(rolls) - 1, (record["number"], key)
    held, shown = [], []
    for cup, show in zip(rolls, [[], *shows], strict=True):
        shown = shown + show
        held.append(cup + shown)
    return held


def _squeezed(digests: list[str]) -> list[str]:
    return [d for i, d in enumerate(digests) if i == 0 or digests[i - 1] != d]


def _is_subsequence(part: list, whole: list) -> bool:
    rest = iter(whole)
    return all(item in rest for item in part)


@pytest.mark.parametrize(
    ("ruleset", "options"),
    [
        ("milton_bradley", {}),
        ("milton_bradley", {"show_and_reroll": "before_raise"}),
        ("classic", {}),
        ("poker_dice", {}),
    ],
)
def test_finished_rounds_verify_against_the_commitments_seen_in_play(ruleset, options):
    """A client's check: every commitment it was shown while a round ran is the hash of
    the revealed salt and of dice the finished round shows were held at the time, the last
    one of the dice revealed at the end. A server that changed dice after committing to
    them fails it."""
    rng = random.Random(3)
    players = seated_players(2)
    match_id = ActiveMatchFactory(
        players=[user for user, _ in players], ruleset=ruleset, options=options
    ).pk
    clients = [c for _, c in players]
    seen: dict[int, dict[str, list[str]]] = {}  # round -> key -> digests, in order
    for _ in range(600):
        views = [c.get(f"{MATCHES}{match_id}/").json() for c in clients]
        if views[0]["status"] != "active":
            break
        current = views[0]["round"]
        assert current["dice_commitments"], "a running round publishes commitments"
        assert current["dice_commitments"] == views[1]["round"]["dice_commitments"]
        for key, digest in current["dice_commitments"].items():
            seen.setdefault(current["number"], {}).setdefault(key, []).append(digest)
        actor = next(i for i, v in enumerate(views) if v["legal_actions"])
        action = action_from_legal(views[actor]["legal_actions"], rng)
        response = clients[actor].post(f"{MATCHES}{match_id}/actions/", action, format="json")
        assert response.status_code == 201, response.content
    assert views[0]["status"] == "finished"
    rounds = clients[0].get(f"{MATCHES}{match_id}/rounds/").json()["rounds"]
    assert [r["number"] for r in rounds] == sorted(seen)
    changed = 0
    for record in rounds:
        during = seen[record["number"]]
        expected_keys = {"box"} if ruleset == "poker_dice" else set(record["dice"])
        assert set(during) == expected_keys == set(record["salts"]), record["number"]
        for key, digests in during.items():
            salt = record["salts"][key]
            held = _squeezed([_digest(salt, dice) for dice in _holdings(record, key)])
            assert held[-1] == _digest(salt, record["dice"][key]), (record["number"], key)
            digests = _squeezed(digests)
            assert digests[-1] == held[-1], (record["number"], key)
            assert _is_subsequence(digests, held), (record["number"], key)
            changed += len(digests) > 1
    # Rerolls (poker) and show-and-reroll really changed commitments mid-round.
    if ruleset != "classic":
        assert changed > 0


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize(
    ("ruleset", "options"),
    [("milton_bradley", {"show_and_reroll": "before_raise"}), ("poker_dice", {})],
)
def test_no_stream_leaks_hidden_dice_or_salts(live_asgi, ruleset, options):
    """The match stream and the account stream, read from the real server by every
    player and a spectator while the match is played, carry nothing the reader may not
    see: each new event is checked against the dice in play when it was written."""
    from accounts.services import token_create
    from tests.live_server import StreamReader

    rng = random.Random(11)
    players = seated_players(3)
    spectator = PlayerFactory()
    readers = [*(u for u, _ in players), spectator]
    tokens = [token_create(user=u)[1] for u in readers]
    url = live_asgi.url
    account_streams = [StreamReader(f"{url}/api/v1/stream/?after=0", t) for t in tokens]
    match_id = ActiveMatchFactory(
        players=[user for user, _ in players], ruleset=ruleset, options=options, buy_in=20, ante=1
    ).pk
    match_streams = [StreamReader(f"{url}{MATCHES}{match_id}/stream/?after=0", t) for t in tokens]
    clients = [c for _, c in players]
    seen = [0] * len(readers)
    seen_account = [0] * len(readers)
    checked = 0
    for _ in range(60):
        match = Match.objects.get(pk=match_id)
        hidden = hidden_now(match)
        for i, (stream, account) in enumerate(zip(match_streams, account_streams, strict=True)):
            viewer = i if i < len(players) else None
            last = match.event_seq
            assert stream.wait_for(lambda s, last=last: s.events and s.events[-1].id >= last)
            new = stream.events[seen[i] :]
            seen[i] = len(stream.events)
            fresh = account.events[seen_account[i] :]
            seen_account[i] = len(account.events)
            for event in [*new, *fresh]:
                text = json.dumps(event.data)
                for salt in hidden.salts if match.status == "active" else ():
                    assert salt not in text, "a commitment salt leaked before the reveal"
                assert_nothing_hidden(event.data, hidden, viewer, ("stream", event.type))
                checked += 1
        if match.status != "active":
            break
        views = [c.get(f"{MATCHES}{match_id}/").json() for c in clients]
        actor = next(i for i, v in enumerate(views) if v["legal_actions"])
        action = action_from_legal(views[actor]["legal_actions"], rng)
        assert (
            clients[actor].post(f"{MATCHES}{match_id}/actions/", action, format="json").status_code
            == 201
        )
    for stream in [*match_streams, *account_streams]:
        stream.drop()
    assert checked > 100
    # The account streams told each player of their turns, and the spectator of none.
    assert any(e.type == "your_turn" for s in account_streams[:3] for e in s.events)
    assert not account_streams[3].events
