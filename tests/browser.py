"""Debian's headless Chromium for the browser tests (`make test` installs `chromium` and
`chromium-driver`; without them a browser test fails rather than skips)."""

import shutil
import tempfile

import pytest

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
    "--hide-scrollbars",
]


def start_chromium(window_size: tuple[int, int], *, capabilities: dict | None = None):
    """A new headless Chromium with its own profile: (driver, profile directory)."""
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
    options.add_argument(f"--window-size={window_size[0]},{window_size[1]}")
    profile = tempfile.mkdtemp(prefix="chromium-test-")
    options.add_argument(f"--user-data-dir={profile}")
    for name, value in (capabilities or {}).items():
        options.set_capability(name, value)
    driver = webdriver.Chrome(service=Service(executable_path=driver_path), options=options)
    return driver, profile
