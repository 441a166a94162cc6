"""A client that plays only from what the API shows it: legal_actions."""

import random

from rest_framework.test import APIClient

from tests.conftest import client_for
from tests.factories import PlayerFactory

MATCHES = "/api/v1/matches/"


def action_from_legal(legal: list[dict], rng: random.Random) -> dict:
    # Showing is one option among several: favour it so that every match really shows.
    show = [e for e in legal if e["type"] == "show_reroll"]
    entry = show[0] if show and rng.random() < 0.5 else rng.choice(legal)
    kind = entry["type"]
    if kind == "bid" and "min_quantity_by_face" in entry:
        face, quantity = rng.choice(sorted(entry["min_quantity_by_face"].items()))
        action = {"type": "bid", "quantity": quantity, "face": int(face)}
        if entry.get("can_show") and rng.random() < 0.5:  # before_raise: show with the raise
            action["show"] = _dice_to_show(entry["max_show"], rng)
        return action
    if kind == "bid":
        action = {"type": "bid", "hand": entry["min_hand"]}
        if entry.get("needs_direction"):
            action["direction"] = rng.choice(["left", "right"])
        return action
    if kind == "challenge" and entry.get("target_seats"):
        return {"type": "challenge", "target_seat": rng.choice(entry["target_seats"])}
    if kind == "show_reroll":
        return {"type": "show_reroll", "show": _dice_to_show(entry["max_show"], rng)}
    if kind == "reroll":
        if "hold_required" in entry:  # player one may not touch the dice
            return {"type": "reroll", "hold": entry["hold_required"]}
        return {"type": "reroll", "hold": sorted(rng.sample(range(5), rng.randint(0, 5)))}
    return {"type": kind}


def _dice_to_show(max_show: int, rng: random.Random) -> list[int]:
    """Indexes of 1..max_show dice of a cup of max_show + 1: at least one stays in it."""
    return sorted(rng.sample(range(max_show + 1), rng.randint(1, max_show)))


def seated_players(n: int) -> list[tuple[object, APIClient]]:
    users = [PlayerFactory() for _ in range(n)]
    return [(u, client_for(u)) for u in users]


def play_to_the_end(match_id: int, players, rng: random.Random, max_actions: int = 3000):
    clients = [c for _, c in players]
    for _ in range(max_actions):
        views = [c.get(f"{MATCHES}{match_id}/").json() for c in clients]
        if views[0]["status"] != "active":
            return views[0]
        actor = next(i for i, v in enumerate(views) if v["legal_actions"])
        action = action_from_legal(views[actor]["legal_actions"], rng)
        response = clients[actor].post(f"{MATCHES}{match_id}/actions/", action, format="json")
        assert response.status_code == 201, (action, response.content)
    raise AssertionError("the match did not end")


def play_a_round(match_id: int, players, rng: random.Random, max_actions: int = 200) -> dict:
    """Plays until a round has ended and every seat has made a move of its own, what a
    match needs to be rated: each seat raises until it has moved, then challenges."""
    return play_rounds(match_id, players, rng, rounds=1, max_actions=max_actions)


def play_rounds(
    match_id: int, players, rng: random.Random, *, rounds: int, max_actions: int = 600
) -> dict:
    """Plays until `rounds` rounds have ended and every seat has made a move of its own
    (`RATED_MIN_ROUNDS` of them: what a match resigned then needs to be rated), or the
    match ended: each seat raises until it has moved in the round, then challenges."""
    clients = [c for _, c in players]
    moved: set[int] = set()
    moved_in_round: set[int] = set()
    number = None
    for _ in range(max_actions):
        views = [c.get(f"{MATCHES}{match_id}/").json() for c in clients]
        last = views[0]["last_round"]
        if views[0]["status"] != "active" or (
            last and last["number"] >= rounds and len(moved) == len(clients)
        ):
            return views[0]
        if views[0]["round"] and views[0]["round"]["number"] != number:
            number, moved_in_round = views[0]["round"]["number"], set()
        actor = next(i for i, v in enumerate(views) if v["legal_actions"])
        legal = views[actor]["legal_actions"]
        ending = {"challenge", "exact"}
        challenge = [e for e in legal if e["type"] == "challenge"]
        if actor in moved_in_round and challenge:
            action = action_from_legal(challenge, rng)
        else:
            action = action_from_legal([e for e in legal if e["type"] not in ending] or legal, rng)
        response = clients[actor].post(f"{MATCHES}{match_id}/actions/", action, format="json")
        assert response.status_code == 201, (action, response.content)
        moved.add(actor)
        moved_in_round.add(actor)
    raise AssertionError("no round ended")


def farm_a_fresh_account(farmer_client: APIClient, rng: random.Random) -> tuple[object, int]:
    """The farm of issue 33, through the API: a rated 2-seat classic match against a
    fresh account, one bid, one challenge, then the fresh account resigns. Returns the
    fresh account and the match id."""
    victim = PlayerFactory()
    victim_client = client_for(victim)
    body = {"ruleset": "classic", "max_players": 2, "turn_seconds": 60, "rated": True}
    match_id = farmer_client.post(MATCHES, body, format="json").json()["id"]
    joined = victim_client.post(f"{MATCHES}{match_id}/join/", {}, format="json")
    assert joined.status_code == 200, joined.content
    for kind in ("bid", "challenge"):
        views = [(c, c.get(f"{MATCHES}{match_id}/").json()) for c in (farmer_client, victim_client)]
        client, view = next((c, v) for c, v in views if v["legal_actions"])
        action = action_from_legal([e for e in view["legal_actions"] if e["type"] == kind], rng)
        response = client.post(f"{MATCHES}{match_id}/actions/", action, format="json")
        assert response.status_code == 201, response.content
    resigned = victim_client.post(f"{MATCHES}{match_id}/resign/", {}, format="json")
    assert resigned.status_code == 200, resigned.content
    return victim, match_id
