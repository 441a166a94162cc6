"""The example third-party client plays whole matches against a real HTTP server.

`live_server` runs Django's threaded server on the test database, so the client talks
HTTP exactly as it would to production: long polls, Idempotency-Key, expected_version.
"""

import hashlib
import random
import threading

import pytest

from examples.client import Api, SeatClient, create_match, join_match, register

PASSWORD = "example-client-password-1234"


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize(
    ("ruleset", "options"),
    # One life is still a whole poker-dice match, at a third of the test time.
    [("milton_bradley", {}), ("poker_dice", {"lives": 1})],
)
def test_two_seat_clients_play_a_match_to_the_end(live_server, ruleset, options):
    apis = [Api(live_server.url, timeout=30) for _ in range(2)]
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
    # One line per action, plus the result line of each seat.
    assert len(lines) == seats[0].actions + seats[1].actions + 2
    assert sum("won" in line for line in lines[-2:]) == 1

    # The finished rounds are public and their dice match the published commitments.
    rounds = Api(live_server.url)
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
