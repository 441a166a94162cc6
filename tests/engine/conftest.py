"""Engine tests are pure: no Django, no database."""

import pytest


@pytest.fixture(autouse=True)
def _fresh_cache():
    """Override the project-wide autouse cache fixture: the engine has no cache."""
    yield
