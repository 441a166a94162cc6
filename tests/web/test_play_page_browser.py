"""People playing through the page at `/` in real headless Chromium (Debian's `chromium`
and `chromium-driver`; without them these tests fail rather than skip): sign up, create
a match against bots and play it to the end, for a common-pool preset and for poker dice,
with every round's dice commitments verified in the browser; two people playing each
other turn by turn, each seeing the other's move without a reload; and the lobby's live
parts: a challenge sent, declined and accepted, quick play pairing two people, and the
"your turn" mark following the account stream.

Screenshots at desktop and phone width go to test-screenshots/ (git-ignored)."""

import json
import time
from pathlib import Path

import pytest
from django.core.management import call_command

from accounts.models import User
from accounts.services import token_create
from games.models import Challenge, Match, RoundRecord, Seek
from tests.factories import PlayerFactory

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

ROOT = Path(__file__).resolve().parents[2]
SCREENSHOTS = ROOT / "test-screenshots"
PASSWORD = "a-long-passphrase-42"
DESKTOP = (1280, 1000)
PHONE = (390, 844)


def emulate(driver, size: tuple[int, int]) -> None:
    """The viewport at `size` (a window cannot be narrower than 500 px; a phone's is)."""
    metrics = {"width": size[0], "height": size[1], "deviceScaleFactor": 1, "mobile": size[0] < 500}
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", metrics)
    driver.viewport = size


# --- driving the page ------------------------------------------------------------------


def by_testid(testid: str) -> str:
    return f'[data-testid="{testid}"]'


def wait(driver, predicate, seconds: float = 20, message: str = ""):
    from selenium.common.exceptions import StaleElementReferenceException
    from selenium.webdriver.support.ui import WebDriverWait

    def check(d):
        try:
            return predicate(d)
        except StaleElementReferenceException:
            return False

    try:
        return WebDriverWait(driver, seconds, poll_frequency=0.1).until(check)
    except Exception as error:
        raise AssertionError(
            f"{message or 'page state'} not reached; {page_state(driver)}"
        ) from error


def page_state(driver) -> str:
    return driver.execute_script(
        "const t = document.querySelector('[data-testid=turn-indicator]');"
        "const f = document.getElementById('flash');"
        "return JSON.stringify({hash: location.hash, turn: t && t.textContent,"
        " flash: f && f.textContent});"
    )


def turn_state(driver) -> dict:
    """The turn indicator's state: yourTurn "true"/"false", status, or {} before it shows."""
    return driver.execute_script(
        "const t = document.querySelector('[data-testid=turn-indicator]');"
        "return t ? Object.assign({text: t.textContent}, t.dataset) : {};"
    )


def present(driver, testid: str):
    found = driver.find_elements("css selector", by_testid(testid))
    return found[0] if found else None


def sign_up(driver, base_url: str, username: str) -> None:
    driver.get(base_url + "/")
    wait(driver, lambda d: present(d, "signup-username"), message="sign-up form")
    present(driver, "signup-username").send_keys(username)
    present(driver, "signup-password").send_keys(PASSWORD)
    present(driver, "signup-submit").click()
    wait(driver, lambda d: present(d, "create-match"), message="lobby after sign-up")
    # Marks this page load: still there at the end, so nothing reloaded the page.
    driver.execute_script("window.__loadedOnce = true;")


def wait_for_account_stream(driver) -> None:
    """The page follows the account stream: what happens from now on shows live."""
    wait(
        driver,
        lambda d: d.execute_script("return document.body.dataset.accountLive") == "stream",
        message="the account stream",
    )


def create_match(
    driver, ruleset: str, *, bots: int = 0, options: dict | None = None, level: str | None = None
) -> int:
    """Creates a match from the play page's form with `bots` bots (each of `level`, when
    given, else the picker's default)."""
    from selenium.webdriver.support.ui import Select

    Select(present(driver, "ruleset-select")).select_by_value(ruleset)
    for name, value in (options or {}).items():
        control = driver.find_element("css selector", f'form.create .options [name="{name}"]')
        control.clear()
        control.send_keys(str(value))
    for _ in range(bots):
        present(driver, "add-bot").click()
    if level is not None:
        for picker in driver.find_elements("css selector", "form.create select.bot-level"):
            Select(picker).select_by_value(level)
    present(driver, "create-match").click()
    wait(driver, lambda d: "#/match/" in d.current_url, message="match page")
    return int(driver.current_url.rsplit("/", 1)[-1])


