"""A moderator in a real headless Chromium: log in, find a match, abort it with a reason,
see the refund. Needs Debian's `chromium` and `chromium-driver` (`make test` installs them);
without them this test fails rather than skips."""

import shutil
import tempfile

import pytest
from django.contrib.auth.models import Group, Permission
from django.urls import reverse

from games.models import Match
from ledger.selectors import ledger_problems, wallet_balance
from moderation.models import AuditAction, AuditRecord
from moderation.permissions import ensure_moderators_group
from tests.factories import DEFAULT_PASSWORD, UserFactory
from tests.moderation.conftest import running_match

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--window-size=1280,1000",
]


@pytest.fixture
def browser():
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    binary = shutil.which("chromium") or shutil.which("chromium-browser")
    driver_path = shutil.which("chromedriver")
    if not binary or not driver_path:
        pytest.fail(
            "Chromium and chromedriver are required (apt-get install chromium chromium-driver)"
        )
    options = webdriver.ChromeOptions()
    options.binary_location = binary
    for flag in CHROMIUM_FLAGS:
        options.add_argument(flag)
    profile = tempfile.mkdtemp(prefix="chromium-e2e-")
    options.add_argument(f"--user-data-dir={profile}")
    driver = webdriver.Chrome(service=Service(executable_path=driver_path), options=options)
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


def test_moderator_aborts_a_match_and_sees_the_refund(live_server, browser):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    moderator = UserFactory(username="modesty", is_staff=True)
    moderator.groups.add(ensure_moderators_group(Group, Permission))
    match, players = running_match(buy_in=50, ante=1)
    target = players[1]
    assert wallet_balance(user=target) == 950

    browser.get(live_server.url + reverse("admin:login"))
    browser.find_element(By.NAME, "username").send_keys("modesty")
    browser.find_element(By.NAME, "password").send_keys(DEFAULT_PASSWORD)
    browser.find_element(By.CSS_SELECTOR, "input[type=submit]").click()
    wait_for_text(browser, "Site administration")

    browser.get(live_server.url + reverse("admin:games_match_changelist"))
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

    browser.get(live_server.url + reverse("admin:games_match_change", args=[match.pk]))
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
