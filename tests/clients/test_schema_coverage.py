"""The client library against the server's own OpenAPI document: it has a method for
every operation, and its models have the fields (and the required ones) of the
components they stand for. A new operation or field on the server fails here until the
library follows."""

import dataclasses
import inspect
import json
import typing

import liarsdice
import pytest
from drf_spectacular.generators import SchemaGenerator
from liarsdice import models
from liarsdice.client import OPERATIONS, Client

METHODS = ("get", "post", "put", "patch", "delete")
# model -> the components it stands for (a union of the rule families where they differ)
COMPONENTS = {
    models.Match: ["CommonPoolMatch", "PokerDiceMatch"],
    models.Seat: ["CommonPoolSeat", "PokerDiceSeat"],
    models.PlayerRef: ["PlayerRef"],
    models.Round: ["CommonPoolRound", "PokerDiceRound"],
    models.CurrentBid: ["CommonPoolCurrentBid", "PokerDiceCurrentBid"],
    models.Pots: ["Pots"],
    models.AbortProposal: ["AbortProposal"],
    models.RematchOffer: ["RematchOffer"],
    models.ShownRating: ["ShownRatingOutput"],
    models.SeatResult: ["SeatResult"],
    models.EventPage: ["EventsOutput"],
    models.YourTurn: ["YourTurnAccountEvent"],
    models.ChallengeReceived: ["ChallengeReceivedAccountEvent"],
    models.Problem: ["Problem"],
    models.Tournament: ["TournamentDetailOutput"],
    models.Standing: ["StandingOutput"],
    models.Stage: ["StageOutput"],
    models.TournamentTable: ["TableOutput"],
    models.Payout: ["PayoutOutput"],
    models.PayoutPlace: ["PayoutPlaceOutput"],
    models.RulesHelp: ["RulesHelpOutput"],
    models.FamilyHelp: ["FamilyHelp"],
    models.OptionHelp: ["OptionHelp"],
    models.OptionValueHelp: ["OptionValueHelp"],
    models.HandHelp: ["HandHelp"],
    models.BotStrategy: ["BotStrategyOutput"],
    models.PresetHelp: ["PresetHelp"],
}


@pytest.fixture(scope="module")
def document():
    return json.loads(json.dumps(SchemaGenerator().get_schema(request=None, public=True)))


def union_members(document, name):
    """The components a oneOf component (e.g. `Event`) is made of."""
    return [
        ref["$ref"].rsplit("/", 1)[1] for ref in document["components"]["schemas"][name]["oneOf"]
    ]


def assert_model_matches(model, components, schemas):
    properties = set().union(*(schemas[c]["properties"] for c in components))
    required = set.intersection(*(set(schemas[c].get("required", [])) for c in components))
    fields = {f.name: f for f in dataclasses.fields(model)}
    assert set(fields) == properties, (model.__name__, set(fields) ^ properties)
    no_default = {
        name
        for name, f in fields.items()
        if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING
    }
    assert no_default == required, (model.__name__, no_default ^ required)


@pytest.mark.parametrize("model", list(COMPONENTS), ids=lambda m: m.__name__)
def test_each_model_has_its_components_fields_and_required_ones(document, model):
    assert_model_matches(model, COMPONENTS[model], document["components"]["schemas"])


def test_legal_actions_events_and_account_events_cover_every_member(document):
    schemas = document["components"]["schemas"]
    legal = union_members(document, "CommonPoolLegalAction") + union_members(
        document, "PokerDiceLegalAction"
    )
    properties = set().union(*(schemas[c]["properties"] for c in legal))
    assert {f.name for f in dataclasses.fields(models.LegalAction)} == properties
    # Every event shares the envelope the model reads; `data` is typed per event type.
    for name in union_members(document, "Event"):
        assert_model_matches(models.Event, [name], schemas)
    for name in union_members(document, "AccountEvent"):
        envelope = {"id", "type", "created_at"}
        assert envelope <= set(schemas[name]["required"]), name


def test_the_client_has_a_method_for_every_operation_of_the_schema(document):
    in_schema = {
        f"{method.upper()} {path}"
        for path, operations in document["paths"].items()
        for method in operations
        if method in METHODS
    }
    missing = in_schema - set(OPERATIONS)
    assert not missing, f"operations the client lacks: {sorted(missing)}"
    assert not set(OPERATIONS) - in_schema, "client methods for operations the server lacks"
    for name in OPERATIONS.values():
        assert inspect.isfunction(getattr(Client, name)), name


def test_the_documented_problem_codes_have_typed_errors(document):
    codes = document["components"]["schemas"]["Problem"]["properties"]["code"]["enum"]
    for code, cls in {
        "stale_version": liarsdice.VersionConflict,
        "not_your_turn": liarsdice.NotYourTurn,
        "illegal_action": liarsdice.IllegalAction,
        "throttled": liarsdice.RateLimited,
        "validation_error": liarsdice.ValidationFailed,
    }.items():
        assert code in codes
        error = liarsdice.error_for(409, {"code": code, "status": 409, "detail": "x"})
        assert type(error) is cls and error.code == code and error.detail == "x"
    scope = liarsdice.error_for(403, {"code": "insufficient_scope", "detail": "needs play"})
    assert isinstance(scope, liarsdice.InsufficientScope) and scope.status == 403
    unknown = liarsdice.error_for(418, {"code": "teapot"})
    assert type(unknown).__name__ == "ClientError" and unknown.code == "teapot"


def test_models_decode_nested_shapes_and_ignore_new_fields():
    seat = {
        "seat": 0,
        "player": {"id": 1, "username": "a", "is_bot": False, "new": 1},
        "dice_count": 5,
        "lives": None,
        "stack": 0,
        "status": "playing",
    }
    decoded = models.decode(models.Seat, seat)
    assert decoded.player == models.PlayerRef(id=1, username="a", is_bot=False)
    hints = typing.get_type_hints(models.Match)
    assert hints["round"] == models.Round | None
