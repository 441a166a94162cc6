"""The house stakes its bots from a finite bankroll (RULES.md 1.8): only `hard` and
`expert` play for chips, at most HOUSE_BOT_MAX_STAKE a seat, while the bankroll covers
it; every refusal is problem+json with its code and changes nothing. The faucet of issue
33 (a weak bot at a staked table, its stake minted) is replayed through the API."""

import random

import pytest
from django.core.management import call_command

from accounts.models import User
from games.models import Match, MatchEvent, Seat
from games.stakes import STAKED_STRATEGIES
from ledger.models import Account, AccountKind, Transfer, TransferKind
from ledger.selectors import circulation, house_balance, wallet_balance
from tests.conftest import client_for
from tests.factories import PlayerFactory, fund_house, play_match_out
from tests.games.helpers import MATCHES
from tests.problems import assert_problem
from tournaments.models import Entry, Tournament

pytestmark = pytest.mark.django_db

TOURNAMENTS = "/api/v1/tournaments/"
NOT_STAKED = ("random", "cautious", "easy", "medium")
SIT_AND_GO = {
    "name": "Heads-up",
    "format": "sit_and_go",
    "ruleset": "perudo",
    "turn_seconds": 30,
    "table_size": 2,
    "buy_in": 500,
    "bots_allowed": True,
}


def _table(**fields) -> dict:
    return {"ruleset": "classic", "max_players": 2, "turn_seconds": 60, "buy_in": 500, **fields}


def _everything() -> tuple:
    """Every row and balance a refusal could have changed."""
    return (
        sorted(Account.objects.values_list("id", "balance")),
        Transfer.objects.count(),
        Match.objects.count(),
        Seat.objects.count(),
        MatchEvent.objects.count(),
        Tournament.objects.count(),
        Entry.objects.count(),
        User.objects.count(),
    )


def _minted_for_people_and_staff() -> int:
    """What left the issuer as signup grants and staff adjustments: all it may mint."""
    allowed = Transfer.objects.filter(
        debit__kind=AccountKind.ISSUER, kind__in=[TransferKind.SIGNUP_GRANT, "adjustment"]
    )
    return sum(allowed.values_list("amount", flat=True))


def test_the_faucet_replayed_through_the_api_is_refused_at_every_staked_table():
    """Six staked tables against the weak bots (three matches, three sit-and-gos), with a
    bankroll that could pay: each refused with `bot_not_staked`, nothing changed, and the
    issuer moved only by the signup grant and the funding."""
    fund_house(100_000)
    player = PlayerFactory()
    api = client_for(player)
    for attempt in range(3):
        strategy = NOT_STAKED[attempt % len(NOT_STAKED)]
        before = _everything()
        refused = api.post(MATCHES, _table(bots=[{"strategy": strategy}]), format="json")
        assert_problem(refused, 409, "bot_not_staked")
        assert _everything() == before, strategy

        tournament = api.post(TOURNAMENTS, SIT_AND_GO, format="json").json()
        url = f"{TOURNAMENTS}{tournament['id']}/"
        assert api.post(f"{url}register/", {}, format="json").status_code == 200
        before = _everything()
        refused = api.post(f"{url}bots/", {"strategy": strategy}, format="json")
        assert_problem(refused, 409, "bot_not_staked")
        assert _everything() == before, strategy
        assert api.post(f"{url}unregister/", {}, format="json").status_code == 200
    assert wallet_balance(user=player) == 1000  # every entry refunded, nothing won
    assert house_balance() == 100_000
    assert circulation() == _minted_for_people_and_staff() == 101_000
    call_command("ledger_check")


@pytest.mark.parametrize("strategy", NOT_STAKED)
def test_a_weak_bot_never_sits_down_where_there_is_a_buy_in(strategy):
    """Created with the table, added to an open staked table, entered in a tournament
    with a buy-in: `bot_not_staked` each time; at a free table it sits down."""
    fund_house(10_000)
    creator = PlayerFactory()
    api = client_for(creator)
    before = _everything()
    assert_problem(
        api.post(MATCHES, _table(bots=[{"strategy": strategy}]), format="json"),
        409,
        "bot_not_staked",
    )
    assert _everything() == before
    lobby = api.post(MATCHES, _table(max_players=3, buy_in=20), format="json").json()
    before = _everything()
    body = assert_problem(
        api.post(f"{MATCHES}{lobby['id']}/bots/", {"strategy": strategy}, format="json"),
        409,
        "bot_not_staked",
    )
    assert "hard and expert" in body["detail"]
    assert _everything() == before
    free = api.post(MATCHES, _table(buy_in=0, bots=[{"strategy": strategy}]), format="json")
    assert free.status_code == 201 and free.json()["status"] == "active"


