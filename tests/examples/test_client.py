"""The example third-party client plays whole matches against a real HTTP server.

`live_asgi` is the web server as the Procfile runs it, on the test database, so the
client talks HTTP exactly as it would to production: long polls, event streams,
Idempotency-Key, expected_version.
"""

import hashlib
import os
import random
import re
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from examples.client import AccountClient, Api, SeatClient, create_match, join_match, register

PASSWORD = "example-client-password-1234"
ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize(
    ("ruleset", "options"),
    # One life is still a whole poker-dice match, at a third of the test time.
    [("milton_bradley", {}), ("poker_dice", {"lives": 1})],
)
def test_two_seat_clients_play_a_match_to_the_end(live_asgi, ruleset, options):
    apis = [Api(live_asgi.url, timeout=30) for _ in range(2)]
    for i, api in enumerate(apis):
        register(api, f"{ruleset[:6]}_seat{i}", PASSWORD)
    match_id = create_match(apis[0], ruleset, players=2, options=options)["id"]
    join_match(apis[1], match_id)

    finals: dict[int, dict] = {}
    failures: list[BaseException] = []
    lines: list[str] = []
    seats = [
        # A short wait keeps the test quick should a wake-up ever be missed.
        SeatClient(api, match_id, rng=random.Random(i), wait=5, log=lines.append)
        for i, api in enumerate(apis)
    ]

    def play(i: int) -> None:
        try:
            finals[i] = seats[i].play()
        except BaseException as exc:  # surfaced by the assertion below
            failures.append(exc)

    threads = [threading.Thread(target=play, args=(i,), daemon=True) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    for api in apis:
        api.close()

    assert not failures, failures
    assert len(finals) == 2, "a client did not finish"
    assert {f["status"] for f in finals.values()} == {"finished"}
    winners = finals[0]["winner_seats"]
    assert winners == finals[1]["winner_seats"]
    assert len(winners) == 1 and winners[0] in (0, 1)
    assert {f["your_seat"] for f in finals.values()} == {0, 1}
    assert seats[0].actions > 0 and seats[1].actions > 0
    # One line per action, plus the result line of each seat. The seat that waits is
    # woken when the last action commits, so its result line may come before that
    # action's line (written once the actor has the answer).
    assert len(lines) == seats[0].actions + seats[1].actions + 2
    results = [line for line in lines if line.startswith(f"match {match_id} finished: ")]
    assert len(results) == 2 and sum(" won " in line for line in results) == 1

    # The finished rounds are public and their dice match the published commitments.
    rounds = Api(live_asgi.url)
    rounds.token = apis[0].token
    history = rounds.get(f"/matches/{match_id}/rounds/")["rounds"]
    rounds.close()
    assert history
    for record in history:
        for seat, commitment in record["dice_commitments"].items():
            assert record["salts"][seat]
            assert len(commitment) == 64
    if ruleset == "milton_bradley":
        record = history[0]
        for seat, dice in record["dice"].items():
            text = f"{record['salts'][seat]}:{','.join(map(str, dice))}"
            assert hashlib.sha256(text.encode()).hexdigest() == record["dice_commitments"][seat]


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_account_clients_play_many_matches_at_once_from_the_account_stream(live_asgi):
    """Two `--follow` clients, led only by their account streams on the real ASGI server,
    play three matches between them at the same time to the end."""
    apis = [Api(live_asgi.url, timeout=30) for _ in range(2)]
    for i, api in enumerate(apis):
        register(api, f"follow_seat{i}", PASSWORD)
    clients = [AccountClient(api, rng=random.Random(i), log=None) for i, api in enumerate(apis)]
    results: dict[int, list] = {}
    failures: list[BaseException] = []

    def play(i: int) -> None:
        try:
            results[i] = clients[i].play(matches=3)
        except BaseException as exc:  # surfaced by the assertion below
            failures.append(exc)

    threads = [threading.Thread(target=play, args=(i,), daemon=True) for i in range(2)]
    for t in threads:
        t.start()
    match_ids = []
    for _ in range(3):
        match_id = create_match(apis[0], "classic", players=2)["id"]
        join_match(apis[1], match_id)
        match_ids.append(match_id)
    for t in threads:
        t.join(timeout=120)
    for api in apis:
        api.close()
    assert not failures, failures
    assert len(results) == 2, "a client did not finish"
    for finals in results.values():
        assert sorted(f["id"] for f in finals) == match_ids
        assert {f["status"] for f in finals} == {"finished"}
    assert clients[0].actions > 0 and clients[1].actions > 0


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_the_example_runs_as_a_script_with_the_runtime_requirements(live_asgi, tmp_path):
    """As examples/README.md shows it after `make run`: two processes, one creates, one
    joins by id. Its one third-party import is a runtime requirement, so `make run`'s venv
    has it."""
    runtime = (ROOT / "requirements.txt").read_text()
    assert re.search(r"^httpx==", runtime, re.M)
    script = str(ROOT / "examples" / "client.py")
    base = ["--base-url", live_asgi.url, "--password", PASSWORD, "--seed", "3"]
    creator = subprocess.Popen(
        [sys.executable, script, *base, "--username", "ann", "--create", "wild_ones"],
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},  # its first line, before it waits
    )
    first = creator.stdout.readline()
    match_id = re.match(r"created match (\d+)", first).group(1)
    joiner = subprocess.run(
        [sys.executable, script, *base, "--username", "bob", "--match", match_id],
        capture_output=True,
        text=True,
        timeout=120,
    )
    rest, _ = creator.communicate(timeout=60)
    assert joiner.returncode == 0, joiner.stderr
    assert creator.returncode == 0
    outcomes = [line for line in (rest + joiner.stdout).splitlines() if "won" in line]
    assert len(outcomes) == 1
