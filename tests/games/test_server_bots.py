"""The server's bots: no registration can take a bot's seat or its chips, and bots staked
by the house let any number of tables seat one bot at once."""

import random
import threading

import pytest
from django.core.management import call_command
from django.db import connection, transaction

from accounts.models import User
from games.engine.bots import LEVELS
from games.models import Match
from games.services.bot_players import STRATEGIES, server_bot
from ledger.models import Account, AccountKind, Transfer, TransferKind
from ledger.selectors import house_balance, wallet_balance
from ledger.services import signup_grant
from tests.conftest import client_for
from tests.factories import STRONG_PASSWORD, PlayerFactory, fund_house, play_match_out
from tests.games.helpers import MATCHES

REGISTER = "/api/v1/auth/register/"
BOTS = "/api/v1/bots/"


@pytest.mark.django_db
def test_the_bots_list_names_the_levels_weakest_first_then_the_other_strategies(api_client):
    response = api_client.get(BOTS)
    assert response.status_code == 200, response.content
    listed = response.json()
    assert [(b["strategy"], b["level"]) for b in listed] == [
        ("easy", 1),
        ("medium", 2),
        ("hard", 3),
        ("expert", 4),
        ("random", None),
        ("cautious", None),
    ]
    assert {b["strategy"] for b in listed} == set(STRATEGIES)
    assert all(b["description"] for b in listed)
    # The house stakes only its strongest bots where there is a buy-in.
    assert [b["strategy"] for b in listed if b["plays_for_chips"]] == ["hard", "expert"]


@pytest.mark.django_db
@pytest.mark.parametrize("ruleset", ["classic", "poker_dice"])
def test_every_level_is_seated_through_the_api_and_plays_a_match_out(ruleset):
    """Two levels seated with the new match, two by its `bots/` (the last fills the table
    and starts it); each bot then plays its own strategy to the end."""
    creator = PlayerFactory()
    api = client_for(creator)
    options = {"dice_per_player": 2} if ruleset == "classic" else {}
    response = api.post(
        MATCHES,
        {
            "ruleset": ruleset,
            "options": options,
            "max_players": 1 + len(LEVELS),
            "turn_seconds": 60,
            "bots": [{"strategy": s} for s in LEVELS[:2]],
        },
        format="json",
    )
    assert response.status_code == 201, response.content
    match_id = response.json()["id"]
    for strategy in LEVELS[2:]:
        seated = api.post(f"{MATCHES}{match_id}/bots/", {"strategy": strategy}, format="json")
        assert seated.status_code == 201, seated.content
    assert seated.json()["status"] == "active"
    match = Match.objects.get(pk=match_id)
    seats = match.seats.select_related("player").order_by("seat")
    assert [s.player.bot_strategy for s in seats][1:] == list(LEVELS)
    # The creator resigns: the four levels play on among themselves to a winner.
    assert api.post(f"{MATCHES}{match_id}/resign/", {}, format="json").status_code == 200
    play_match_out(match, random.Random(0))
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED


@pytest.mark.django_db
@pytest.mark.parametrize("name", ["bot-random-2", "BOT-CAUTIOUS-2", "Bot-expert", "bot_random"])
def test_registration_refuses_a_bot_name_in_any_case(api_client, name):
    response = api_client.post(
        REGISTER, {"username": name, "password": STRONG_PASSWORD}, format="json"
    )
    assert response.status_code == 400, response.content
    assert response.json()["errors"][0]["code"] == "username_reserved"
    assert not User.objects.filter(username__iexact=name).exists()


@pytest.mark.django_db
def test_an_account_named_like_a_bot_is_never_seated_as_one():
    """Accounts registered under bot names before the names were reserved."""
    squatters = [PlayerFactory(username=n) for n in ("bot-hard", "bot-hard-1", "bot-hard-2")]
    before = {s.pk: wallet_balance(user=s) for s in squatters}
    fund_house(300)  # the house stakes the three bots
    creator = PlayerFactory()
    response = client_for(creator).post(
        MATCHES,
        {
            "ruleset": "classic",
            "max_players": 5,
            "turn_seconds": 60,
            "buy_in": 100,
            "bots": [{"strategy": "hard"}] * 3,
        },
        format="json",
    )
    assert response.status_code == 201, response.content
    match = Match.objects.get(pk=response.json()["id"])
    bots = [s.player for s in match.seats.select_related("player") if s.seat > 0]
    assert len(bots) == 3
    assert all(b.bot_strategy == "hard" and not b.has_usable_password() for b in bots)
    assert not {b.pk for b in bots} & set(before)
    # Leaving the lobby would keep whatever the squatters were given: nothing is.
    assert {s.pk: wallet_balance(user=s) for s in squatters} == before