def take_turn(driver) -> str | None:
    """Plays one turn the quickest way to the end: call liar when allowed, else the
    lowest bid the controls offer (or shake, in poker dice). Returns what it did, or None
    when the table was re-drawn under it."""
    from selenium.common.exceptions import NoSuchElementException, StaleElementReferenceException
    from selenium.webdriver.support.expected_conditions import staleness_of

    try:
        controls = driver.find_element("css selector", ".controls")
        for testid in ("challenge", "reroll", "bid-submit"):
            button = present(driver, testid)
            if button is not None:
                button.click()
                wait(driver, staleness_of(controls), message=f"the page after {testid}")
                return testid
    except (StaleElementReferenceException, NoSuchElementException):
        # A live event re-drew the table between finding a control and clicking it:
        # nothing was played; the caller waits for the turn again.
        return None
    raise AssertionError(f"no control to play; {page_state(driver)}")


def my_turn_or_the_end(driver) -> dict:
    """The turn indicator's state once it is your turn or the match is over."""
    return wait(
        driver,
        lambda d: (
            (s := turn_state(d))
            and (s.get("yourTurn") == "true" or s.get("status") != "active")
            and s
        ),
        seconds=60,
        message="my turn or the end",
    )


def play_to_the_end(driver, match_id: int, *, screenshot_as: str, limit_seconds: float = 240):
    deadline = time.monotonic() + limit_seconds
    moves = []
    while time.monotonic() < deadline:
        state = my_turn_or_the_end(driver)
        if state.get("status") != "active":
            return moves
        if len(moves) == 1:
            save_screenshot(driver, f"{screenshot_as}-table")
        move = take_turn(driver)
        if move is not None:
            moves.append(move)
    raise AssertionError(f"match {match_id} did not end; {page_state(driver)}")


def save_screenshot(driver, name: str) -> None:
    SCREENSHOTS.mkdir(exist_ok=True)
    driver.execute_script("window.scrollTo(0, 0)")
    width = driver.viewport[0]
    height = driver.execute_script("return document.documentElement.scrollHeight")
    # The whole page, not only the window: the viewport grows to the page's height.
    emulate(driver, (width, max(height, driver.viewport[1])))
    try:
        driver.save_screenshot(str(SCREENSHOTS / f"{name}-{width}px.png"))
    finally:
        emulate(driver, (width, DESKTOP[1] if width >= 500 else PHONE[1]))


def assert_fits_the_width(driver) -> None:
    """Nothing sticks out sideways: no horizontal scrolling at the window's width."""
    width = driver.execute_script("return document.documentElement.scrollWidth")
    assert width <= driver.viewport[0], (width, driver.viewport)


def assert_rounds_verified(driver, match_id: int) -> None:
    """Every finished round's commitments, as the page's replay checks them: one
    "verified" mark per seat (per box in poker dice), none failing."""
    from selenium.webdriver.support.ui import Select

    records = list(RoundRecord.objects.filter(match_id=match_id).order_by("number"))
    assert records
    # The table may still re-draw with the match's last events: click a current link.
    replay = f'a[href="#/match/{match_id}/replay"]'
    wait(
        driver,
        lambda d: (links := d.find_elements("css selector", replay)) and not links[0].click(),
        message="the replay link",
    )
    rounds = wait(
        driver,
        lambda d: d.find_elements("css selector", 'select[aria-label="Round"]'),
        message="the replay",
    )[0]
    for index, row in enumerate(records):
        Select(rounds).select_by_value(str(index))
        wait(
            driver,
            lambda d, n=row.record["number"]: (
                f"Round {n} ·" in d.find_element("css selector", ".replay h2").text
            ),
            message=f"round {row.number} in the replay",
        )
        present(driver, "replay-reveal") and present(driver, "replay-reveal").click()
        marks = wait(
            driver,
            lambda d: d.find_elements("css selector", by_testid("commitment-verified")),
            message="commitment marks",
        )
        states = {m.get_attribute("data-seat"): m.get_attribute("data-state") for m in marks}
        assert set(states) == set(row.record["dice"]), states
        assert set(states.values()) == {"verified"}, states


def requested_paths(driver) -> set[str]:
    from urllib.parse import urlsplit

    paths = set()
    for entry in driver.get_log("performance"):
        message = json.loads(entry["message"])["message"]
        if message["method"] == "Network.requestWillBeSent":
            url = urlsplit(message["params"]["request"]["url"])
            if url.scheme in ("http", "https"):
                paths.add(url.path)
    return paths


