"""Watching and turn notices in real headless Chromium against the real ASGI server: a
third account (and a fourth, on a phone) finds a live public match in the lobby's watch
list, filtered by preset, and sees its moves and table talk arrive live, and never a die
still hidden: not on the page, not in any answer the page read, not on the match's
stream. A player's tab title and icon mark their turn, a live region announces whose
turn it is, the low-time warning is said, and the sound and notification switches start
off and keep the player's choice.

Screenshots at desktop and phone width go to test-screenshots/ (git-ignored)."""

import json
from urllib.parse import urlsplit

import httpx
import pytest

from accounts.models import User
from accounts.services import token_create
from games.models import Match
from tests.factories import ActiveMatchFactory, PlayerFactory
from tests.games.hidden_dice import Hidden, assert_nothing_hidden, hidden_now
from tests.web.test_play_page_browser import (
    DESKTOP,
    PHONE,
    assert_fits_the_width,
    assert_no_script_errors,
    by_testid,
    emulate,
    present,
    save_screenshot,
    sign_up,
    turn_state,
    wait,
)

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

WATCH_LINES = f"{by_testid('watch-list')} li[data-match-id]"


def bearer(user: User) -> dict[str, str]:
    return {"Authorization": f"Bearer {token_create(user=user)[1]}"}


def table_between(api: httpx.Client, ann: dict, bob: dict, *, turn_seconds: int) -> int:
    """A public classic match, Ann (seat 0) opening, Bob joined: in play."""
    created = api.post(
        "matches/",
        headers=ann,
        json={
            "ruleset": "classic",
            "options": {"first_opener": "creator"},
            "max_players": 2,
            "turn_seconds": turn_seconds,
        },
    )
    assert created.status_code == 201, created.text
    match_id = created.json()["id"]
    joined = api.post(f"matches/{match_id}/join/", headers=bob, json={})
    assert joined.status_code == 200 and joined.json()["status"] == "active", joined.text
    return match_id


def move(api: httpx.Client, headers: dict, match_id: int, kind: str) -> dict:
    """Plays a legal `kind` (`bid`: the lowest quantity offered) and returns it."""
    legal = api.get(f"matches/{match_id}/", headers=headers).json()["legal_actions"]
    entry = next(a for a in legal if a["type"] == kind)
    action = {"type": kind}
    if kind == "bid":
        face, quantity = min(entry["min_quantity_by_face"].items(), key=lambda fq: fq[1])
        action.update(quantity=quantity, face=int(face))
    moved = api.post(f"matches/{match_id}/actions/", headers=headers, json=action)
    assert moved.status_code == 201, moved.text
    return action


def watch_list_ids(driver) -> list[int]:
    lines = driver.find_elements("css selector", WATCH_LINES)
    return [int(line.get_attribute("data-match-id")) for line in lines]


def bid_by(driver, name: str) -> bool:
    """The table's current bid is `name`'s."""
    return f"by {name}" in driver.find_element("css selector", ".bid").text


def chat_text(driver) -> str:
    return driver.find_element("css selector", ".chat-log").text


def dice_on_the_table(driver) -> int:
    """Dice drawn on the game table for the round in play and the seats; an ended round's
    revealed dice (the last round kept on the table, the earlier ones) are public."""
    return driver.execute_script(
        "return [...document.querySelectorAll('.table .die')]"
        ".filter((die) => !die.closest('.last-round, .history')).length;"
    )


def answers_read(driver) -> tuple[set[str], list[tuple[str, object]]]:
    """The paths the page asked for, and the JSON of every API answer it has read in
    full (an open stream is read separately)."""
    paths, urls, finished = set(), {}, set()
    for entry in driver.get_log("performance"):
        message = json.loads(entry["message"])["message"]
        params = message["params"]
        if message["method"] == "Network.requestWillBeSent":
            url = urlsplit(params["request"]["url"])
            if url.scheme in ("http", "https"):
                paths.add(url.path)
        elif message["method"] == "Network.responseReceived":
            response = params["response"]
            if "/api/v1/" in response["url"] and "json" in response.get("mimeType", ""):
                urls[params["requestId"]] = response["url"]
        elif message["method"] == "Network.loadingFinished":
            finished.add(params["requestId"])
    bodies = []
    for request_id, url in urls.items():
        if request_id in finished:
            body = driver.execute_cdp_cmd("Network.getResponseBody", {"requestId": request_id})
            bodies.append((url, json.loads(body["body"])))
    return paths, bodies