@pytest.mark.django_db
def test_a_case_variant_of_a_bot_name_does_not_break_bot_seating():
    PlayerFactory(username="BOT-CAUTIOUS-2")
    creator = PlayerFactory()
    response = client_for(creator).post(
        MATCHES,
        {
            "ruleset": "classic",
            "max_players": 4,
            "turn_seconds": 60,
            "bots": [{"strategy": "cautious"}] * 3,
        },
        format="json",
    )
    assert response.status_code == 201, response.content
    names = [s["player"]["username"] for s in response.json()["seats"]]
    assert len({n.lower() for n in names}) == 4
    assert "BOT-CAUTIOUS-2" not in names
    assert all(p["is_bot"] for p in (s["player"] for s in response.json()["seats"][1:]))


@pytest.mark.django_db
def test_bot_stakes_come_from_the_house_and_return_to_it():
    fund_house(80)
    creator = PlayerFactory()
    response = client_for(creator).post(
        MATCHES,
        {
            "ruleset": "classic",
            "max_players": 2,
            "turn_seconds": 60,
            "buy_in": 50,
            "bots": [{"strategy": "hard"}],
        },
        format="json",
    )
    assert response.status_code == 201, response.content
    bot = User.objects.get(pk=response.json()["seats"][1]["player"]["id"])
    buy_in = Transfer.objects.get(kind=TransferKind.BUY_IN, credit__user=bot)
    assert buy_in.debit.kind == AccountKind.HOUSE
    assert buy_in.amount == 50
    assert house_balance() == 30  # from the bankroll: nothing minted
    assert not Transfer.objects.filter(kind=TransferKind.HOUSE_FUNDING).exists()
    assert wallet_balance(user=bot) == 0
    assert not Account.objects.filter(kind=AccountKind.WALLET, user=bot, balance__gt=0).exists()


def _race(calls) -> list:
    barrier = threading.Barrier(len(calls))
    results: list = [None] * len(calls)

    def run(i, call):
        try:
            barrier.wait()
            results[i] = call()
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(i, c)) for i, c in enumerate(calls)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return results


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_ten_tables_started_at_once_against_one_bot_all_start():
    """Each table starts at once (two seats: the creator and the bot), so ten buy-ins for
    the same bot account race. A bot wallet holding two buy-ins (chips a bot once had)
    made eight of the ten fail with 409 insufficient_chips."""
    bot = server_bot("expert")
    signup_grant(user=bot, amount=800)
    fund_house(4000)  # the ten buy-ins, from the house's bankroll
    clients = [client_for(PlayerFactory()) for _ in range(10)]
    body = {
        "ruleset": "classic",
        "max_players": 2,
        "turn_seconds": 60,
        "buy_in": 400,
        "bots": [{"strategy": "expert"}],
    }
    responses = _race([lambda c=c: c.post(MATCHES, body, format="json") for c in clients])
    assert [r.status_code for r in responses] == [201] * 10, [r.content for r in responses]
    assert {r.json()["status"] for r in responses} == {"active"}
    assert {r.json()["seats"][1]["player"]["id"] for r in responses} == {bot.pk}
    assert wallet_balance(user=bot) == 800
    assert house_balance() == 0
    call_command("ledger_check")


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_first_bots_created_in_opposite_orders_do_not_deadlock():
    """Two tables seating their first-ever bots, one random then cautious, the other
    cautious then random: each transaction's new username waited on the other's in the
    unique index, and PostgreSQL killed one as a deadlock."""
    both_have_one = threading.Barrier(2)
    outcomes: list = [None, None]

    def seat_bots(index: int, strategies: tuple[str, str]) -> None:
        try:
            with transaction.atomic():
                first = server_bot(strategies[0])
                both_have_one.wait(timeout=30)
                second = server_bot(strategies[1])
            outcomes[index] = (first.bot_strategy, second.bot_strategy)
        except Exception as exc:  # the deadlock, reported by the assertion below
            outcomes[index] = exc
        finally:
            connection.close()

    threads = [
        threading.Thread(target=seat_bots, args=(0, ("random", "cautious"))),
        threading.Thread(target=seat_bots, args=(1, ("cautious", "random"))),
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert outcomes == [("random", "cautious"), ("cautious", "random")], outcomes
    bots = User.objects.filter(is_bot=True).exclude(bot_strategy="")
    assert {b.bot_strategy for b in bots} == {"random", "cautious"}
    assert all(b.username.startswith(f"bot-{b.bot_strategy}") for b in bots)
    # Later tables find the bots made by either.
    assert server_bot("random").bot_strategy == "random"
    assert User.objects.filter(is_bot=True).exclude(bot_strategy="").count() == len(bots)
