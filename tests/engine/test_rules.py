"""Presets hold exactly RULES 3's values; invalid options are rejected by name."""

from __future__ import annotations

import pytest

from games.engine import (
    PRESETS,
    InvalidRules,
    new_match,
    preset_list,
    rules_from_dict,
    rules_from_preset,
)

EXPECTED = {
    "milton_bradley": dict(
        dice_per_player=5,
        ones_wild=True,
        ones_bids="half",
        loss="difference",
        exact_outcome="others_lose_one",
        exact_spares_last_die=True,
        first_opener="random",
        next_opener="challenge_winner",
        show_and_reroll="after_reroll",
        exact_call=False,
        pass_call=False,
        palifico=False,
    ),
    "wild_ones": dict(
        dice_per_player=5,
        ones_wild=True,
        ones_bids="half",
        loss="difference",
        exact_outcome="others_lose_one",
        exact_spares_last_die=False,
        first_opener="random",
        next_opener="round_loser",
        show_and_reroll="off",
        exact_call=False,
        pass_call=False,
        palifico=False,
    ),
    "roll_off": dict(
        dice_per_player=5,
        ones_wild=True,
        ones_bids="half",
        loss="difference",
        exact_outcome="challenger_loses_one",
        exact_spares_last_die=False,
        first_opener="roll_off",
        next_opener="round_loser",
        show_and_reroll="off",
        exact_call=False,
        pass_call=False,
        palifico=False,
    ),
    "classic": dict(
        dice_per_player=5,
        ones_wild=False,
        ones_bids="face",
        loss="one",
        exact_outcome="challenger_loses_one",
        exact_spares_last_die=False,
        first_opener="random",
        next_opener="challenger",
        show_and_reroll="off",
        exact_call=False,
        pass_call=False,
        palifico=False,
    ),
    "perudo": dict(
        dice_per_player=5,
        ones_wild=True,
        ones_bids="perudo",
        loss="one",
        exact_outcome="challenger_loses_one",
        exact_spares_last_die=False,
        first_opener="random",
        next_opener="round_loser",
        show_and_reroll="off",
        exact_call=True,
        pass_call=False,
        palifico=True,
    ),
    "poker_dice": dict(lives=3),
}


@pytest.mark.parametrize("name", list(EXPECTED))
def test_preset_values(name):
    assert PRESETS[name].options() == EXPECTED[name]
    family = "poker_dice" if name == "poker_dice" else "common_pool"
    assert PRESETS[name].to_dict() == {"family": family, **EXPECTED[name]}
    assert rules_from_dict(PRESETS[name].to_dict()) == PRESETS[name]


def test_preset_list_shape():
    assert [p["name"] for p in preset_list()] == list(EXPECTED)
    assert preset_list()[0]["family"] == "common_pool"


def test_overrides():
    rules = rules_from_preset("classic", {"exact_call": True, "pass_call": True})
    assert rules.exact_call and rules.pass_call and rules.loss == "one"
    assert rules_from_preset("milton_bradley", {"loss": "one"}).loss == "one"


@pytest.mark.parametrize(
    ("preset", "overrides", "option"),
    [
        ("milton_bradley", {"ones_bids": "face"}, "ones_bids"),
        ("milton_bradley", {"ones_wild": 1, "ones_bids": "face"}, "ones_wild"),
        ("milton_bradley", {"dice_per_player": 0}, "dice_per_player"),
        ("milton_bradley", {"dice_per_player": 11}, "dice_per_player"),
        ("milton_bradley", {"dice_per_player": True}, "dice_per_player"),
        ("milton_bradley", {"dice_per_player": "5"}, "dice_per_player"),
        ("milton_bradley", {"ones_wild": 1}, "ones_wild"),
        ("milton_bradley", {"loss": "all"}, "loss"),
        ("milton_bradley", {"exact_outcome": "x"}, "exact_outcome"),
        ("milton_bradley", {"first_opener": "oldest"}, "first_opener"),
        ("milton_bradley", {"next_opener": None}, "next_opener"),
        ("milton_bradley", {"show_and_reroll": True}, "show_and_reroll"),
        ("milton_bradley", {"exact_call": "yes"}, "exact_call"),
        ("milton_bradley", {"pass_call": None}, "pass_call"),
        ("milton_bradley", {"lives": 3}, "lives"),
        ("milton_bradley", {"colour": "red"}, "colour"),
        ("poker_dice", {"lives": 0}, "lives"),
        ("poker_dice", {"ones_wild": True}, "ones_wild"),
        ("nope", {}, "ruleset"),
    ],
)
def test_invalid_options_name_the_option(preset, overrides, option):
    with pytest.raises(InvalidRules) as err:
        rules_from_preset(preset, overrides)
    assert err.value.option == option
    assert err.value.code == "validation_error"
    assert option in str(err.value)


@pytest.mark.parametrize(
    ("preset", "option", "value", "message"),
    [
        (
            "milton_bradley",
            "ones_bids",
            "face",
            "ones_bids=face cannot be combined with milton_bradley's ones_wild=true: "
            "a one cannot be both an ordinary face and wild (override ones_wild too)",
        ),
    ],
)
def test_conflict_with_the_preset_names_the_overridden_option(preset, option, value, message):
    with pytest.raises(InvalidRules) as err:
        rules_from_preset(preset, {option: value})
    assert err.value.option == option and err.value.field == option
    assert err.value.code == "validation_error"
    assert str(err.value) == message


def test_conflict_when_both_options_are_overridden_names_both():
    with pytest.raises(InvalidRules) as err:
        rules_from_preset("wild_ones", {"ones_bids": "face", "ones_wild": True})
    assert err.value.option == "ones_bids"
    assert "ones_bids=face" in str(err.value) and "ones_wild=true" in str(err.value)
    with pytest.raises(InvalidRules) as err:
        rules_from_dict({"family": "common_pool", "ones_bids": "face", "ones_wild": True})
    assert err.value.option == "ones_bids" and "ones_wild=true" in str(err.value)


@pytest.mark.parametrize("n", [0, 1, 9, True, "4"])
def test_player_count(n):
    import random

    with pytest.raises(InvalidRules) as err:
        new_match(PRESETS["milton_bradley"], n, random.Random(1))
    assert err.value.option == "players"


def test_dice_per_player_range_plays():
    import random

    for dpp in (1, 10):
        rules = rules_from_preset("wild_ones", {"dice_per_player": dpp})
        state, _ = new_match(rules, 8, random.Random(dpp))
        assert all(len(d) == dpp for d in state.round.dice)
