"""A moderator in a real headless Chromium: log in, find a match, abort it with a reason,
see the refund. Needs Debian's `chromium` and `chromium-driver` (`make test` installs them);
without them this test fails rather than skips."""

import shutil

import pytest
from django.contrib.auth.models import Group, Permission
from django.urls import reverse

from games.models import Match
from ledger.selectors import ledger_problems, wallet_balance
from moderation.models import AuditAction, AuditRecord
from moderation.permissions import ensure_moderators_group
from tests.browser import start_chromium
from tests.factories import (
    DEFAULT_PASSWORD,
    ActiveMatchFactory,
    FinishedMatchFactory,
    UserFactory,
    fund_house,
    people_at,
)

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def browser():
    driver, profile = start_chromium((1280, 1000))
    driver.implicitly_wait(5)
    try:
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


def wait_for_text(browser, text: str, seconds: float = 15) -> None:
    """Waits for the page a click navigated to (a click does not wait for it)."""
    from selenium.webdriver.support.ui import WebDriverWait

    WebDriverWait(browser, seconds).until(lambda driver: text in driver.page_source)


def test_moderator_aborts_a_match_and_sees_the_refund(live_asgi, browser, tmp_path):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    moderator = UserFactory(username="modesty", is_staff=True)
    moderator.groups.add(ensure_moderators_group(Group, Permission))
    match = ActiveMatchFactory(ruleset="milton_bradley", buy_in=50, ante=1)
    players = people_at(match)
    target = players[1]
    assert wallet_balance(user=target) == 950

    browser.get(live_asgi.url + reverse("admin:login"))
    browser.find_element(By.NAME, "username").send_keys("modesty")
    browser.find_element(By.NAME, "password").send_keys(DEFAULT_PASSWORD)
    browser.find_element(By.CSS_SELECTOR, "input[type=submit]").click()
    wait_for_text(browser, "Site administration")

    browser.get(live_asgi.url + reverse("admin:games_match_changelist"))
    browser.save_screenshot(str(tmp_path / "match_list.png"))
    # Every column, the last move and finish times included, fits 1280 px.
    widths = browser.execute_script(
        "return [document.documentElement.scrollWidth, window.innerWidth]"
    )
    assert widths[0] <= widths[1], widths
    search = browser.find_element(By.ID, "searchbar")
    search.send_keys(target.username)
    search.submit()
    WebDriverWait(browser, 15).until(lambda driver: "q=" in driver.current_url)
    rows = browser.find_elements(By.CSS_SELECTOR, "#result_list tbody tr")
    assert len(rows) == 1
    rows[0].find_element(By.CSS_SELECTOR, "th a, td a").click()
    wait_for_text(browser, f"Match {match.pk}")

    browser.find_element(By.ID, "abort-match").click()
    browser.find_element(By.NAME, "reason").send_keys("table reported stuck by both players")
    browser.find_element(By.ID, "reason-action-submit").click()
    wait_for_text(browser, "Aborted, chips refunded: 1 of 1.")

    browser.get(live_asgi.url + reverse("admin:games_match_change", args=[match.pk]))
    browser.find_element(By.CSS_SELECTOR, "#match-transfers summary").click()  # folded
    transfers = browser.find_element(By.ID, "match-transfers").text
    assert "refund" in transfers and "cash_out" in transfers
    refunds = browser.find_elements(By.CSS_SELECTOR, "#match-transfers tr.transfer-refund")
    assert len(refunds) == 4  # each player gets both antes back (round pot, game pot)
    assert "Aborted" in browser.find_element(By.CSS_SELECTOR, ".field-status").text

    assert Match.objects.get(pk=match.pk).status == Match.Status.ABORTED
    assert [wallet_balance(user=p) for p in players] == [1000, 1000]
    record = AuditRecord.objects.get(action=AuditAction.MATCH_ABORT)
    assert record.actor == moderator
    assert record.reason == "table reported stuck by both players"
    assert ledger_problems() == []


def _full_page_screenshot(browser, path) -> int:
    """Saves the whole page (the window grown to its height) and returns that height."""
    height = browser.execute_script("return document.documentElement.scrollHeight")
    browser.set_window_size(1280, min(height, 16000))
    browser.save_screenshot(str(path))
    browser.set_window_size(1280, 1000)
    return height


def test_moderator_reads_a_played_match_and_a_player_page(live_asgi, browser, tmp_path):
    """Screenshots of both pages land in $E2E_SCREENSHOTS (else the test's tmp folder) to
    be looked at; the assertions check what a moderator must find on them."""
    import os
    from pathlib import Path

    from selenium.webdriver.common.by import By

    shots = Path(os.environ.get("E2E_SCREENSHOTS") or tmp_path)
    shots.mkdir(parents=True, exist_ok=True)
    moderator = UserFactory(username="reader", is_staff=True)
    moderator.groups.add(ensure_moderators_group(Group, Permission))
    fund_house(20)
    match = FinishedMatchFactory(players=2, bots=["expert"], buy_in=20, ante=1, seed=3)
    match_id, humans = match.pk, people_at(match)

    browser.get(live_asgi.url + reverse("admin:login"))
    browser.find_element(By.NAME, "username").send_keys("reader")
    browser.find_element(By.NAME, "password").send_keys(DEFAULT_PASSWORD)
    browser.find_element(By.CSS_SELECTOR, "input[type=submit]").click()
    wait_for_text(browser, "Site administration")

    browser.get(live_asgi.url + reverse("admin:games_match_change", args=[match_id]))
    wait_for_text(browser, "Won by")
    result = browser.find_element(By.ID, "match-result")
    rounds = browser.find_elements(By.CSS_SELECTOR, "#match-rounds tr.round")
    assert len(rounds) == match.round_records.count() > 1
    # The outcome is on the first screen.
    assert result.location["y"] + result.size["height"] < 1000
    for human in humans:
        assert human.username in result.text
    height = _full_page_screenshot(browser, shots / "match_page.png")
    print(f"match page: {len(rounds)} rounds, {height} px tall")

    browser.get(live_asgi.url + reverse("admin:accounts_user_change", args=[humans[0].pk]))
    wait_for_text(browser, 'id="recent-transfers"')
    table = browser.find_element(By.ID, "recent-transfers")
    rows = [r.text for r in table.find_elements(By.CSS_SELECTOR, "tr")[1:]]
    assert rows[-1].split()[2:4] == ["signup_grant", "+1000"]
    assert any(r.split()[2:4] == ["buy_in", "-20"] for r in rows)
    _full_page_screenshot(browser, shots / "player_page.png")
