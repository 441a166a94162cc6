"""core.prebuilt: hand-written reads give the same instances the ORM gives; hand-written
writes store the same rows the ORM stores, together in one round trip."""

from datetime import timedelta

import pytest
from django.db import IntegrityError, connection, transaction
from django.db.transaction import TransactionManagementError
from django.test.utils import CaptureQueriesContext

from accounts.authentication import TOKEN_WITH_USER
from accounts.models import AccountEventCounter, ApiToken
from accounts.services import token_create
from core.prebuilt import PrebuiltInsert, PrebuiltSelect, PrebuiltUpdate, Writes
from games.models import Match, MatchEvent, Seat
from games.selectors import match_get, seats_with_players
from games.services.locks import match_lock
from games.services.play import PLAY_FIELDS, seats_for_play
from ledger.models import Account, AccountKind
from tests.factories import ActiveMatchFactory, PlayerFactory
from tests.games.helpers import seated_players

pytestmark = pytest.mark.django_db


def fields_of(instance) -> dict:
    return {f.attname: getattr(instance, f.attname) for f in instance._meta.concrete_fields}


def test_a_token_and_its_user_equal_the_orm_ones_in_one_query():
    user = PlayerFactory()
    token, _raw = token_create(user=user, name="bot")
    with CaptureQueriesContext(connection) as queries:
        loaded = TOKEN_WITH_USER.one([token.key_hash])
        loaded_user = loaded.user
    assert len(queries) == 1
    expected = ApiToken.objects.select_related("user").get(pk=token.pk)
    assert fields_of(loaded) == fields_of(expected)
    assert fields_of(loaded_user) == fields_of(expected.user)
    assert loaded._state.adding is False and loaded._state.db == "default"
    assert TOKEN_WITH_USER.one(["0" * 64]) is None


def test_json_and_datetime_fields_come_back_as_the_orm_reads_them():
    players = seated_players(2)
    match_id = ActiveMatchFactory(
        players=[user for user, _ in players], ruleset="milton_bradley"
    ).pk
    user = players[0][0]
    loaded = match_get(match_id=match_id, user=user)
    expected = Match.objects.select_related("created_by").get(pk=match_id)
    assert isinstance(loaded.state, dict) and isinstance(loaded.rules, dict)
    assert fields_of(loaded) == fields_of(expected)
    assert loaded.created_by == expected.created_by
    assert loaded.started_at is not None and loaded.started_at.tzinfo is not None


def test_many_rows_in_order_with_annotations():
    players = seated_players(3)
    match_id = ActiveMatchFactory(
        players=[user for user, _ in players], ruleset="milton_bradley"
    ).pk
    match = Match.objects.get(pk=match_id)
    players[1][0].webhooks.create(url="https://example.com/hook", encrypted_secret="x")
    expected = list(Seat.objects.filter(match=match).select_related("player").order_by("seat"))
    for loaded in (seats_with_players(match), seats_for_play(match)):
        assert [fields_of(s) for s in loaded] == [fields_of(s) for s in expected]
        assert [s.player.username for s in loaded] == [s.player.username for s in expected]
    assert [s.has_webhook for s in seats_for_play(match)] == [False, True, False]


def test_a_nullable_key_joins_left_and_gives_none():
    user = PlayerFactory()
    with_user = PrebuiltSelect(Account, "WHERE m.id = %s", related="user")
    wallet = Account.objects.get(kind=AccountKind.WALLET, user=user)
    assert with_user.one([wallet.pk]).user == user
    house, _ = Account.objects.get_or_create(kind=AccountKind.HOUSE)
    loaded = with_user.one([house.pk])
    assert loaded.user is None and loaded.pk == house.pk


@pytest.mark.django_db(transaction=True)
def test_a_lock_outside_a_transaction_is_refused_as_select_for_update_is():
    match_id = ActiveMatchFactory(
        players=[user for user, _ in seated_players(2)], ruleset="classic"
    ).pk
    with pytest.raises(TransactionManagementError):
        match_lock(match_id)


def test_inserts_and_an_update_run_together_and_store_what_the_orm_stores():
    players = seated_players(2)
    match = ActiveMatchFactory(players=[user for user, _ in players], ruleset="milton_bradley")
    last = match.events.order_by("-seq").first().seq
    quoted = {"type": "note", "text": "100% 'quoted' \\ %s; DROP", "n": [1, None]}
    rows = [
        MatchEvent(match=match, seq=last + 1, type="note", data=quoted),
        MatchEvent(match=match, seq=last + 2, type="note", data={"nested": {"a": 1}}),
    ]
    match.state = {**match.state, "extra": "50% ; done"}
    match.turn_deadline = match.started_at + timedelta(seconds=90)
    match.version += 1
    writes = Writes()
    writes.add(PrebuiltInsert(MatchEvent).statement(rows))
    writes.add(PrebuiltUpdate(Match, PLAY_FIELDS).statement(match))
    with transaction.atomic(), CaptureQueriesContext(connection) as queries:
        writes.run()
    assert len(queries) == 1
    assert writes.statements == []
    stored = list(MatchEvent.objects.filter(match=match, seq__gt=last).order_by("seq"))
    assert [(e.seq, e.type, e.data) for e in stored] == [
        (last + 1, "note", quoted),
        (last + 2, "note", {"nested": {"a": 1}}),
    ]
    assert stored[0].created_at == rows[0].created_at
    assert fields_of(Match.objects.get(pk=match.pk)) == fields_of(match)


def test_a_failing_statement_fails_the_run_and_its_transaction():
    players = seated_players(2)
    match = ActiveMatchFactory(players=[user for user, _ in players], ruleset="milton_bradley")
    version = match.version
    last = match.events.order_by("-seq").first().seq
    match.version += 1
    writes = Writes()
    writes.add(PrebuiltUpdate(Match, ["version"]).statement(match))
    # The log's gapless constraint refuses a second event with the same number.
    writes.add(
        PrebuiltInsert(MatchEvent).statement(
            [MatchEvent(match=match, seq=last, type="note", data={})]
        )
    )
    with pytest.raises(IntegrityError), transaction.atomic():
        writes.run()
    assert Match.objects.get(pk=match.pk).version == version


def test_writes_it_cannot_build_right_are_refused():
    with pytest.raises(ValueError):
        PrebuiltInsert(MatchEvent).statement([])
    # The counter's key is the user's: the database does not make it.
    with pytest.raises(ValueError):
        PrebuiltInsert(AccountEventCounter).statement([AccountEventCounter(user_id=1)])
