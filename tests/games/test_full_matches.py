import random
from collections import Counter

import pytest
from django.core.management import call_command

from games import stakes
from games.models import Match, MatchEvent
from ledger.models import Account, AccountKind
from ledger.selectors import wallet_balance
from tests.factories import ActiveMatchFactory
from tests.games.helpers import MATCHES, play_to_the_end, seated_players

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _seeded_dice(monkeypatch):
    monkeypatch.setattr("games.fairness.SECURE_DICE", random.Random(1987))


CHIPS = {"buy_in": 50, "ante": 1}
# Stacks that run short: antes are paid in part, then not at all.
SHORT = {"buy_in": 5, "ante": 2}

VARIANTS = [
    ("milton_bradley", {}, CHIPS),
    ("wild_ones", {}, CHIPS),
    ("roll_off", {}, CHIPS),
    ("classic", {}, CHIPS),
    ("poker_dice", {}, CHIPS),
    ("classic", {"exact_call": True}, CHIPS),
    ("classic", {"pass_call": True}, CHIPS),
    ("milton_bradley", {"show_and_reroll": "before_raise"}, CHIPS),
    ("milton_bradley", {"loss": "one"}, CHIPS),
    ("milton_bradley", {"next_opener": "round_loser"}, CHIPS),
    ("perudo", {}, CHIPS),
    ("perudo", {"palifico": False, "exact_call": False}, CHIPS),
    ("classic", {"ones_wild": True}, CHIPS),
    ("classic", {}, SHORT),
    ("poker_dice", {}, SHORT),
    ("perudo", {}, SHORT),
]


def _expected_stacks(
    rounds: list[dict], n_seats: int, final: dict, buy_in: int, ante: int
) -> tuple[list[int], list]:
    """Every stack at the end by RULES.md 1.8 and 2, worked out from the round records
    alone, and the movements each round should list (antes, then the round pot)."""
    stacks = [buy_in] * n_seats
    round_pot = game_pot = 0
    moves_by_round = []
    for record in rounds:
        if final["family"] == "poker_dice":  # nobody leaves a poker match before its end
            live = range(n_seats)
        else:  # the seats holding dice in the round
            live = sorted(int(s) for s in record["dice"])
        moves = []
        for seat in live:  # round pot first; a short stack pays what it has
            for pot, kind in (("round_pot", "ante_round"), ("game_pot", "ante_game")):
                pay = min(ante, stacks[seat])
                stacks[seat] -= pay
                if pot == "round_pot":
                    round_pot += pay
                else:
                    game_pot += pay
                if pay:
                    moves.append((f"seat:{seat}", pot, pay, kind))
        winner = record["result"]["winner_seat"]  # the challenge's winner takes the round pot
        if round_pot:
            moves.append(("round_pot", f"seat:{winner}", round_pot, "round_pot_win"))
        stacks[winner] += round_pot
        round_pot = 0
        moves_by_round.append(sorted(moves))
    winners = sorted(final["winner_seats"])
    if final["family"] == "poker_dice":
        # Shared equally by all but the loser; the remainder to the first of them
        # clockwise (up the seat numbers) from the loser.
        (loser,) = set(range(n_seats)) - set(winners)
        assert len(winners) == n_seats - 1
        share, remainder = divmod(game_pot, len(winners))
        for seat in winners:
            stacks[seat] += share
        stacks[(loser + 1) % n_seats] += remainder
    else:
        (winner,) = winners
        stacks[winner] += game_pot
    return stacks, moves_by_round


def _shows(rounds: list[dict]) -> Counter:
    return Counter(a["type"] for r in rounds for a in r["actions"] if a.get("shown"))


@pytest.mark.parametrize(("ruleset", "options", "chips"), VARIANTS)
def test_full_match_with_chips(ruleset, options, chips):
    rng = random.Random(f"{ruleset}{options}{chips}")
    players = seated_players(3)
    before = {u.pk: wallet_balance(user=u) for u, _ in players}
    match_id = ActiveMatchFactory(
        players=[user for user, _ in players], ruleset=ruleset, options=options, **chips
    ).pk
    final = play_to_the_end(match_id, players, rng)

    assert final["status"] == "finished"
    assert final["winner_seats"]
    match = Match.objects.get(pk=match_id)
    # Every pot and stack is empty; the chips went back to wallets.
    assert (
        not Account.objects.filter(scope=stakes.match_scope(match.pk)).exclude(balance=0).exists()
    )
    pots = Account.objects.filter(
        scope=stakes.match_scope(match.pk), kind__in=[AccountKind.ROUND_POT, AccountKind.GAME_POT]
    )
    assert pots.count() == 2

    # Each wallet changed by exactly what the rules make of the rounds played.
    rounds = players[0][1].get(f"{MATCHES}{match_id}/rounds/").json()["rounds"]
    assert [r["number"] for r in rounds] == list(range(1, len(rounds) + 1))
    stacks, moves_by_round = _expected_stacks(rounds, len(players), final, **chips)
    for record, expected in zip(rounds, moves_by_round, strict=True):
        listed = sorted((m["from"], m["to"], m["amount"], m["kind"]) for m in record["chips"])
        assert listed == expected, record["number"]
    seat_of = {s["player"]["id"]: s["seat"] for s in final["seats"]}
    after = {u.pk: wallet_balance(user=u) for u, _ in players}
    changes = {user_id: after[user_id] - before[user_id] for user_id in after}
    assert changes == {user_id: stacks[seat_of[user_id]] - chips["buy_in"] for user_id in after}
    assert sum(changes.values()) == 0

    # The test client really shows dice when the rules allow it, at either timing.
    shows = _shows(rounds)
    timing = match.rules.get("show_and_reroll", "off")
    if match.family == "poker_dice" or timing == "off":
        assert not shows
    elif timing == "after_reroll":
        assert shows["show_reroll"] > 0 and shows["bid"] == 0
    else:
        assert shows["bid"] > 0 and shows["show_reroll"] == 0

    # Events are gapless.
    seqs = list(
        MatchEvent.objects.filter(match=match).order_by("seq").values_list("seq", flat=True)
    )
    assert seqs == list(range(1, len(seqs) + 1))
    call_command("ledger_check")


def test_a_perudo_match_records_its_palifico_rounds():
    """RULES 1.10 through the API: palifico rounds are marked in the round records and the
    events, keep one face from the opening bid, and follow a first drop to one die."""
    rng = random.Random("perudo palifico")
    players = seated_players(3)
    match_id = ActiveMatchFactory(
        players=[user for user, _ in players], ruleset="perudo", **CHIPS
    ).pk
    final = play_to_the_end(match_id, players, rng)
    assert final["status"] == "finished"
    rounds = players[0][1].get(f"{MATCHES}{match_id}/rounds/").json()["rounds"]
    palifico = [r for r in rounds if r.get("palifico")]
    assert palifico, "three players of five dice each reach one die at least once"
    for record in palifico:
        faces = {a["face"] for a in record["actions"] if a["type"] == "bid"}
        assert len(faces) == 1, record
    started = MatchEvent.objects.filter(match_id=match_id, type="round_started")
    marked = sorted(e.data["number"] for e in started if e.data.get("palifico"))
    assert marked == [r["number"] for r in palifico]
    # No round opens on aces outside palifico.
    for record in rounds:
        opening = next(a for a in record["actions"] if a["type"] == "bid")
        assert record.get("palifico") or opening["face"] != 1
    call_command("ledger_check")
