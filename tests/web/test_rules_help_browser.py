"""The rules help in real headless Chromium at desktop and phone width: every preset's
help on the rules page (logged out) and from the lobby, the create form's plain labels,
its help dialog with the options chosen and the ante's real cost, a table's "How this
table plays" with the options in force, and a poker-dice table that names your box,
ranks the hands and opens with a named hand. Screenshots go to test-screenshots/."""

import re
import time

import pytest

from games.engine import PRESETS
from games.models import Match
from games.rules_help import FAMILY_HELP, PRESET_HELP
from tests.web.test_play_page_browser import (
    DESKTOP,
    PHONE,
    SCREENSHOTS,
    assert_fits_the_width,
    assert_no_script_errors,
    by_testid,
    my_turn_or_the_end,
    present,
    save_screenshot,
    sign_up,
    wait,
)

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

SIZES = pytest.mark.parametrize("size", [DESKTOP, PHONE], ids=["desktop", "phone"])
OPTIONS = {o.name: o for f in FAMILY_HELP for o in f.options}


def shown_help(driver, within: str = "") -> dict:
    """The help panel on show: its preset, heading, text, and each option's row."""
    return driver.execute_script(
        "const p = document.querySelector(arguments[0] + ' [data-testid=rules-help]');"
        "if (!p) return null;"
        "const rows = {};"
        "for (const r of p.querySelectorAll('.rule-option'))"
        "  rows[r.dataset.option] = {dt: r.querySelector('dt').textContent,"
        "    dd: r.querySelector('dd').textContent, changed: !!r.querySelector('.tag')};"
        "return {ruleset: p.dataset.ruleset, title: p.querySelector('h2,h3').textContent,"
        "  text: p.textContent, rows};",
        within,
    )


def assert_preset_help(panel: dict, name: str, changed: dict | None = None) -> None:
    (preset,) = [p for p in PRESET_HELP if p.name == name]
    assert panel["ruleset"] == name and panel["title"] == preset.title
    assert preset.summary in panel["text"]
    for example in preset.examples:
        assert example in panel["text"]
    options = {**PRESETS[name].options(), **(changed or {})}
    assert set(panel["rows"]) == set(options)
    for option, value in options.items():
        row, words = panel["rows"][option], OPTIONS[option]
        assert row["dt"].startswith(words.label), row
        assert "_" not in row["dt"] + row["dd"], row  # plain words, never internal names
        chosen = [v for v in words.values if v.value == value]
        assert row["dd"].startswith(chosen[0].label if chosen else str(value)), row
        assert row["changed"] == (option in (changed or {})), row


@SIZES
def test_every_presets_rules_help_from_the_rules_page_lobby_and_create_form(
    live_asgi,
    open_browser,
    size,
):
    from selenium.webdriver.support.ui import Select

    driver = open_browser(size)
    width = size[0]
    driver.get(live_asgi.url + "/")
    wait(driver, lambda d: present(d, "rules-link"), message="the way to the rules, logged out")
    present(driver, "rules-link").click()
    for preset in PRESET_HELP:
        wait(driver, lambda d, p=preset: present(d, f"rules-tab-{p.name}"), message="tabs")
        present(driver, f"rules-tab-{preset.name}").click()
        panel = wait(
            driver,
            lambda d, p=preset: (h := shown_help(d)) and h["ruleset"] == p.name and h,
            message=f"the rules of {preset.name}",
        )
        assert_preset_help(panel, preset.name)
        assert_fits_the_width(driver)
        save_screenshot(driver, f"rules-{preset.name}")
    assert "Hands, high to low" in panel["text"]  # poker dice, the last tab
    assert len(driver.find_elements("css selector", by_testid("hands-help") + " li")) == 9

    sign_up(driver, live_asgi.url, f"rita-{width}")
    for preset in PRESET_HELP:  # the lobby links each preset's rules
        assert present(driver, f"rules-link-{preset.name}").text == preset.title
    save_screenshot(driver, "rules-lobby")

    form = driver.find_element("css selector", "form.create")
    labels = [e.text for e in form.find_elements("css selector", ".options label")]
    assert labels and not [t for t in labels if "_" in t], labels
    ruleset = Select(present(driver, "ruleset-select"))
    for preset in PRESET_HELP:
        ruleset.select_by_value(preset.name)
        form.find_element("css selector", by_testid("rules-help-open")).click()
        panel = wait(driver, lambda d: shown_help(d, "dialog"), message="the help dialog")
        assert_preset_help(panel, preset.name)
        present(driver, "rules-help-close").click()
        wait(driver, lambda d: not d.find_elements("css selector", "dialog"), message="closed")

    # A changed option shows in the help as chosen, and its meaning under the control.
    ruleset.select_by_value("perudo")
    Select(form.find_element("css selector", '[name="loss"]')).select_by_value("difference")
    hint = form.find_element("css selector", '[name="loss"] ~ small').text
    assert hint == next(v for v in OPTIONS["loss"].values if v.value == "difference").text
    form.find_element("css selector", by_testid("rules-help-open")).click()
    panel = wait(driver, lambda d: shown_help(d, "dialog"), message="the help dialog")
    assert_preset_help(panel, "perudo", changed={"loss": "difference"})
    if width < 500:
        save_screenshot(driver, "rules-dialog")
    present(driver, "rules-help-close").click()

    # The ante's real cost, under the ante.
    for name, value in (("buy_in", 50), ("ante", 2)):
        control = form.find_element("css selector", f'[name="{name}"]')
        control.clear()
        control.send_keys(str(value))
    cost = present(driver, "ante-cost").text
    assert cost == "Costs 4 chips a round: 2 to the round pot, 2 to the game pot."
    save_screenshot(driver, "rules-create-form")
    form.screenshot(str(SCREENSHOTS / f"rules-create-form-only-{width}px.png"))

    # An open table: "How this table plays" names the options in force and the stakes.
    present(driver, "create-match").click()
    wait(driver, lambda d: "#/match/" in d.current_url, message="the table")
    match = Match.objects.get(pk=int(driver.current_url.rsplit("/", 1)[-1]))
    assert match.rules["loss"] == "difference"
    press(driver, "table-rules")
    panel = wait(driver, lambda d: shown_help(d, "dialog"), message="the table's rules")
    assert_preset_help(panel, "perudo", changed={"loss": "difference"})
    assert "This table: buy-in 50 chips, ante 2. Costs 4 chips a round" in panel["text"]
    assert_fits_the_width(driver)
    save_screenshot(driver, "rules-table-dialog")
    assert_no_script_errors(driver)