def assert_only_the_api_was_used(driver) -> None:
    """The page reads nothing but its own files and the public API."""
    paths = requested_paths(driver)
    assert "/api/v1/auth/register/" in paths or "/api/v1/auth/token/" in paths
    others = {p for p in paths if p != "/" and not p.startswith(("/static/", "/api/v1/"))}
    assert others <= {"/favicon.ico"}, others


def assert_no_script_errors(driver) -> None:
    severe = [e for e in driver.get_log("browser") if e["level"] == "SEVERE"]
    # A 4xx the page handled (a stale version, say) is logged by Chromium as a failed load.
    assert not [e for e in severe if "Failed to load resource" not in e["message"]], severe


def assert_pages_were_clean(*drivers) -> None:
    """Loaded once (no reload), only the API used, no script error."""
    for driver in drivers:
        assert driver.execute_script("return window.__loadedOnce === true")
        assert_only_the_api_was_used(driver)
        assert_no_script_errors(driver)


# --- the tests -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("ruleset", "bots"), [("milton_bradley", 1), ("poker_dice", 1)], ids=["common-pool", "poker"]
)
def test_a_person_plays_bots_to_the_end_with_dice_verified(
    live_asgi, bot_worker, open_browser, ruleset, bots
):
    driver = open_browser(DESKTOP)
    sign_up(driver, live_asgi.url, f"ada-{ruleset[:5]}")
    match_id = create_match(driver, ruleset, bots=bots)
    assert Match.objects.get(pk=match_id).status == Match.Status.ACTIVE  # full: started

    moves = play_to_the_end(driver, match_id, screenshot_as=ruleset)
    match = Match.objects.get(pk=match_id)
    assert match.status == Match.Status.FINISHED
    assert moves
    state = turn_state(driver)
    assert state["status"] == "finished" and "Match over" in state["text"]
    # The last round's result is on the table with every seat's dice checked.
    last = RoundRecord.objects.filter(match=match).order_by("-number").first()
    result = wait(
        driver,
        lambda d: (
            (r := present(d, "round-result"))
            and r.get_attribute("data-round") == str(last.number)
            and r
        ),
        message="the last round's result",
    )
    marks = result.find_elements("css selector", by_testid("commitment-verified"))
    assert {m.get_attribute("data-state") for m in marks} == {"verified"}
    assert len(marks) == len(last.record["dice"])
    save_screenshot(driver, f"{ruleset}-finished")

    assert_rounds_verified(driver, match_id)
    save_screenshot(driver, f"{ruleset}-replay")
    assert_pages_were_clean(driver)
    call_command("ledger_check")


