"""The match page a moderator reads: the outcome first, players by name with the bot
mark as it was when they played, rounds as tables of revealed dice and named actions."""

import importlib
import re

import pytest
from django.db import connection
from django.urls import reverse

from accounts.models import User
from games.models import Match, MatchEvent, RoundRecord, Seat
from ledger.selectors import wallet_balance
from tests.conftest import client_for
from tests.factories import FinishedMatchFactory, PlayerFactory, fund_house, people_at

pytestmark = pytest.mark.django_db


def _section(html: str, section_id: str) -> str:
    start = html.index(f'id="{section_id}"')
    return html[start : html.index('<div class="module"', start + 1)]


def test_the_match_page_names_players_reveals_dice_and_leads_with_the_outcome(mod_client):
    fund_house(20)
    match = FinishedMatchFactory(players=2, bots=["hard"], buy_in=20, ante=1)
    match_id, humans = match.pk, people_at(match)
    bot = match.seats.exclude(player__bot_strategy="").get().player
    # After the match a human declares their account a bot: they still played as a human.
    converted = humans[1]
    assert (
        client_for(converted).patch("/api/v1/me/", {"is_bot": True}, format="json").status_code
        == 200
    )

    response = mod_client.get(reverse("admin:games_match_change", args=[match_id]))
    html = response.content.decode()
    # The outcome comes before the rounds, the rounds before the event log.
    assert html.index('id="match-result"') < html.index('id="match-rounds"')
    assert html.index('id="match-rounds"') < html.index('id="match-events"')
    winners = [match.seats.get(seat=n).player.username for n in match.winner_seats]
    assert f"Won by {winners[0]}" in html

    # Each seat's chips: humans' net equals their wallet's change; the table nets zero.
    results = {r.seat.player_id: r for r in response.context["seat_results"]}
    for human in humans:
        assert results[human.pk].net == wallet_balance(user=human) - 1000
        assert results[human.pk].put_in == 20
    assert sum(r.net for r in results.values()) == 0

    result = _section(html, "match-result")
    assert f"{bot.username} (bot)" in result
    assert f"{converted.username} (bot)" not in result and converted.username in result

    rounds = _section(html, "match-rounds")
    assert "{&#x27;" not in rounds and "{'" not in rounds  # no Python dict text
    records = list(RoundRecord.objects.filter(match_id=match_id).order_by("number"))
    assert len(re.findall(r'<tr class="round">', rounds)) == len(records)
    first = records[0].record
    for seat, dice in first["dice"].items():
        name = match.seats.get(seat=int(seat)).player.username
        assert re.search(
            rf"{re.escape(name)}(?: \(bot\))?</td><td class=\"dice\">"
            rf"{' '.join(map(str, dice))}</td>",
            rounds,
        )
    bid = next(a for a in first["actions"] if a["type"] == "bid")
    assert f"{bid['quantity']} × {bid['face']}" in rounds  # noqa: RUF001

    listing = mod_client.get(reverse("admin:games_match_changelist") + f"?q={match_id}")
    row = listing.content.decode()
    assert f"{bot.username} (bot)" in row and f"{converted.username} (bot)" not in row


def test_the_seat_records_the_bot_flag_when_the_match_starts():
    declared = PlayerFactory()
    creator = PlayerFactory()
    created = (
        client_for(creator)
        .post(
            "/api/v1/matches/",
            {"ruleset": "classic", "max_players": 2, "turn_seconds": 60},
            format="json",
        )
        .json()
    )
    bot_client = client_for(declared)
    assert bot_client.patch("/api/v1/me/", {"is_bot": True}, format="json").status_code == 200
    assert (
        bot_client.post(f"/api/v1/matches/{created['id']}/join/", {}, format="json").status_code
        == 200
    )
    # A bot never turns back through the API; the seat keeps what it was anyway.
    assert (
        client_for(declared).patch("/api/v1/me/", {"is_bot": False}, format="json").status_code
        == 409
    )
    User.objects.filter(pk=declared.pk).update(is_bot=False)
    seats = {s.player_id: s.played_as_bot for s in Seat.objects.filter(match_id=created["id"])}
    assert seats == {creator.pk: False, declared.pk: True}


def test_the_migration_backfills_the_flag_from_the_match_log():
    migration = importlib.import_module("games.migrations.0010_seat_played_as_bot")
    was_bot, stayed_human, lobby_bot = PlayerFactory(), PlayerFactory(), PlayerFactory()
    started = Match.objects.create(
        ruleset="classic",
        family="common_pool",
        rules={},
        created_by=was_bot,
        max_players=2,
        turn_seconds=60,
        status="active",
    )
    for n, p in enumerate((was_bot, stayed_human)):
        Seat.objects.create(match=started, seat=n, player=p)
    MatchEvent.objects.create(
        match=started,
        seq=1,
        type="match_started",
        data={
            "seats": [
                {"seat": 0, "player": {"id": was_bot.pk, "username": "x", "is_bot": True}},
                {"seat": 1, "player": {"id": stayed_human.pk, "username": "y", "is_bot": False}},
            ]
        },
    )
    lobby = Match.objects.create(
        ruleset="classic",
        family="common_pool",
        rules={},
        created_by=lobby_bot,
        max_players=2,
        turn_seconds=60,
    )
    Seat.objects.create(match=lobby, seat=0, player=lobby_bot)
    MatchEvent.objects.create(
        match=lobby,
        seq=1,
        type="player_joined",
        data={"seat": 0, "player": {"id": lobby_bot.pk, "username": "z", "is_bot": True}},
    )
    # Their flags today say the opposite of what they were.
    User.objects.filter(pk=stayed_human.pk).update(is_bot=True)
    with connection.cursor() as cursor:
        cursor.execute(migration.BACKFILL)
    flags = dict(Seat.objects.values_list("player_id", "played_as_bot"))
    assert flags == {was_bot.pk: True, stayed_human.pk: False, lobby_bot.pk: True}