@pytest.mark.parametrize("strategy", STAKED_STRATEGIES)
def test_a_staked_bot_plays_on_the_bankroll_and_its_chips_go_back_to_the_house(strategy):
    fund_house(1000)
    creator = PlayerFactory()
    response = client_for(creator).post(
        MATCHES,
        _table(buy_in=400, ante=2, bots=[{"strategy": strategy}], options={"dice_per_player": 2}),
        format="json",
    )
    assert response.status_code == 201, response.content
    assert response.json()["status"] == "active"
    bot_stake = Transfer.objects.get(kind=TransferKind.BUY_IN, credit__user__bot_strategy=strategy)
    assert bot_stake.debit.kind == AccountKind.HOUSE and bot_stake.amount == 400
    assert house_balance() == 600
    match = Match.objects.get(pk=response.json()["id"])
    play_match_out(match, random.Random(7))
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED
    # Whatever the bot won or lost, its stack went back to the house, and the person's
    # to their wallet: the two end where they began, less or plus the other's loss.
    assert house_balance() + wallet_balance(user=creator) == 1000 + 1000
    cash_out = Transfer.objects.get(kind=TransferKind.CASH_OUT, debit__user__bot_strategy=strategy)
    assert cash_out.credit.kind == AccountKind.HOUSE
    assert circulation() == _minted_for_people_and_staff() == 2000
    call_command("ledger_check")


def test_a_bankroll_short_of_the_stake_refuses_the_bot_and_changes_nothing():
    fund_house(499)
    api = client_for(PlayerFactory())
    before = _everything()
    body = assert_problem(
        api.post(MATCHES, _table(bots=[{"strategy": "expert"}]), format="json"),
        409,
        "house_bankroll_insufficient",
    )
    assert "499" not in body["detail"]  # the bankroll's size is not told
    assert _everything() == before
    # One bot covered, the second not: the house owes the table both buy-ins.
    lobby = api.post(MATCHES, _table(max_players=4, buy_in=300), format="json").json()
    bots = f"{MATCHES}{lobby['id']}/bots/"
    assert api.post(bots, {"strategy": "hard"}, format="json").status_code == 201
    before = _everything()
    assert_problem(
        api.post(bots, {"strategy": "hard"}, format="json"), 409, "house_bankroll_insufficient"
    )
    assert _everything() == before
    assert house_balance() == 499  # nothing is taken before the start


def test_a_tournament_bot_is_staked_from_the_bankroll_or_refused():
    api = client_for(PlayerFactory())
    tournament = api.post(TOURNAMENTS, SIT_AND_GO, format="json").json()
    url = f"{TOURNAMENTS}{tournament['id']}/"
    api.post(f"{url}register/", {}, format="json")
    fund_house(499)
    before = _everything()
    assert_problem(
        api.post(f"{url}bots/", {"strategy": "expert"}, format="json"),
        409,
        "house_bankroll_insufficient",
    )
    assert _everything() == before
    fund_house(1)
    entered = api.post(f"{url}bots/", {"strategy": "expert"}, format="json")
    assert entered.status_code == 200, entered.content
    assert house_balance() == 0
    entry_pay = Transfer.objects.get(kind=TransferKind.ENTRY, debit__kind=AccountKind.HOUSE)
    assert entry_pay.amount == 500
    call_command("ledger_check")