def poker_controls(driver) -> dict:
    """The poker-dice controls at one moment (the table re-draws as events arrive)."""
    return driver.execute_script(
        "const q = (s) => document.querySelector(s);"
        "const kind = q('select[aria-label=\"Kind of bid\"]');"
        "const hand = q('[data-testid=box-hand]');"
        "return {hand: hand && hand.textContent, kind: kind && kind.value,"
        "  disabled: !!q('.hand.disabled'),"
        "  dice: [...document.querySelectorAll('select[aria-label^=\"Die \"]')].map(d => d.value),"
        "  accept: !!q('[data-testid=accept]'), reroll: !!q('[data-testid=reroll]')};"
    )


def press(driver, testid: str):
    """Clicks the control, again if the page was re-drawn under the first try (the
    table's head is re-drawn with every move)."""
    return wait(driver, lambda d: (e := present(d, testid)) and (e.click() or e), message=testid)


def play(driver, testid: str) -> None:
    """Clicks a move's control (again if the table was re-drawn under the first try) and
    waits for the table the move makes (it may be your turn again: a new round)."""
    from selenium.webdriver.support.expected_conditions import staleness_of

    wait(driver, staleness_of(press(driver, testid)), message=f"the table after {testid}")


HAND = re.compile(
    r"^(five \w+|four \w+( and an? \w+)?|a full house, \w+ over \w+|a (high|low) straight|"
    r"three \w+ with an? \w+ and an? \w+|two pairs, \w+ over \w+ and an? \w+|"
    r"a pair of \w+ with an? \w+, an? \w+ and an? \w+|"
    r"\w+ high with (an? \w+, ){2}an? \w+ and an? \w+)$"
)


@SIZES
def test_a_poker_dice_table_names_your_box_ranks_hands_and_opens_with_a_hand(
    live_asgi,
    bot_worker,
    open_browser,
    size,
):
    from selenium.webdriver.support.ui import Select

    driver = open_browser(size)
    sign_up(driver, live_asgi.url, f"poe-{size[0]}")
    Select(present(driver, "ruleset-select")).select_by_value("poker_dice")
    present(driver, "add-bot").click()
    present(driver, "create-match").click()
    wait(driver, lambda d: "#/match/" in d.current_url, message="the table")
    press(driver, "table-rules")
    panel = wait(driver, lambda d: shown_help(d, "dialog"), message="the table's rules")
    assert_preset_help(panel, "poker_dice")
    assert "This table plays without chips." in panel["text"]
    present(driver, "rules-help-close").click()

    seen = {"box": 0, "opening": 0}
    deadline = time.monotonic() + 150
    while not seen["opening"] and time.monotonic() < deadline:
        if my_turn_or_the_end(driver)["status"] != "active":
            break
        now = poker_controls(driver)
        if now["accept"]:  # look in the box
            play(driver, "accept")
            continue
        if now["hand"] is None:  # nothing beats the bid: the box stays shut
            play(driver, "challenge")
        else:
            assert HAND.match(now["hand"]), now
            seen["box"] += 1
            if now["kind"] is not None:  # player one: the bid names the box's hand
                seen["opening"] += 1
                assert now["kind"] == "named" and not now["disabled"], now
                assert len(now["dice"]) == 5 and all(now["dice"]), now
                press(driver, "hands-summary")
                assert len(driver.find_elements("css selector", ".hands-details li")) == 9
                assert_fits_the_width(driver)
                save_screenshot(driver, "rules-poker-opening")
                play(driver, "bid-submit")
            elif now["reroll"]:
                play(driver, "reroll")
            else:
                play(driver, "bid-submit")
    assert seen["box"] and seen["opening"], seen
    assert_no_script_errors(driver)
