"""The bot kit and the example bot against a real server and a real worker playing the
server's bots: every preset to the end, and a server restart in the middle of a match."""

import threading

import pytest
from liarsdice import BotRunner, Client, Seek, accept_rulesets

from examples.bot import Estimator
from tests.servers import WebServer

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

# The fastest whole match of each preset: 2 seats, few dice, one life.
PRESETS = {
    "classic": {"dice_per_player": 2},
    "milton_bradley": {"dice_per_player": 2},
    "perudo": {"dice_per_player": 2},
    "wild_ones": {"dice_per_player": 2},
    "roll_off": {"dice_per_player": 2},
    "poker_dice": {"lives": 1},
}
ACTION_TYPES = {"bid", "challenge", "exact", "pass", "show_reroll", "accept", "reroll"}


def run_in_background(runner: BotRunner, matches: int) -> tuple[threading.Thread, list]:
    results: list = []
    thread = threading.Thread(target=lambda: results.extend(runner.run(matches)), daemon=True)
    thread.start()
    return thread, results


def our_actions(client: Client, match_id: int, seat: int) -> int:
    events = client.events(match_id, after=0).events
    return sum(e.type in ACTION_TYPES and e.data.get("seat") == seat for e in events)


def test_the_example_bot_plays_every_preset_against_the_servers_bots(
    live_asgi, celery_processes, new_client
):
    celery_processes.start_worker()
    client = new_client(live_asgi.url, "kit")
    ids = {
        client.create_match(ruleset, options=options, bots=["random"]).id: ruleset
        for ruleset, options in PRESETS.items()
    }
    lines: list[str] = []
    runner = BotRunner(Estimator(), client, max_matches=len(ids), log=lines.append)
    thread, results = run_in_background(runner, len(ids))
    thread.join(timeout=120)
    runner.stop()
    assert not thread.is_alive(), lines
    assert runner.errors == [], lines
    assert {m.id for m in results} == set(ids), lines
    assert {m.status for m in results} == {"finished"}
    for match in results:
        assert len(match.winner_seats) == 1, ids[match.id]
        assert our_actions(client, match.id, 0) > 0, ids[match.id]


def test_the_kit_plays_on_through_a_server_restart(celery_processes, new_client):
    celery_processes.start_worker()
    first = WebServer(workers=1).start()
    port = first.port
    # Retries that outlast a restart, so an action in flight is resent with its key.
    client = new_client(first.url, "restart", max_retries=8)
    match = client.create_match("classic", options={"dice_per_player": 4}, bots=["random"])
    lines: list[str] = []
    runner = BotRunner(Estimator(), client, log=lines.append)
    thread, results = run_in_background(runner, 1)
    try:
        deadline = threading.Event()
        while runner.actions < 2 and not deadline.wait(0.1):
            assert thread.is_alive(), lines
        assert client.match(match.id).status == "active"  # mid-match
        first.stop()
        second = WebServer(workers=1, PORT=str(port)).start()
    except BaseException:
        runner.stop()
        raise
    try:
        thread.join(timeout=120)
        runner.stop()
        assert not thread.is_alive(), lines
        assert runner.errors == [], lines
        assert [m.id for m in results] == [match.id]
        assert results[0].status == "finished"
        # Every action the kit counted was applied once, and no other was.
        assert our_actions(client, match.id, 0) == runner.actions
    finally:
        second.stop()


def test_kits_accept_challenges_by_policy_and_meet_through_quick_play(live_asgi, new_client):
    ann, bob = new_client(live_asgi.url, "pol"), new_client(live_asgi.url, "pol")
    bob_name = bob.me()["username"]
    refused = ann.challenge([bob_name], "perudo")
    wanted = ann.challenge([bob_name], "classic")
    lines: list[str] = []
    hosts = BotRunner(Estimator(), ann, log=lines.append)
    guest = BotRunner(Estimator(), bob, accept=accept_rulesets("classic"), log=lines.append)
    runs = [run_in_background(hosts, 1), run_in_background(guest, 1)]
    for thread, _ in runs:
        thread.join(timeout=60)
        assert not thread.is_alive(), lines
    statuses = {c["id"]: c["status"] for c in ann.pages(ann.challenges(direction="outgoing"))}
    assert statuses == {refused["id"]: "declined", wanted["id"]: "accepted"}
    started = next(
        c["match_id"] for c in ann.challenges(direction="outgoing")["results"] if c["match_id"]
    )
    assert [results[0].id for _, results in runs] == [started, started]
    assert hosts.errors == guest.errors == []

    # Both seek the same quick play: paired into one match, played to the end.
    seekers = [
        BotRunner(Estimator(), client, seek=Seek("wild_ones"), log=lines.append)
        for client in (ann, bob)
    ]
    runs = [run_in_background(seeker, 1) for seeker in seekers]
    for thread, _ in runs:
        thread.join(timeout=90)
        assert not thread.is_alive(), lines
    matches = [results[0] for _, results in runs]
    assert matches[0].id == matches[1].id and matches[0].status == "finished"
    assert matches[0].ruleset == "wild_ones"
    assert not [s for s in ann.pages(ann.seeks(status="waiting"))]