def test_two_people_play_each_other_turn_by_turn_without_reloading(live_asgi, open_browser):
    from selenium.webdriver.support.ui import Select

    ann = open_browser(DESKTOP)
    bob = open_browser(PHONE)
    sign_up(ann, live_asgi.url, "ann")
    sign_up(bob, live_asgi.url, "bob")
    save_screenshot(bob, "lobby")
    match_id = create_match(ann, "wild_ones", options={"dice_per_player": 3})
    wait(ann, lambda d: present(d, "start-match"), message="the open table")

    # Bob finds the match in his lobby (refreshed live) and joins; the match fills and
    # starts, and Ann's open table turns into the game table by itself.
    wait(bob, lambda d: present(d, "join-match"), message="the open match in bob's lobby")
    present(bob, "join-match").click()
    wait(bob, lambda d: turn_state(d).get("status") == "active", message="bob's table")
    wait(ann, lambda d: turn_state(d).get("status") == "active", message="ann's table")

    players = {"ann": ann, "bob": bob}
    first = next(n for n, d in players.items() if turn_state(d)["yourTurn"] == "true")
    second = "bob" if first == "ann" else "ann"
    opener, other = players[first], players[second]
    assert turn_state(other)["yourTurn"] == "false"

    # The opener bids; the other sees the bid and their turn arrive without a reload.
    Select(present(opener, "bid-face")).select_by_value("3")
    quantity = present(opener, "bid-quantity")
    assert quantity.get_attribute("min") == "1" and quantity.get_attribute("max") == "6"
    quantity.clear()
    quantity.send_keys("2")
    present(opener, "bid-submit").click()
    wait(other, lambda d: turn_state(d).get("yourTurn") == "true", message="the other's turn")
    assert "2 \N{MULTIPLICATION SIGN} 3s" in other.find_element("css selector", ".bid").text
    assert Select(present(other, "bid-face")).first_selected_option.get_attribute("value") == "3"
    assert present(other, "bid-quantity").get_attribute("min") == "3"

    # Table talk reaches the other side too.
    present(other, "chat-input").send_keys("Two threes? Bold.")
    present(other, "chat-send").click()
    wait(opener, lambda d: "Two threes? Bold." in d.find_element("css selector", ".chat-log").text)

    # The other raises; the opener sees it and calls liar; both see the same verified result.
    present(other, "bid-submit").click()
    wait(opener, lambda d: turn_state(d).get("yourTurn") == "true", message="the opener's turn")
    assert "3 \N{MULTIPLICATION SIGN} 3s" in opener.find_element("css selector", ".bid").text
    save_screenshot(players["bob"], "table")
    present(opener, "challenge").click()
    for driver in (ann, bob):
        wait(
            driver,
            lambda d: d.find_elements("css selector", by_testid("commitment-verified")),
            message="the round result",
        )
        marks = driver.find_elements("css selector", by_testid("commitment-verified"))
        assert [m.get_attribute("data-state") for m in marks] == ["verified", "verified"]
    save_screenshot(players["bob"], "round-result")

    # Then on, turn by turn, to the end of the match.
    deadline = time.monotonic() + 180
    while Match.objects.get(pk=match_id).status == Match.Status.ACTIVE:
        assert time.monotonic() < deadline, page_state(ann) + page_state(bob)
        for driver in (ann, bob):
            if turn_state(driver).get("yourTurn") == "true":
                take_turn(driver)
        time.sleep(0.2)
    for driver in (ann, bob):
        wait(driver, lambda d: turn_state(d).get("status") == "finished", message="the end")
        assert_pages_were_clean(driver)
    save_screenshot(ann, "h2h-finished")
    assert_rounds_verified(bob, match_id)
    call_command("ledger_check")


def at_table(driver) -> int:
    """Waits for the active game table; returns its match id."""
    wait(driver, lambda d: turn_state(d).get("status") == "active", message="the game table")
    return int(driver.current_url.rsplit("/", 1)[-1])


def test_a_challenge_is_declined_then_accepted_live_and_both_reach_the_table(
    live_asgi, open_browser
):
    from selenium.webdriver.support.ui import Select

    ann = open_browser(PHONE)
    bob = open_browser(DESKTOP)
    sign_up(ann, live_asgi.url, "ann")
    sign_up(bob, live_asgi.url, "bob")
    for driver in (ann, bob):
        wait_for_account_stream(driver)

    def challenge_bob(ruleset: str) -> None:
        present(ann, "challenge-username").send_keys("Bob")
        Select(present(ann, "challenge-ruleset")).select_by_value(ruleset)
        Select(present(ann, "challenge-turn")).select_by_value("300")
        present(ann, "challenge-send").click()

    # Bob declines the first: it leaves Ann's "sent" list by itself.
    challenge_bob("wild_ones")
    wait(
        ann,
        lambda d: (sent := present(d, "challenges-sent")) and "bob" in sent.text,
        message="ann's sent list",
    )
    wait(bob, lambda d: present(d, "challenge-decline"), message="the challenge in bob's lobby")
    assert "ann challenges you" in present(bob, "challenges-received").text
    present(bob, "challenge-decline").click()
    wait(
        ann,
        lambda d: (sent := present(d, "challenges-sent")) and "None." in sent.text,
        message="the declined challenge gone",
    )
    assert Challenge.objects.get().status == Challenge.Status.DECLINED

    # The second he accepts: the match starts and both land at the table, no reload.
    challenge_bob("classic")
    accept = wait(bob, lambda d: present(d, "challenge-accept"), message="the second challenge")
    assert "Classic" in present(bob, "challenges-received").text
    assert_fits_the_width(ann)
    save_screenshot(bob, "lobby-challenged")
    save_screenshot(ann, "lobby-challenge-sent")
    accept.click()
    match_id = at_table(bob)
    assert at_table(ann) == match_id
    challenge = Challenge.objects.get(status=Challenge.Status.ACCEPTED)
    assert challenge.match_id == match_id
    match = Match.objects.get(pk=match_id)
    assert match.ruleset == "classic" and match.turn_seconds == 300
    seats = {s.player.username: s.seat for s in match.seats.select_related("player")}
    assert seats == {"ann": 0, "bob": 1}
    assert_pages_were_clean(ann, bob)