def test_one_bot_seat_is_staked_at_most_house_bot_max_stake(settings):
    settings.HOUSE_BOT_MAX_STAKE = 300
    fund_house(10_000)
    api = client_for(PlayerFactory())
    before = _everything()
    body = assert_problem(
        api.post(MATCHES, _table(buy_in=301, bots=[{"strategy": "hard"}]), format="json"),
        409,
        "bot_stake_too_high",
    )
    assert "300" in body["detail"]
    tournament = api.post(TOURNAMENTS, {**SIT_AND_GO, "buy_in": 301}, format="json").json()
    url = f"{TOURNAMENTS}{tournament['id']}/"
    api.post(f"{url}register/", {}, format="json")
    before = _everything()
    assert_problem(
        api.post(f"{url}bots/", {"strategy": "hard"}, format="json"), 409, "bot_stake_too_high"
    )
    assert _everything() == before
    ok = api.post(MATCHES, _table(buy_in=300, bots=[{"strategy": "hard"}]), format="json")
    assert ok.status_code == 201, ok.content


def test_a_bot_the_bankroll_no_longer_covers_at_the_start_leaves_the_table():
    """Seated while the bankroll covered it, spent elsewhere since: when the table fills
    the bot leaves (`player_left`, reason `house_bankroll_insufficient`) and the table
    waits, as a person short of chips does."""
    staff = fund_house(200)
    creator, joiner = PlayerFactory(), PlayerFactory()
    lobby = client_for(creator).post(
        MATCHES, _table(max_players=3, buy_in=200, bots=[{"strategy": "hard"}]), format="json"
    )
    match_id = lobby.json()["id"]
    fund_house(-150, by=staff)  # drawn down by a moderator
    joined = client_for(joiner).post(f"{MATCHES}{match_id}/join/", {}, format="json")
    assert joined.status_code == 200, joined.content
    assert joined.json()["status"] == "open"
    assert [s["player"]["is_bot"] for s in joined.json()["seats"]] == [False, False]
    left = MatchEvent.objects.filter(match_id=match_id, type="player_left").get()
    assert left.data["reason"] == "house_bankroll_insufficient"
    assert house_balance() == 50 and not Transfer.objects.filter(kind=TransferKind.BUY_IN)


def test_a_weak_bot_seated_before_the_rule_leaves_a_staked_table_at_the_start():
    """A bot the house never stakes, seated at a staked table before that rule (written
    here straight to the database, as old rows are), leaves when the table fills
    (`player_left`, reason `bot_not_staked`): the house pays no stake for it."""
    from games.services.bot_players import server_bot

    fund_house(1_000)
    creator, joiner = PlayerFactory(), PlayerFactory()
    lobby = client_for(creator).post(MATCHES, _table(max_players=3, buy_in=100), format="json")
    match_id = lobby.json()["id"]
    Seat.objects.create(match_id=match_id, seat=1, player=server_bot("random"))
    joined = client_for(joiner).post(f"{MATCHES}{match_id}/join/", {}, format="json")
    assert joined.status_code == 200, joined.content
    assert joined.json()["status"] == "open"
    assert [s["player"]["is_bot"] for s in joined.json()["seats"]] == [False, False]
    left = MatchEvent.objects.filter(match_id=match_id, type="player_left").get()
    assert left.data["reason"] == "bot_not_staked"
    assert house_balance() == 1_000 and not Transfer.objects.filter(kind=TransferKind.BUY_IN)


def test_starting_with_a_bot_the_bankroll_no_longer_covers_names_the_bankroll():
    """The creator starts a table of himself and a bot the bankroll can no longer stake:
    refused with the bankroll's own code (not `not_enough_players`: he can pay), and
    nothing changes."""
    staff = fund_house(200)
    creator = PlayerFactory()
    client = client_for(creator)
    lobby = client.post(
        MATCHES, _table(max_players=3, buy_in=200, bots=[{"strategy": "hard"}]), format="json"
    )
    match_id = lobby.json()["id"]
    fund_house(-150, by=staff)
    started = client.post(f"{MATCHES}{match_id}/start/", {}, format="json")
    assert_problem(started, 409, "house_bankroll_insufficient")
    assert "200" in started.json()["detail"] and "50" not in started.json()["detail"]
    match = Match.objects.get(pk=match_id)
    assert match.status == Match.Status.OPEN and match.seats.count() == 2
    assert not MatchEvent.objects.filter(match_id=match_id, type="player_left").exists()
    assert house_balance() == 50
