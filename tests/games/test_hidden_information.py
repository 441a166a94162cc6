"""No response ever carries another seat's unrevealed dice or the commitment salts, and a
client can verify every finished round's dice against the published commitments."""

import hashlib
import json
import random

import pytest

from games import engine
from games.models import Match
from tests.conftest import client_for
from tests.factories import PlayerFactory
from tests.games.helpers import MATCHES, action_from_legal, create_and_fill, seated_players

pytestmark = pytest.mark.django_db

# Lists of integers under these keys are seat numbers or die indexes, not dice.
NOT_DICE = {
    "show",
    "hold",
    "target_seats",
    "winner_seats",
    "passed",
    "elimination_order",
    "seats",
    "losses",
    "gains",
}
# Finished rounds are public: every die in them has been revealed.
REVEALED = {"last_round", "rounds", "round_finished", "round_voided"}


@pytest.fixture(autouse=True)
def _seeded_dice(monkeypatch):
    monkeypatch.setattr("games.services.SECURE_DICE", random.Random(1987))


def _int_lists(node, key=None, revealed=False):
    if revealed:  # everything inside a finished round is public
        return
    if isinstance(node, dict):
        inner_revealed = revealed or node.get("type") in REVEALED
        for k, v in node.items():
            yield from _int_lists(v, k, inner_revealed or k in REVEALED)
    elif isinstance(node, list):
        if node and all(type(x) is int for x in node):
            if key not in NOT_DICE and not revealed:
                yield key, node
        else:
            for item in node:
                yield from _int_lists(item, key, revealed)


def _hidden(match: Match) -> tuple[dict[int, list[int]], list[str]]:
    state = engine.State.from_json(match.state)
    cups = {}
    if not state.rules.is_poker and state.round is not None:
        for seat in range(state.n_players):
            if state.live[seat] and len(state.round.dice[seat]) >= 2:
                cups[seat] = list(state.round.dice[seat])
    return cups, list((match.secrets or {}).get("salts", {}).values())


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


@pytest.mark.parametrize("ruleset", ["milton_bradley", "poker_dice"])
def test_no_response_leaks_hidden_dice_or_salts(ruleset):
    rng = random.Random(7)
    players = seated_players(3)
    spectator = client_for(PlayerFactory())
    match_id = create_and_fill(players, ruleset=ruleset, buy_in=20, ante=1)
    clients = [c for _, c in players]
    checked = 0
    for _ in range(80):
        match = Match.objects.get(pk=match_id)
        if match.status != "active":
            break
        cups, salts = _hidden(match)
        seen_seq = max(0, match.event_seq - 30)
        clients[0].post(
            f"{MATCHES}{match_id}/messages/", {"text": "I hold five sixes"}, format="json"
        )
        for viewer, client in [*enumerate(clients), (None, spectator)]:
            for response in _responses(client, match_id, seen_seq):
                text = response.content.decode()
                for salt in salts:
                    assert salt not in text, "a commitment salt leaked before the reveal"
                body = json.loads(text)
                for key, values in _int_lists(body):
                    for seat, cup in cups.items():
                        if seat != viewer:
                            assert values != cup, (viewer, seat, key, response.request)
                checked += 1
        views = [c.get(f"{MATCHES}{match_id}/").json() for c in clients]
        actor = next(i for i, v in enumerate(views) if v["legal_actions"])
        # Each player sees their own cup, and only that.
        if ruleset != "poker_dice":
            assert views[actor]["round"]["your_dice"] == cups.get(
                actor, views[actor]["round"]["your_dice"]
            )
        action = action_from_legal(views[actor]["legal_actions"], rng)
        assert (
            clients[actor].post(f"{MATCHES}{match_id}/actions/", action, format="json").status_code
            == 201
        )
    assert checked > 200


def test_schema_examples_carry_no_dice(client):
    schema = client.get("/api/v1/schema/?format=json").json()
    assert "your_dice" not in json.dumps(schema.get("components", {}).get("examples", {}))


def _verify(record: dict) -> None:
    for seat, digest in record["dice_commitments"].items():
        salt = record["salts"][seat]
        dice = record["dice"][seat]
        expected = hashlib.sha256(f"{salt}:{','.join(str(d) for d in dice)}".encode())
        assert expected.hexdigest() == digest, (record["number"], seat)


@pytest.mark.parametrize("ruleset", ["milton_bradley", "classic", "poker_dice"])
def test_finished_rounds_verify_against_their_commitments(ruleset):
    """A client's check: the commitments published while the round ran match the salts
    and dice revealed when it finished."""
    rng = random.Random(3)
    players = seated_players(2)
    match_id = create_and_fill(players, ruleset=ruleset)
    clients = [c for _, c in players]
    published: dict[int, dict] = {}
    verified = 0
    for _ in range(600):
        views = [c.get(f"{MATCHES}{match_id}/").json() for c in clients]
        if views[0]["status"] != "active":
            break
        current = views[0]["round"]
        assert current["dice_commitments"], "a running round publishes commitments"
        published[current["number"]] = current["dice_commitments"]
        actor = next(i for i, v in enumerate(views) if v["legal_actions"])
        action = action_from_legal(views[actor]["legal_actions"], rng)
        clients[actor].post(f"{MATCHES}{match_id}/actions/", action, format="json")
    rounds = clients[0].get(f"{MATCHES}{match_id}/rounds/").json()["rounds"]
    assert rounds
    for record in rounds:
        _verify(record)
        # What was committed while the round ran is what the finished round reveals (the
        # last commitment: show-and-reroll and poker rerolls publish new ones).
        if record["number"] in published and ruleset != "poker_dice":
            assert set(published[record["number"]]) == set(record["dice_commitments"])
        verified += 1
    assert verified == len(rounds)
