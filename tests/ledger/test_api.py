"""GET /api/v1/me/transactions/ (API.md)."""

import pytest

from accounts.services import user_register
from games import stakes
from games.models import Match, Seat
from ledger import services
from ledger.models import Transfer
from ledger.selectors import wallet_balance
from tests.conftest import client_for
from tests.factories import LobbyFactory
from tests.ledger.conftest import funded_user
from tests.problems import assert_problem

pytestmark = pytest.mark.django_db

URL = "/api/v1/me/transactions/"


def test_register_then_history_shows_the_signup_grant(api_client):
    response = api_client.post(
        "/api/v1/auth/register/",
        {"username": "rookie", "password": "a-long-pass-phrase-42"},
        format="json",
    )
    assert response.status_code == 201
    api_client.credentials(HTTP_AUTHORIZATION=f"Bearer {response.json()['token']}")
    assert api_client.get("/api/v1/me/").json()["chips"] == 1000
    body = api_client.get(URL).json()
    assert body["next"] is None
    [entry] = body["results"]
    assert entry["kind"] == "signup_grant"
    assert entry["amount"] == 1000 and entry["balance_after"] == 1000
    assert entry["counterparty_kind"] == "issuer"  # minted for people, not the bankroll
    assert entry["match_id"] is None and entry["reason"] == ""


def test_entries_are_signed_newest_first_with_match_and_round():
    players = [funded_user(200) for _ in range(2)]
    match = LobbyFactory(players=players, buy_in=50, ante=3)
    seats = list(match.seats.order_by("seat"))
    stakes.buy_ins(seats=seats, amount=50)
    stakes.ante_round(match=match, round_number=1, seats=seats, ante=3)
    stakes.round_pot_payout(match=match, round_number=1, seat=seats[0])
    stakes.match_cash_out(match=match)
    results = client_for(players[0]).get(URL).json()["results"]
    assert [(r["kind"], r["amount"], r["balance_after"]) for r in results] == [
        ("cash_out", 50 - 6 + 6, 150 + 50),
        ("buy_in", -50, 150),
        ("signup_grant", 200, 200),
    ]
    assert results[1]["match_id"] == match.pk
    assert results[1]["counterparty_kind"] == "stack"


def test_cursor_pagination_walks_every_entry_once_and_only_mine():
    me, other = funded_user(500), funded_user(500)
    mine, theirs = services.wallet_for(me), services.wallet_for(other)
    for n in range(7):
        services.transfer(
            debit=mine, credit=theirs, amount=n + 1, kind="refund", idempotency_key=f"p{n}"
        )
    services.transfer(
        debit=theirs,
        credit=services.house_account(),
        amount=1,
        kind="refund",
        idempotency_key="not-mine",
    )
    client = client_for(me)
    seen, url = [], URL + "?page_size=3"
    while url:
        body = client.get(url).json()
        seen.extend(r["id"] for r in body["results"])
        url = body["next"]
    assert len(seen) == 8 == len(set(seen))
    assert seen == sorted(seen, reverse=True)


def test_a_user_without_a_wallet_sees_an_empty_list(auth_client):
    assert auth_client.get(URL).json()["results"] == []


def test_anonymous_is_refused_as_problem_json(api_client):
    response = api_client.get(URL)
    assert response.status_code == 401
    assert response["Content-Type"] == "application/problem+json"
    assert response.json()["code"] == "not_authenticated"


def test_insufficient_chips_is_a_problem_with_its_code():
    user = funded_user(40)
    counts = (Match.objects.count(), Seat.objects.count(), Transfer.objects.count())
    response = client_for(user).post(
        "/api/v1/matches/",
        {"ruleset": "milton_bradley", "max_players": 2, "turn_seconds": 60, "buy_in": 41},
        format="json",
    )
    body = assert_problem(response, 409, "insufficient_chips")
    assert "41" in body["detail"]
    assert (Match.objects.count(), Seat.objects.count(), Transfer.objects.count()) == counts
    assert wallet_balance(user=user) == 40


def test_schema_documents_the_endpoint(api_client):
    user, _, _ = user_register(username="schemer", password="a-long-pass-phrase-42")
    schema = client_for(user).get("/api/v1/schema/?format=json").json()
    operation = schema["paths"][URL]["get"]
    assert operation["tags"] == ["ledger"]


@pytest.mark.parametrize(
    "query",
    [
        "page_size=0",
        "page_size=201",
        "page_size=x",
        "page_size=null&page_size=null",
        "page_size=-1",
    ],
)
def test_bad_page_size_is_a_validation_problem(auth_client, query):
    response = auth_client.get(f"{URL}?{query}")
    assert response.status_code == 400
    assert response.json()["code"] == "validation_error"
