"""The browser fixture every page test shares (defined with the play page's tests)."""

from tests.web.test_play_page_browser import open_browser  # noqa: F401
