"""The players' rules help: one source (games/rules_help.py) for docs/RULES.md section 5
and `GET /rulesets/help/`, with a text for every family, option, value, preset and hand
the engine has."""

from pathlib import Path

from django.core.management import call_command

from games.engine import PRESETS
from games.engine.common_pool.rules import BOOL_OPTIONS, CHOICES
from games.engine.poker_dice.hands import CATEGORY_NAMES
from games.rules_help import FAMILY_HELP, PRESET_HELP, rules_help, with_rules_help
from tests.api.contract import Contract

RULES_MD = Path(__file__).resolve().parents[2] / "docs" / "RULES.md"


def test_rules_md_section_5_is_the_modules_text():
    page = RULES_MD.read_text()
    assert with_rules_help(page) == page, "run: python manage.py rules_help --write"


def test_a_changed_text_or_a_missing_section_is_caught():
    page = RULES_MD.read_text()
    first = FAMILY_HELP[0].basics[0]
    assert with_rules_help(page.replace(first, first + " Roll again.")) == page
    without = page[: page.index("<!-- rules-help")].rstrip("\n") + "\n"
    assert with_rules_help(without) == page


def test_the_command_prints_the_section(capsys):
    call_command("rules_help")
    out = capsys.readouterr().out
    assert out in RULES_MD.read_text()
    assert "An ante of 2 costs 4 chips a round" in out


def test_every_option_and_each_of_its_values_has_a_text():
    families = {f.family: f for f in FAMILY_HELP}
    for rules in {type(r): r for r in PRESETS.values()}.values():
        family = families[rules.family]
        assert [o.name for o in family.options] == list(rules.option_names)
        for option in family.options:
            assert option.label and option.text
            values = [v.value for v in option.values]
            if option.name in CHOICES:
                assert values == list(CHOICES[option.name])
            elif option.name in BOOL_OPTIONS:
                assert values == [True, False]
            else:
                assert values == [], option.name  # a number: its label says it all
            assert all(v.label and v.text for v in option.values)
    labels = [o.label for f in FAMILY_HELP for o in f.options]
    assert len(set(labels)) == len(labels)
    assert not any("_" in label for label in labels)  # plain words, not option names


def test_every_preset_has_a_title_summary_and_examples_in_the_api_order():
    assert [(p.name, p.family) for p in PRESET_HELP] == [
        (name, rules.family) for name, rules in PRESETS.items()
    ]
    assert all(p.title and p.summary and p.examples for p in PRESET_HELP)


def test_poker_hands_follow_the_engines_ranking():
    (poker,) = [f for f in FAMILY_HELP if f.hands]
    assert [h.name.lower() for h in poker.hands] == list(reversed(CATEGORY_NAMES))


def test_the_api_serves_the_same_texts_typed(api_client, db):
    contract = Contract(api_client.get("/api/v1/schema/?format=json").json())
    response = api_client.get("/api/v1/rulesets/help/")
    assert response.status_code == 200
    assert contract.check("GET", "/api/v1/rulesets/help/", response) == rules_help()
    validator = contract.component("RulesHelpOutput")
    body = response.json()
    body["families"][0]["options"][1]["values"][0]["value"] = 3
    assert not validator.is_valid(body)  # a value is a choice's name or true/false
    names = [r["name"] for r in api_client.get("/api/v1/rulesets/").json()]
    assert [p["name"] for p in response.json()["presets"]] == names
