import random

import pytest
from django.core.management import call_command

from games.models import Match, MatchEvent
from ledger.models import Account, AccountKind
from ledger.selectors import wallet_balance
from tests.games.helpers import create_and_fill, play_to_the_end, seated_players

pytestmark = pytest.mark.django_db

VARIANTS = [
    ("milton_bradley", {}),
    ("wild_ones", {}),
    ("roll_off", {}),
    ("classic", {}),
    ("poker_dice", {}),
    ("classic", {"exact_call": True}),
    ("classic", {"pass_call": True}),
    ("milton_bradley", {"show_and_reroll": "before_raise"}),
    ("milton_bradley", {"loss": "one"}),
    ("milton_bradley", {"next_opener": "round_loser"}),
]


@pytest.mark.parametrize(("ruleset", "options"), VARIANTS)
def test_full_match_with_chips(ruleset, options):
    rng = random.Random(f"{ruleset}{options}")
    players = seated_players(3)
    before = {u.pk: wallet_balance(user=u) for u, _ in players}
    match_id = create_and_fill(players, ruleset=ruleset, options=options, buy_in=50, ante=1)
    final = play_to_the_end(match_id, players, rng)

    assert final["status"] == "finished"
    assert final["winner_seats"]
    match = Match.objects.get(pk=match_id)
    # Every pot and stack is empty; the chips went back to wallets.
    assert not Account.objects.filter(match=match).exclude(balance=0).exists()
    pots = Account.objects.filter(
        match=match, kind__in=[AccountKind.ROUND_POT, AccountKind.GAME_POT]
    )
    assert pots.count() == 2
    after = {u.pk: wallet_balance(user=u) for u, _ in players}
    assert sum(after.values()) == sum(before.values())
    # The winners of a common-pool match took the game pot: nobody else gained.
    seat_of = {s["player"]["id"]: s["seat"] for s in final["seats"]}
    for user_id, balance in after.items():
        if seat_of[user_id] not in final["winner_seats"]:
            assert balance <= before[user_id]
    # Events are gapless.
    seqs = list(
        MatchEvent.objects.filter(match=match).order_by("seq").values_list("seq", flat=True)
    )
    assert seqs == list(range(1, len(seqs) + 1))
    call_command("ledger_check")
