"""The result screen in real headless Chromium on the real ASGI server (issue 25): after
a match against a bot, each seat's place, the chips won or lost and the rating change,
every round one click away, at desktop and phone width; and a rematch between two
people, offered on one page and accepted on the other, taking both to the new match.

Screenshots go to test-screenshots/ (git-ignored)."""

import re

import pytest
from django.core.management import call_command

from accounts.models import User
from games.models import Match
from ledger.selectors import wallet_balance
from tests.factories import FinishedMatchFactory, establish, fund_house
from tests.web.test_play_page_browser import (
    DESKTOP,
    PHONE,
    assert_fits_the_width,
    assert_pages_were_clean,
    by_testid,
    create_match,
    emulate,
    play_to_the_end,
    present,
    save_screenshot,
    sign_up,
    turn_state,
    wait,
)

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

BUY_IN = 40


def _set_stakes(driver, buy_in: int, ante: int) -> None:
    for name, amount in (("buy_in", buy_in), ("ante", ante)):
        box = driver.find_element("css selector", f'form.create [name="{name}"]')
        box.clear()
        box.send_keys(str(amount))


def _click(driver, selector: str) -> None:
    """Clicks what `selector` finds, again should a live refresh re-draw it first."""
    wait(
        driver,
        lambda d: (found := d.find_elements("css selector", selector)) and not found[0].click(),
        message=selector,
    )


def _result_view(driver) -> dict:
    """What the result screen says, read at once (a live refresh may re-draw it)."""
    return wait(
        driver,
        lambda d: d.execute_script(
            "const s = document.querySelector('[data-testid=result-screen]');"
            "if (!s) return null;"
            "const text = (q) => s.querySelector(q)?.textContent ?? null;"
            "return {headline: text('h2'), chips: text('[data-testid=result-chips]'),"
            " rating: text('[data-testid=result-rating]'),"
            " places: [...s.querySelectorAll('table.results tbody tr')]"
            ".map((r) => r.cells[0].textContent),"
            " rounds: s.querySelectorAll('[data-testid=round-link]').length,"
            " rematch: !!s.querySelector('[data-testid=rematch]'),"
            " new_match: !!s.querySelector('[data-testid=new-match]')};"
        ),
        message="the result screen",
    )


def _result(driver):
    return wait(driver, lambda d: present(d, "result-screen"), message="the result screen")


def test_the_result_after_a_match_against_a_bot(live_asgi, bot_worker, open_browser):
    driver = open_browser(DESKTOP)
    sign_up(driver, live_asgi.url, "ada-result")
    ada = User.objects.get(username="ada-result")
    before = wallet_balance(user=ada)
    _set_stakes(driver, BUY_IN, 3)
    fund_house(BUY_IN)  # the house stakes its bot from its bankroll
    match_id = create_match(driver, "classic", bots=1, options={"dice_per_player": 2}, level="hard")
    # The server's bots are established where they play; here the bot is new, so it is
    # given that record: against a fresh account no rating would move (issue 33).
    bot = Match.objects.get(pk=match_id).seats.exclude(player=ada).get().player
    establish(bot, rulesets=["classic"])
    play_to_the_end(driver, match_id, screenshot_as="result-bot", limit_seconds=180)
    match = Match.objects.get(pk=match_id)
    assert match.status == Match.Status.FINISHED

    shown = _result_view(driver)
    won = wallet_balance(user=ada) - before
    mine = match.seats.get(player=ada)
    headline = "You won!" if mine.seat in match.winner_seats else "You finished 2nd of 2."
    assert shown["headline"] == headline
    assert won != 0 and match.buy_in == BUY_IN and match.ante == 3
    chips = f"+{won} chips" if won > 0 else f"\N{MINUS SIGN}{-won} chips"
    assert chips in shown["chips"], shown
    # The bar's chips followed the payout without a reload.
    balance = f"{wallet_balance(user=ada)} chips"
    in_bar = lambda d: balance in d.find_element("css selector", "#nav").text  # noqa: E731
    wait(driver, in_bar, 10, f"the bar never showed {balance}")
    # Played through (the bot and the player both moved each round): rated, from 1500.
    rating = r"1[0-9]{3}\? ±1[0-9]{2} \([+\N{MINUS SIGN}][0-9]+\)"
    assert re.search(rating, shown["rating"]), shown
    assert mine.rating_change is not None
    assert shown["places"] == ["1st", "2nd"]
    assert shown["rounds"] == match.round_records.count() >= 2
    assert shown["rematch"] and shown["new_match"]
    save_screenshot(driver, "result-bot")
    assert_fits_the_width(driver)
    emulate(driver, PHONE)
    _result(driver)
    assert_fits_the_width(driver)
    save_screenshot(driver, "result-bot")
    emulate(driver, DESKTOP)

    # Every round one click away: the second opens the replay at round 2.
    _click(driver, f'a[href="#/match/{match_id}/replay/2"]')
    wait(
        driver,
        lambda d: (
            d.find_elements("css selector", ".replay h2")
            and d.find_element("css selector", ".replay h2").text.startswith("Round 2 ·")
        ),
        message="round 2 in the replay",
    )
    driver.back()

    # A rematch with a bot starts at once (bots accept): the page moves on to it.
    _click(driver, by_testid("rematch"))
    wait(
        driver,
        lambda d: d.current_url.endswith(f"#/match/{Match.objects.get(pk=match_id).rematch_id}"),
        message="the rematch's table",
    )
    wait(driver, lambda d: turn_state(d).get("status") == "active", message="the rematch")
    assert_pages_were_clean(driver)
    call_command("ledger_check")


def test_a_rematch_between_two_people_takes_both_to_the_new_match(live_asgi, open_browser):
    ann_page = open_browser(DESKTOP)
    bob_page = open_browser(PHONE)
    sign_up(ann_page, live_asgi.url, "ann-rematch")
    sign_up(bob_page, live_asgi.url, "bob-rematch")
    ann, bob = (User.objects.get(username=n) for n in ("ann-rematch", "bob-rematch"))
    old = FinishedMatchFactory(
        players=[ann, bob], options={"dice_per_player": 2}, buy_in=BUY_IN, ante=1
    )
    for page in (ann_page, bob_page):
        page.get(f"{live_asgi.url}/#/match/{old.pk}")
        page.execute_script("window.__loadedOnce = true;")
        _result(page)
    save_screenshot(bob_page, "result-people")

    _click(ann_page, by_testid("rematch"))
    wait(ann_page, lambda d: present(d, "rematch-offer"), message="ann's offer standing")
    wait(
        bob_page,
        lambda d: (o := present(d, "rematch-offer")) and "ann-rematch wants a rematch." in o.text,
        message="the offer on bob's page",
    )
    save_screenshot(bob_page, "rematch-offer")
    save_screenshot(ann_page, "rematch-offer")
    _click(bob_page, by_testid("rematch-accept"))

    rematch = wait(
        ann_page, lambda d: Match.objects.get(pk=old.pk).rematch_id, message="the rematch"
    )
    for page in (ann_page, bob_page):
        wait(
            page,
            lambda d: d.current_url.endswith(f"#/match/{rematch}"),
            message="the rematch's page",
        )
        wait(page, lambda d: turn_state(d).get("status") == "active", message="its table")
    new = Match.objects.get(pk=rematch)
    assert new.status == Match.Status.ACTIVE and new.buy_in == BUY_IN
    assert {s.player_id for s in new.seats.all()} == {ann.pk, bob.pk}
    save_screenshot(bob_page, "rematch-table")
    for page in (ann_page, bob_page):
        assert_pages_were_clean(page)
    call_command("ledger_check")
