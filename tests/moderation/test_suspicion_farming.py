"""The suspicion report against issue 33's attacks: one winner over many one-game
accounts (no pair of them frequent), and chips dumped through tournaments (the ledger's
tournament scopes, not only its match scopes)."""

import random

import pytest
from django.urls import reverse

from games.models import Match
from games.services.resign import match_resign
from ledger.selectors import wallet_balance
from moderation.selectors import suspicion_report
from tests.conftest import client_for
from tests.factories import FinishedMatchFactory, PlayerFactory
from tests.games.helpers import farm_a_fresh_account
from tests.moderation.conftest import assert_ledger_clean
from tournaments.models import Tournament
from tournaments.services import (
    tournament_advance,
    tournament_create,
    tournament_register,
    tournament_start,
)

pytestmark = pytest.mark.django_db

REPORT = "admin:moderation_suspicionreport_changelist"


def _section(html: str, section: str) -> str:
    return html.split(f'id="{section}"')[1].split('<div class="module"')[0]


def test_the_report_names_one_winner_over_many_one_game_accounts(mod_client):
    farmer, other = PlayerFactory(), PlayerFactory()
    farmer_client = client_for(farmer)
    rng = random.Random(7)
    victims = [farm_a_fresh_account(farmer_client, rng)[0] for _ in range(10)]
    for _ in range(4):  # below the report's five new accounts
        farm_a_fresh_account(client_for(other), rng)
    # A victim who played on is no new account any more (three finished matches).
    veteran = victims.pop()
    for _ in range(2):
        FinishedMatchFactory(players=[veteran, PlayerFactory()], resigned=[veteran])

    # New: at most two finished matches (the default reaches just past establishment).
    report = suspicion_report(new_account_matches=2)
    assert report.win_farming == []  # no pair met three times: the old report saw nothing
    [farm] = report.new_account_farming
    assert farm.winner == farmer
    assert farm.new_accounts == victims
    assert (farm.matches, farm.chips) == (9, 0)

    assert suspicion_report(min_new_accounts=10, new_account_matches=2).new_account_farming == []
    assert len(suspicion_report(new_account_matches=3).new_account_farming[0].new_accounts) == 10
    assert len(suspicion_report().new_account_farming[0].new_accounts) == 10
    html = mod_client.get(reverse(REPORT), {"new_account_matches": 2}).content.decode()
    section = _section(html, "new-account-farming")
    assert farmer.username in section and victims[0].username in section
    assert other.username not in section and veteran.username not in section


def _sit_and_go(creator, loser, winner) -> Tournament:
    """A 2-seat sit-and-go of `loser` and `winner` at 100 chips, which `loser` resigns."""
    tournament = tournament_create(
        user=creator,
        name="Heads-up",
        format=Tournament.Format.SIT_AND_GO,
        ruleset="classic",
        turn_seconds=30,
        table_size=2,
        buy_in=100,
    )
    for user in (loser, winner):
        tournament_register(tournament_id=tournament.pk, user=user)
    assert tournament_start(tournament_id=tournament.pk)
    table = Match.objects.get(tournament_table__stage__tournament=tournament)
    match_resign(match_id=table.pk, user=loser)
    assert tournament_advance(tournament_id=tournament.pk)
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.FINISHED
    return tournament


def test_the_report_finds_chips_dumped_through_tournaments(mod_client):
    dumper, receiver = PlayerFactory(), PlayerFactory()
    for _ in range(3):
        _sit_and_go(dumper, dumper, receiver)
    assert wallet_balance(user=receiver) - wallet_balance(user=dumper) == 600

    report = suspicion_report()
    assert report.scopes == 3
    [flow] = report.dumping
    assert (flow.a, flow.b) == (dumper, receiver)
    assert (flow.a_to_b, flow.b_to_a, flow.together) == (300, 0, 3)
    assert flow.kinds == {"tournament": 3}
    html = mod_client.get(reverse(REPORT)).content.decode()
    section = _section(html, "chip-dumping")
    assert dumper.username in section and "3 tournament" in section
    assert_ledger_clean()