def stream_events(base_url: str, headers: dict, match_id: int, last_seq: int) -> list[dict]:
    """The match's stream from its start, read until event `last_seq`."""
    events = []
    url = f"{base_url}/api/v1/matches/{match_id}/stream/?after=0"
    with httpx.stream("GET", url, headers=headers, timeout=30) as response:
        assert response.status_code == 200
        for line in response.iter_lines():
            if line.startswith("data:"):
                events.append(json.loads(line[len("data:") :]))
                if events[-1]["seq"] >= last_seq:
                    return events
    raise AssertionError(f"the stream ended before event {last_seq}")


def assert_sees_no_hidden_die(driver) -> None:
    """A spectator's table: no seat's dice, no controls, no way to talk."""
    assert dice_on_the_table(driver) == 0
    assert present(driver, "your-dice") is None
    assert not driver.find_elements("css selector", ".controls *")
    assert not present(driver, "chat-input").is_displayed()
    assert present(driver, "watching").is_displayed()


def test_a_third_account_watches_a_live_public_match_and_never_sees_a_hidden_die(
    live_asgi, open_browser
):
    ann, bob = PlayerFactory(username="ann"), PlayerFactory(username="bob")
    auth = {"ann": bearer(ann), "bob": bearer(bob)}
    api = httpx.Client(base_url=live_asgi.url + "/api/v1/", timeout=30)
    match_id = table_between(api, auth["ann"], auth["bob"], turn_seconds=3600)
    elsewhere = ActiveMatchFactory(ruleset="perudo").pk  # in play too, other rules
    ActiveMatchFactory(ruleset="classic", private=True)  # never listed to strangers
    snapshots: list[Hidden] = [hidden_now(Match.objects.get(pk=match_id))]

    carol = open_browser(DESKTOP)
    dave = open_browser(PHONE)
    watchers = (carol, dave)
    sign_up(carol, live_asgi.url, "carol")
    sign_up(dave, live_asgi.url, "dave")
    from selenium.webdriver.support.ui import Select

    # The challenge form finds players by the start of their name.
    present(carol, "challenge-username").send_keys("AN")
    suggested = by_testid("player-suggestion")
    wait(
        carol,
        lambda d: [b.text for b in d.find_elements("css selector", suggested)] == ["ann"],
        message="ann suggested",
    )
    save_screenshot(carol, "lobby-player-search")
    present(carol, "player-suggestion").click()
    assert present(carol, "challenge-username").get_attribute("value") == "ann, "

    for driver in watchers:
        wait(driver, lambda d: watch_list_ids(d) == [elsewhere, match_id], message="watch list")
        Select(present(driver, "watch-ruleset")).select_by_value("classic")
        wait(driver, lambda d: watch_list_ids(d) == [match_id], message="the filtered list")
        assert_fits_the_width(driver)
        save_screenshot(driver, "lobby-watch")
        present(driver, "watch-match").click()
        wait(driver, lambda d: turn_state(d).get("status") == "active", message="the table")
        assert turn_state(driver)["text"].startswith("ann's turn")
        assert_sees_no_hidden_die(driver)

    # Ann bids, Bob talks and raises: the watchers see each without a reload.
    move(api, auth["ann"], match_id, "bid")
    for driver in watchers:
        wait(
            driver,
            lambda d: bid_by(d, "ann") and turn_state(d)["text"].startswith("bob's turn"),
            message="ann's bid",
        )
        assert_sees_no_hidden_die(driver)
    said = api.post(f"matches/{match_id}/messages/", headers=auth["bob"], json={"text": "Hm."})
    assert said.status_code == 201, said.text
    move(api, auth["bob"], match_id, "bid")
    for driver in watchers:
        wait(
            driver,
            lambda d: bid_by(d, "bob") and "bob: Hm." in chat_text(d),
            message="bob's raise and his words",
        )
        assert_sees_no_hidden_die(driver)
        assert_fits_the_width(driver)
        save_screenshot(driver, "watching")

    # Ann calls liar: the round's dice are revealed to all; the next round's are not.
    move(api, auth["ann"], match_id, "challenge")
    view = api.get(f"matches/{match_id}/", headers=auth["bob"]).json()
    assert view["status"] == "active" and view["round"]["number"] == 2
    snapshots.append(hidden_now(Match.objects.get(pk=match_id)))
    for driver in watchers:
        wait(
            driver,
            lambda d: (r := present(d, "round-result")) and r.get_attribute("data-round") == "1",
            message="round 1's result",
        )
        wait(
            driver,
            lambda d: "Round 2" in d.find_element("css selector", ".table .actions h2").text,
            message="round 2 on the table",
        )
        marks = driver.find_elements("css selector", by_testid("commitment-verified"))
        assert [m.get_attribute("data-state") for m in marks] == ["verified", "verified"]
        assert_sees_no_hidden_die(driver)
    save_screenshot(dave, "watching-round-result")

    # Nothing any watcher's page read, nor the stream, held a die hidden at the time.
    for driver in watchers:
        paths, bodies = answers_read(driver)
        assert f"/api/v1/matches/{match_id}/" in paths
        assert {p for p in paths if not p.startswith(("/static/", "/api/v1/"))} <= {
            "/",
            "/favicon.ico",
        }
        read = [url for url, _ in bodies if f"/matches/{match_id}/" in url]
        assert len(read) >= 3, read  # the match, its rounds, its messages at least
        for url, body in bodies:
            for hidden in snapshots:
                assert_nothing_hidden(body, hidden, None, url)
        assert driver.execute_script("return window.__loadedOnce === true")
        assert_no_script_errors(driver)
    last_seq = Match.objects.get(pk=match_id).event_seq
    carol_auth = bearer(User.objects.get(username="carol"))
    for event in stream_events(live_asgi.url, carol_auth, match_id, last_seq):
        for hidden in snapshots:
            assert_nothing_hidden(event, hidden, None, ("stream", event["type"]))
    api.close()