def test_stop_ends_an_idle_runner_at_once(live_asgi, new_client):
    client = new_client(live_asgi.url, "idle")
    runner = BotRunner(Estimator(), client, log=None)
    thread, results = run_in_background(runner, None)
    pause = threading.Event()
    while not (runner.account_stream and runner.account_stream.connections):
        assert not pause.wait(0.05)
    pause.wait(0.5)  # connected and reading: blocked until the next heartbeat
    runner.stop()
    thread.join(timeout=5)
    assert not thread.is_alive() and results == []


class FailsOnce(Estimator):
    """The example bot with a bug that bites once, on its first turn."""

    def __init__(self) -> None:
        super().__init__()
        self.calls: list[int] = []  # the version of each state act() was given

    def act(self, match):
        self.calls.append(match.version)
        if len(self.calls) == 1:
            raise RuntimeError("a bug in the bot")
        return super().act(match)


class AlwaysFails:
    def __init__(self) -> None:
        self.calls: list[int] = []

    def act(self, match):
        self.calls.append(match.version)
        raise ValueError("this bot never plays")


def play_one_match(bot, client: Client) -> tuple[BotRunner, list, list[str]]:
    """Runs `bot` until one match ended (at most 90 s): its runner, results and log."""
    lines: list[str] = []
    runner = BotRunner(bot, client, log=lines.append)
    thread, results = run_in_background(runner, 1)
    thread.join(timeout=90)
    runner.stop()
    assert not thread.is_alive(), lines
    return runner, results, lines


def timed_out(client: Client, match_id: int, seat: int) -> int:
    events = client.events(match_id, after=0).events
    return sum(e.type == "turn_timed_out" and e.data.get("seat") == seat for e in events)


def test_a_bot_whose_act_raises_once_plays_on_after_the_retry(
    live_asgi, celery_processes, new_client
):
    celery_processes.start_worker()
    client = new_client(live_asgi.url, "oops")
    match = client.create_match("classic", options={"dice_per_player": 2}, bots=["random"])
    bot = FailsOnce()
    runner, results, lines = play_one_match(bot, client)
    assert [m.status for m in results] == ["finished"], lines
    # The failed turn was played by the retry, on the same turn, not by the timeout.
    assert bot.calls[1] == bot.calls[0]
    assert timed_out(client, match.id, 0) == 0
    assert our_actions(client, match.id, 0) == runner.actions > 0
    assert [type(e) for e in runner.errors] == [RuntimeError]
    logged = next(line for line in lines if "a bug in the bot" in line)
    assert "Traceback (most recent call last)" in logged and "in act" in logged
    assert "trying once more" in logged


def test_a_bot_that_always_raises_leaves_its_turns_to_the_timeout(
    live_asgi, celery_processes, new_client
):
    celery_processes.start_worker()
    client = new_client(live_asgi.url, "broken")
    match = client.create_match(
        "classic",
        options={"dice_per_player": 5},
        bots=["random"],
        turn_seconds=10,
        on_timeout="auto",  # the cautious bot plays the turn; out after two in a row
        max_timeouts=2,
    )
    bot = AlwaysFails()
    runner, results, lines = play_one_match(bot, client)
    # The match's thread lived on through its turns to the end of the match.
    assert [m.id for m in results] == [match.id] and results[0].over, lines
    assert timed_out(client, match.id, 0) == 2
    assert runner.actions == 0  # the moves of seat 0 were the timeout policy's
    # Each of the two turns: act() once, then once more, both logged with a traceback.
    turns = sorted(set(bot.calls))
    assert len(turns) == 2 and bot.calls == [turns[0]] * 2 + [turns[1]] * 2, bot.calls
    failures = [line for line in lines if "this bot never plays" in line]
    assert len(failures) == 4 and all("Traceback" in line for line in failures)
    assert sum("leaving the turn to its timeout" in line for line in failures) == 2