def test_two_people_quick_play_the_same_rules_and_meet_at_one_table(live_asgi, open_browser):
    from selenium.webdriver.support.ui import Select

    ann = open_browser(PHONE)
    bob = open_browser(DESKTOP)
    sign_up(ann, live_asgi.url, "ann")
    sign_up(bob, live_asgi.url, "bob")
    wait_for_account_stream(ann)

    def quick_play(driver) -> None:
        Select(present(driver, "quick-play-ruleset")).select_by_value("perudo")
        present(driver, "quick-play").click()

    # Ann looks, thinks better of it, and looks again.
    quick_play(ann)
    wait(ann, lambda d: present(d, "quick-play-cancel"), message="ann waiting")
    assert "Looking for an opponent" in present(ann, "quick-play-waiting").text
    assert_fits_the_width(ann)
    save_screenshot(ann, "lobby-quick-play")

    # The focus follows the swap, for people on a keyboard.
    def focused(driver) -> str | None:
        return driver.switch_to.active_element.get_attribute("data-testid")

    wait(ann, lambda d: focused(d) == "quick-play-cancel", message="focus on cancel")
    present(ann, "quick-play-cancel").click()
    wait(ann, lambda d: present(d, "quick-play").is_displayed(), message="the form back")
    wait(ann, lambda d: focused(d) == "quick-play", message="focus back on quick play")
    assert Seek.objects.get().status == Seek.Status.CANCELLED
    quick_play(ann)
    wait(ann, lambda d: present(d, "quick-play-cancel"), message="ann waiting again")

    # Bob asks for the same: paired at once, he goes to the table; Ann follows live.
    quick_play(bob)
    match_id = at_table(bob)
    assert at_table(ann) == match_id
    match = Match.objects.get(pk=match_id)
    assert match.ruleset == "perudo" and match.status == Match.Status.ACTIVE
    assert {s.player.username for s in match.seats.select_related("player")} == {"ann", "bob"}
    assert set(Seek.objects.filter(match=match).values_list("status", flat=True)) == {"matched"}
    assert_pages_were_clean(ann, bob)


def test_the_your_turn_mark_in_the_lobby_follows_the_opponents_move(live_asgi, open_browser):
    import httpx

    ann = open_browser(DESKTOP)
    sign_up(ann, live_asgi.url, "ann")
    wait_for_account_stream(ann)
    bob = PlayerFactory(username="bob")
    tokens = {
        "ann": token_create(user=User.objects.get(username="ann"))[1],
        "bob": token_create(user=bob)[1],
    }
    api = httpx.Client(base_url=live_asgi.url + "/api/v1/", timeout=30)
    auth = {name: {"Authorization": f"Bearer {token}"} for name, token in tokens.items()}

    # Bob opens a table where he bids first; Ann joins through the API (another device).
    created = api.post(
        "matches/",
        headers=auth["bob"],
        json={
            "ruleset": "classic",
            "options": {"first_opener": "creator"},
            "max_players": 2,
            "turn_seconds": 3600,
        },
    )
    assert created.status_code == 201, created.text
    match_id = created.json()["id"]
    joined = api.post(f"matches/{match_id}/join/", headers=auth["ann"], json={})
    assert joined.status_code == 200, joined.text

    # The match shows up in Ann's lobby (match_started), not yet her turn.
    line = f'#my-matches [data-match-id="{match_id}"]'
    wait(ann, lambda d: d.find_elements("css selector", line), message="the match in my matches")
    assert not ann.find_elements("css selector", f"{line} {by_testid('your-turn-mark')}")

    # Bob bids; the mark and the nav badge appear on Ann's lobby without a reload.
    legal = api.get(f"matches/{match_id}/", headers=auth["bob"]).json()["legal_actions"]
    bid = next(a for a in legal if a["type"] == "bid")
    face, quantity = next(iter(bid["min_quantity_by_face"].items()))
    action = {"type": "bid", "quantity": quantity, "face": int(face)}
    moved = api.post(f"matches/{match_id}/actions/", headers=auth["bob"], json=action)
    assert moved.status_code == 201, moved.text
    wait(
        ann,
        lambda d: d.find_elements("css selector", f"{line} {by_testid('your-turn-mark')}"),
        message="the your-turn mark",
    )
    assert ann.find_element("css selector", "#nav .badge").text == "1"
    save_screenshot(ann, "lobby-your-turn")
    assert ann.execute_script("return window.__loadedOnce === true")
    assert_no_script_errors(ann)
    api.close()
