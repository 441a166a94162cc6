"""Lists longer than a page, filtered, against a real server: `Client.pages` keeps every
filter from page to page (it once lost the query string of each `next` link, restarting
the list unfiltered for ever), and a bot that comes online to more pending challenges than
a page holds answers each once, then reads its stream."""

import itertools
import threading

import pytest
from liarsdice import BotRunner

from examples.bot import Estimator
from tests.clients.conftest import wait_for

pytestmark = pytest.mark.django_db(transaction=True)

PENDING = 45  # three pages of 20, the default page size


def challenged_by_many(base_url: str, new_client):
    """A bot's client with PENDING challenges waiting for it, among others it must not
    see in its filtered list: challenges it sent, one it declined, one withdrawn."""
    bot = new_client(base_url, "paged")
    name = bot.me()["username"]
    challengers = [new_client(base_url, "pager") for _ in range(3)]
    pending = {c.challenge([name], "classic")["id"] for c in challengers for _ in range(15)}
    target = challengers[0].me()["username"]
    for _ in range(5):
        bot.challenge([target], "classic")
    bot.decline_challenge(challengers[1].challenge([name], "classic")["id"])
    challengers[2].cancel_challenge(challengers[2].challenge([name], "classic")["id"])
    assert len(pending) == PENDING
    return bot, challengers, pending


def test_a_filtered_list_of_three_pages_gives_exactly_its_items(live_asgi, new_client):
    bot, _, pending = challenged_by_many(live_asgi.url, new_client)
    asked: list[str] = []
    bot.observer = lambda route, response, seconds: asked.append(str(response.request.url))

    first = bot.challenges(direction="incoming", status="pending")
    # At most one item too many: a list that pages for ever fails here instead of hanging.
    seen = [c["id"] for c in itertools.islice(bot.pages(first), PENDING + 1)]

    assert len(seen) == PENDING and set(seen) == pending
    assert len(asked) == 3, asked  # the first page and two next links, nothing more
    assert all("direction=incoming" in url and "status=pending" in url for url in asked)
    assert all("cursor=" in url for url in asked[1:])


def test_a_bot_online_to_three_pages_of_challenges_declines_each_once(live_asgi, new_client):
    bot, challengers, pending = challenged_by_many(live_asgi.url, new_client)
    declines: list[str] = []
    bot.observer = lambda route, response, seconds: (
        declines.append(route) if route.endswith("/decline/") else None
    )
    lines: list[str] = []
    runner = BotRunner(Estimator(), bot, accept=lambda challenge: False, log=lines.append)
    thread = threading.Thread(target=runner.run, daemon=True)
    thread.start()
    try:
        wait_for(lambda: len(declines) >= PENDING and runner.account_stream.connections)
        # Caught up: the account stream is read, so a new challenge is answered from it.
        late = challengers[0].challenge([bot.me()["username"]], "classic")["id"]
        wait_for(lambda: len(declines) > PENDING)
        threading.Event().wait(0.5)  # time enough for any decline too many
    finally:
        runner.stop()
        thread.join(timeout=10)
    assert len(declines) == PENDING + 1, (len(declines), lines)
    assert len(set(declines)) == PENDING + 1  # each challenge answered once
    statuses = {c["id"]: c["status"] for c in bot.pages(bot.challenges(direction="incoming"))}
    assert all(statuses[i] == "declined" for i in {*pending, late})


def test_next_links_are_followed_on_the_clients_own_server(live_asgi, new_client):
    """The server names the host it was asked for in its `next` links (here `localhost`,
    as a proxy might name another): the client follows their path and query on its own
    base URL, so its token never goes to a host it was not given."""
    bot, _, pending = challenged_by_many(live_asgi.url, new_client)
    port = live_asgi.url.rsplit(":", 1)[1]
    bot.http.headers["Host"] = f"localhost:{port}"
    asked: list[str] = []
    bot.observer = lambda route, response, seconds: asked.append(str(response.request.url))

    first = bot.challenges(direction="incoming", status="pending")
    assert first["next"].startswith(f"http://localhost:{port}/")
    seen = [c["id"] for c in itertools.islice(bot.pages(first), PENDING + 1)]

    assert set(seen) == pending and len(seen) == PENDING
    assert len(asked) == 3 and all(url.startswith(live_asgi.url + "/") for url in asked), asked
