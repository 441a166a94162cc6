"""The browser tests' windows (tests.browser.start_chromium) and the bots' worker."""

import shutil

import pytest

from tests.browser import start_chromium
from tests.celery.conftest import Processes
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


@pytest.fixture
def bot_worker(transactional_db, tmp_path):
    """A real Celery worker: the bots play their turns through it."""
    processes = Processes(tmp_path)
    processes.start_worker()
    yield processes
    processes.stop_all()