def test_the_title_icon_and_live_region_tell_a_player_their_turn(live_asgi, open_browser):
    ann_page = open_browser(DESKTOP)
    sign_up(ann_page, live_asgi.url, "ann")
    # Sound and notification start off.
    assert not present(ann_page, "notice-sound").is_selected()
    assert not present(ann_page, "notice-notify").is_selected()
    assert ann_page.title == "Liar's Dice"

    bob = PlayerFactory(username="bob")
    ann = User.objects.get(username="ann")
    auth = {"ann": bearer(ann), "bob": bearer(bob)}
    api = httpx.Client(base_url=live_asgi.url + "/api/v1/", timeout=30)
    # Bob opens (seat 0), with 20 s a turn: Ann's clock runs low within seconds.
    match_id = table_between(api, auth["bob"], auth["ann"], turn_seconds=20)
    ann_page.get(f"{live_asgi.url}/#/match/{match_id}")
    wait(ann_page, lambda d: turn_state(d).get("status") == "active", message="the table")
    assert turn_state(ann_page)["yourTurn"] == "false"
    assert ann_page.title == "Liar's Dice"

    def icon(driver) -> str:
        return driver.find_element("css selector", "link[rel=icon]").get_attribute("href")

    plain_icon = icon(ann_page)
    move(api, auth["bob"], match_id, "bid")
    wait(ann_page, lambda d: d.title == "(1) Your turn · Liar's Dice", message="the title")
    wait(ann_page, lambda d: turn_state(d)["yourTurn"] == "true", message="the turn bar")
    assert icon(ann_page).startswith("data:image/svg+xml,") and icon(ann_page) != plain_icon
    wait(
        ann_page,
        lambda d: (
            (t := present(d, "announcer").get_attribute("textContent")).startswith("bob bids")
            and t.endswith("Your turn.")
        ),
        message="the announcement",
    )
    # Under 15 s: the warning shows and is said, urgently.
    wait(ann_page, lambda d: present(d, "low-time"), seconds=15, message="the low-time warning")
    # The region is emptied, then filled a moment later (so it is said again): wait for it.
    wait(
        ann_page,
        lambda d: "seconds left" in present(d, "alarm").get_attribute("textContent"),
        seconds=5,
        message="the low-time alarm said",
    )
    save_screenshot(ann_page, "your-turn-low-time")
    emulate(ann_page, PHONE)
    assert_fits_the_width(ann_page)
    save_screenshot(ann_page, "your-turn-low-time")
    emulate(ann_page, DESKTOP)

    # Ann bids: the title, the icon and the announcement follow.
    present(ann_page, "bid-submit").click()
    wait(ann_page, lambda d: d.title == "Liar's Dice", message="the plain title back")
    assert icon(ann_page) == plain_icon
    wait(
        ann_page,
        lambda d: present(d, "announcer").get_attribute("textContent").endswith("bob's turn."),
        message="bob's turn announced",
    )
    assert present(ann_page, "low-time") is None
    assert_no_script_errors(ann_page)

    # The switches keep the player's choice: the notification asks the browser once.
    ann_page.execute_cdp_cmd(
        "Browser.grantPermissions", {"origin": live_asgi.url, "permissions": ["notifications"]}
    )
    present(ann_page, "notice-sound").click()
    present(ann_page, "notice-notify").click()
    wait(
        ann_page,
        lambda d: (
            json.loads(d.execute_script("return localStorage.getItem('liarsdice.notices')"))
            == {"sound": True, "notify": True}
        ),
        message="the choice kept",
    )
    ann_page.refresh()
    wait(ann_page, lambda d: present(d, "notice-notify"), message="the table again")
    assert present(ann_page, "notice-sound").is_selected()
    assert present(ann_page, "notice-notify").is_selected()
    api.close()
