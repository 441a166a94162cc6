"""The match factories build each state through the services, as play reaches it."""

import pytest

from games.models import Match, MatchEvent, RoundRecord
from ledger.selectors import ledger_problems, wallet_balance
from tests.factories import (
    AbortedMatchFactory,
    ActiveMatchFactory,
    FinishedMatchFactory,
    LobbyFactory,
    PlayerFactory,
    SeatFactory,
    fund_house,
    people_at,
)

pytestmark = pytest.mark.django_db


def _event_types(match: Match) -> list[str]:
    return list(
        MatchEvent.objects.filter(match=match).order_by("seq").values_list("type", flat=True)
    )


def test_a_lobby_is_open_with_a_seat_free():
    ann, bob = PlayerFactory(), PlayerFactory()
    fund_house(20)
    match = LobbyFactory(players=[ann, bob], bots=["hard"], buy_in=20)
    assert match.status == Match.Status.OPEN and match.state is None
    assert match.max_players == 4 and match.created_by == ann
    seats = list(match.seats.order_by("seat").values_list("player__username", flat=True))
    assert seats[0] == ann.username and seats[2] == bob.username  # the bot sits at 1
    assert people_at(match) == [ann, bob]
    assert wallet_balance(user=ann) == 1000  # no buy-in before the start
    assert _event_types(match) == ["match_created"] + ["player_joined"] * 3


def test_a_private_lobby_is_joined_by_its_invite_code():
    match = LobbyFactory(players=2, private=True)
    assert match.private and match.invite_code and match.status == Match.Status.OPEN
    assert match.seats.count() == 2


def test_an_active_match_is_at_its_first_turn_with_buy_ins_taken():
    fund_house(30)
    match = ActiveMatchFactory(ruleset="perudo", players=3, bots=["expert"], buy_in=30, ante=1)
    assert match.status == Match.Status.ACTIVE and match.ruleset == "perudo"
    assert match.seats.count() == match.max_players == 4
    assert match.state["version"] == 0 and match.turn_seat is not None
    assert [wallet_balance(user=p) for p in people_at(match)] == [970] * 3
    assert ledger_problems() == []


def test_the_creator_starts_a_table_with_seats_to_spare():
    match = ActiveMatchFactory(players=2, max_players=4)
    assert match.status == Match.Status.ACTIVE and match.seats.count() == 2


def test_a_finished_match_was_played_round_by_round():
    fund_house(20)
    match = FinishedMatchFactory(
        players=2, bots=["hard"], buy_in=20, ante=1, options={"dice_per_player": 2}
    )
    assert match.status == Match.Status.FINISHED and match.winner_seats
    assert RoundRecord.objects.filter(match=match).count() >= 2
    assert _event_types(match)[-1] == "match_finished"
    assert ledger_problems() == []


def test_an_aborted_match_gave_every_chip_back():
    match = AbortedMatchFactory(players=2, buy_in=50, ante=2)
    assert match.status == Match.Status.ABORTED
    assert [wallet_balance(user=p) for p in people_at(match)] == [1000, 1000]
    assert _event_types(match)[-1] == "match_aborted"


def test_seats_are_taken_by_joining_and_the_last_one_starts_the_match():
    lobby = LobbyFactory(players=1, max_players=3)
    bot = SeatFactory(match=lobby, bot="random")
    assert bot.player.bot_strategy == "random" and bot.match_id == lobby.pk
    last = SeatFactory(match=lobby)
    assert Match.objects.get(pk=lobby.pk).status == Match.Status.ACTIVE
    assert last.player in people_at(lobby)
