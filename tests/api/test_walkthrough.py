"""The curl walkthrough of docs/API_GUIDE.md, run verbatim (only the server's address
differs) with bash and curl against a real HTTP server on the test database."""

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from games.models import Match, RoundRecord

GUIDE = Path(__file__).resolve().parents[2] / "docs" / "API_GUIDE.md"
DEFAULT_API = "API=http://127.0.0.1:8000/api/v1"


def walkthrough() -> str:
    text = GUIDE.read_text()
    section = text[text.index("## Walkthrough with curl") :]
    return re.search(r"```sh\n(.*?)```", section, re.S).group(1)


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_the_guides_walkthrough_runs_verbatim(live_asgi):
    script = walkthrough()
    assert script.startswith(DEFAULT_API + "\n")
    script = script.replace(DEFAULT_API, f"API={live_asgi.url}/api/v1", 1)
    assert shutil.which("curl") and shutil.which("bash")
    # -e and pipefail: any failed call (curl --fail-with-body) stops the script.
    done = subprocess.run(
        ["bash", "-euo", "pipefail", "-c", script],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert "active" in lines  # step 3
    assert '    "version": 2,' in lines  # step 4: created, then joined and started
    assert any("'winner_seat'" in line for line in lines)  # step 6: the challenge's result
    match = Match.objects.get()
    assert match.created_by.username == "alice"
    assert RoundRecord.objects.filter(match=match, number=1).exists()  # Bob's challenge
