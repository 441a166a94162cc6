"""The client library's export verifier (`liarsdice.verify`) against the engine: matches
of every preset, and of the options that change a settlement or a commitment, played to
the end through the services, exported through the API, agree with the engine's replay
and pass the verifier; a tampered export is reported in the round that was changed."""

import copy
import random

import pytest
from liarsdice.verify import commitment, flat_rolls, verify

from games import engine, services
from games.dice_log import rolls_from_dice
from games.fairness import commitment as server_commitment
from games.models import Match
from tests.api.contract import Contract
from tests.conftest import client_for
from tests.factories import ActiveMatchFactory, FinishedMatchFactory, PlayerFactory
from tests.games.helpers import action_from_legal

pytestmark = [pytest.mark.django_db, pytest.mark.slow]

CASES = {
    "milton_bradley": ("milton_bradley", {}),
    "before_raise": ("milton_bradley", {"show_and_reroll": "before_raise"}),
    "wild_ones": ("wild_ones", {}),
    "wild_ones_named_opener": ("wild_ones", {"first_opener": "creator", "loss": "one"}),
    "roll_off": ("roll_off", {}),
    "classic": ("classic", {"exact_call": True, "pass_call": True}),
    "classic_wild": ("classic", {"ones_wild": True, "ones_bids": "forbidden"}),
    "perudo": ("perudo", {}),
    "poker_dice": ("poker_dice", {}),
}


def _finished(ruleset: str, options: dict, *, players: int = 3, seed: int = 1) -> Match:
    """A match played to its end through the services by players who pick among their
    legal actions at random, favouring raises and show-and-reroll."""
    options = {"dice_per_player": 3, **options} if ruleset != "poker_dice" else options
    match = ActiveMatchFactory(players=players, ruleset=ruleset, options=options)
    rng = random.Random(seed)
    while match.status == Match.Status.ACTIVE:
        seat = match.seats.select_related("player").get(seat=match.turn_seat)
        legal = engine.legal_actions(engine.state_from_json(match.state), seat.seat)
        raises = [e for e in legal if e["type"] in ("bid", "show_reroll")]
        # Mostly raise: longer rounds, more dice shown and rerolled.
        action = action_from_legal(raises if raises and rng.random() < 0.7 else legal, rng)
        match = services.action_submit(match_id=match.pk, user=seat.player, action=action).match
    return match


def _export(match: Match) -> dict:
    client = client_for(match.seats.order_by("seat").first().player)
    path = f"/api/v1/matches/{match.pk}/export/"
    response = client.get(path)
    assert response.status_code == 200, response.content
    document = client.get("/api/v1/schema/?format=json").json()
    return Contract(document).check("GET", path, response)


def _replayed(body: dict, rolls: list[int]) -> "engine.State":
    replay = body["replay"]
    return engine.replay(
        engine.rules_from_dict(body["rules"]),
        replay["n_players"],
        rolls,
        replay["actions"],
        creator_seat=replay["creator_seat"],
        opener_seat=replay["opener_seat"],
    )


@pytest.mark.parametrize("case", sorted(CASES))
def test_the_verifier_agrees_with_the_engine_on_every_preset(case):
    ruleset, options = CASES[case]
    match = _finished(ruleset, options, seed=len(case))
    body = _export(match)
    rolls = rolls_from_dice(body["family"], body["dice"])
    assert rolls == body["replay"]["rolls"] == flat_rolls(body["family"], body["dice"])
    state = _replayed(body, rolls)
    assert state.to_json() == match.state
    assert sorted(engine.winners(state)) == sorted(body["result"]["winner_seats"])
    assert engine.placements(state) == body["result"]["placements"]

    report = verify(body)
    assert report.ok, str(report)
    assert report.rounds_checked == len(body["rounds"]) >= 1
    if ruleset == "milton_bradley":  # the players showed dice: rerolls were checked
        assert any(r["rerolls"] for r in body["dice"]["rounds"])


def test_a_forfeit_and_a_named_opener_verify_too():
    users = [PlayerFactory() for _ in range(3)]
    match = FinishedMatchFactory(
        players=users,
        ruleset="classic",
        options={"dice_per_player": 2, "first_opener": "creator"},
        opener_seat=2,
        resigned=[users[1]],
    )
    body = _export(match)
    assert body["rounds"][0]["voided_by"] == 1 and body["rounds"][0]["opener_seat"] == 2
    assert body["dice"]["opener_draw"] is None
    report = verify(body)
    assert report.ok, str(report)


def test_the_client_hashes_as_the_server_does():
    assert commitment("ab12", [3, 1, 6]) == server_commitment("ab12", [3, 1, 6])
    assert commitment("ab12", ["9", "A"]) == server_commitment("ab12", ["9", "A"])


_EXPORTS: dict[str, dict] = {}


@pytest.fixture
def exports() -> dict[str, dict]:
    """One show-and-reroll match and one poker-dice match, played and exported once (the
    documents outlive the test's rows); each tampering test changes its own copy."""
    if not _EXPORTS:
        _EXPORTS["common_pool"] = _export(_finished("milton_bradley", {}, seed=7))
        _EXPORTS["poker_dice"] = _export(_finished("poker_dice", {}, players=2, seed=3))
    return _EXPORTS


def _round_with(body: dict, wanted) -> int:
    """The index of the first round that `wanted(round record, round dice)` accepts."""
    return next(
        i
        for i, (rec, rnd) in enumerate(zip(body["rounds"], body["dice"]["rounds"], strict=True))
        if wanted(rec, rnd)
    )


