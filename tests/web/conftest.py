"""The browser tests' windows (tests.browser.start_chromium)."""

import shutil

import pytest

from tests.browser import start_chromium
from tests.web.test_play_page_browser import DESKTOP, emulate


@pytest.fixture
def open_browser():
    """Opens headless Chromium windows of a given size; each logs its network requests."""
    opened = []

    def open_one(size=DESKTOP):
        logs = {"goog:loggingPrefs": {"performance": "ALL", "browser": "ALL"}}
        driver, profile = start_chromium(size, capabilities=logs)
        opened.append((driver, profile))
        emulate(driver, size)
        return driver

    yield open_one
    for driver, profile in opened:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)