def _changed(value):
    if isinstance(value, int):
        return value % 6 + 1
    return "9" if value != "9" else "A"


@pytest.mark.parametrize("family", ["common_pool", "poker_dice"])
def test_a_changed_die_is_reported_in_its_round(exports, family):
    body = copy.deepcopy(exports[family])
    i = len(body["rounds"]) // 2
    record = body["rounds"][i]
    key = next(iter(record["dice"]))
    record["dice"][key][0] = _changed(record["dice"][key][0])
    assert verify(body).rounds() == {record["number"]}

    body = copy.deepcopy(exports[family])
    deal = body["dice"]["rounds"][i]["deal"]
    deal[key][-1] = _changed(deal[key][-1])
    body["replay"].pop("rolls")  # the deprecated flat copy would name the change too
    report = verify(body)
    assert report.rounds() == {record["number"]}
    assert any("commitments" in p.what for p in report.problems), str(report)


def test_a_changed_reroll_is_reported_in_its_round(exports):
    body = copy.deepcopy(exports["common_pool"])
    i = _round_with(body, lambda rec, rnd: rnd["rerolls"])
    reroll = body["dice"]["rounds"][i]["rerolls"][0]
    reroll["rolled"][0] = _changed(reroll["rolled"][0])
    body["replay"].pop("rolls")
    assert verify(body).rounds() == {body["rounds"][i]["number"]}


@pytest.mark.parametrize("family", ["common_pool", "poker_dice"])
def test_a_changed_salt_is_reported_in_its_round(exports, family):
    body = copy.deepcopy(exports[family])
    record = body["rounds"][-1]
    key = next(iter(record["salts"]))
    record["salts"][key] = "0" * 32
    report = verify(body)
    assert report.rounds() == {record["number"]}
    assert not report.ok


@pytest.mark.parametrize(
    ("family", "field", "value"),
    [
        ("common_pool", "winner_seat", lambda r: (r["winner_seat"] + 1) % 3),
        ("common_pool", "actual_count", lambda r: r["actual_count"] + 1),
        ("common_pool", "losses", lambda r: {k: n + 1 for k, n in r["losses"].items()}),
        ("poker_dice", "winner_seat", lambda r: 1 - r["winner_seat"]),
        ("poker_dice", "actual_hand", lambda r: list(reversed(r["actual_hand"]))),
    ],
)
def test_a_changed_result_is_reported_in_its_round(exports, family, field, value):
    body = copy.deepcopy(exports[family])
    i = _round_with(body, lambda rec, rnd: rec["result"] is not None and rec["result"]["losses"])
    result = body["rounds"][i]["result"]
    if result[field] == value(result):
        pytest.fail(f"the change to {field} must change something")
    result[field] = value(result)
    report = verify(body)
    number = body["rounds"][i]["number"]
    assert report.problems[0].round == number
    # The next round's deal or opener no longer follows from a changed result; a loss
    # that changes who is out changes the places too.
    assert report.rounds() <= {number, number + 1, None}


def test_a_seat_wrongly_put_out_is_reported_in_its_round_and_the_next_only(exports):
    """A result that takes all the dice of a seat that plays on: the next round's deal is
    reported, and the rounds after it are checked from the dice they hold, so they stay
    clean. (Any match of three has a next round: one round puts at most one seat out.)"""
    body = copy.deepcopy(exports["common_pool"])
    i = _round_with(body, lambda rec, rnd: rec["result"] is not None)
    record, following = body["rounds"][i], body["dice"]["rounds"][i + 1]
    seat = next(iter(following["deal"]))
    record["result"]["losses"][seat] = len(record["dice"][seat])
    report = verify(body)
    number = record["number"]
    assert report.problems[0].round == number
    assert number + 1 in report.rounds() <= {number, number + 1, None}


def test_a_changed_winner_is_reported_for_the_match(exports):
    body = copy.deepcopy(exports["common_pool"])
    body["result"]["winner_seats"] = [(body["result"]["winner_seats"][0] + 1) % 3]
    report = verify(body)
    assert [p.round for p in report.problems] == [None]
    assert "winner_seats" in report.problems[0].what


def test_a_malformed_export_is_a_problem_not_an_exception(exports):
    body = copy.deepcopy(exports["poker_dice"])
    del body["rounds"][0]["dice"]
    report = verify(body)
    assert not report.ok and report.rounds() == {body["rounds"][0]["number"]}


@pytest.mark.parametrize("family", ["common_pool", "poker_dice"])
def test_a_bid_that_does_not_top_the_one_before_is_reported_in_its_round(exports, family):
    body = copy.deepcopy(exports[family])

    def two_bids(rec, rnd) -> bool:
        return sum(a["type"] == "bid" for a in rec["actions"]) >= 2

    i = _round_with(body, two_bids)
    record = body["rounds"][i]
    first, second = [a for a in record["actions"] if a["type"] == "bid"][:2]
    for field in ("quantity", "face", "hand"):
        if field in first:
            second[field] = first[field]  # the same bid again: no raise
    report = verify(body)
    assert report.rounds() == {record["number"]}, str(report)
    at = f"the bid at action {record['actions'].index(second)} "
    refusals = ("does not top", "claims junk after the opening bid")  # junk tops nothing
    named = [p.what for p in report.problems if p.what.startswith(at)]
    assert any(refusal in what for what in named for refusal in refusals), str(report)
