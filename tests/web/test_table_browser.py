"""The table in real headless Chromium, at desktop and phone width, on the real ASGI
server: an ended round stays on the table with the dice that made the count marked (and
on a phone in sight without scrolling when two others settle it), earlier rounds open
from a short history; an aborted match says why and what each seat got back; poker dice
fits a phone. The moves are played through the games services (the other devices), the
page follows them live.

Screenshots go to test-screenshots/ (git-ignored)."""

import pytest

from accounts.services import token_create
from games import engine, services
from games.models import Match, RoundRecord
from tests.factories import ActiveMatchFactory, PlayerFactory, fund_house
from tests.web.test_play_page_browser import (
    DESKTOP,
    PHONE,
    assert_fits_the_width,
    assert_no_script_errors,
    by_testid,
    present,
    save_screenshot,
    turn_state,
    wait,
)

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]


def log_in(driver, base_url: str, user, page: str = "") -> None:
    """The page (`#/<page>`), logged in as `user` (a token of theirs)."""
    driver.get(base_url + "/")
    token = token_create(user=user)[1]
    driver.execute_script("sessionStorage.setItem('liarsdice.token', arguments[0])", token)
    driver.get(f"{base_url}/#/{page}")
    driver.refresh()


def open_table(driver, base_url: str, user, match_id: int) -> None:
    log_in(driver, base_url, user, f"match/{match_id}")
    wait(driver, lambda d: turn_state(d).get("status"), message="the table")


def play_once(match_id: int) -> dict:
    """The player whose turn it is calls liar when allowed, else bids the lowest (holds
    nothing and shakes, in poker dice); returns the action."""
    match = Match.objects.get(pk=match_id)
    user = match.seats.select_related("player").get(seat=match.turn_seat).player
    legal = {
        a["type"]: a
        for a in engine.legal_actions(engine.state_from_json(match.state), match.turn_seat)
    }
    if "challenge" in legal:
        action = {"type": "challenge"}
    elif "bid" in legal and "min_hand" in legal["bid"]:
        action = {"type": "bid", "hand": legal["bid"]["min_hand"]}
    elif "bid" in legal:
        # The lowest bid, on a face other than ones where one is as low (ones may be wild).
        bids = legal["bid"]["min_quantity_by_face"].items()
        face, quantity = min(bids, key=lambda x: (x[1], x[0] == "1"))
        action = {"type": "bid", "quantity": quantity, "face": int(face)}
    else:
        action = {"type": "reroll", "hold": legal["reroll"].get("hold_required", [])}
    services.action_submit(match_id=match_id, user=user, action=action)
    return action


def result_on_table(driver, number: int):
    return wait(
        driver,
        lambda d: (
            (r := present(d, "round-result"))
            and r.get_attribute("data-round") == str(number)
            and r.find_elements("css selector", by_testid("commitment-verified"))
            and r
        ),
        message=f"round {number}'s result on the table",
    )


def marked(result) -> int:
    return len(result.find_elements("css selector", ".die.counted"))


def in_sight(driver, element) -> bool:
    """The element is wholly inside the window as it opened (nothing scrolled)."""
    return driver.execute_script(
        "const r = arguments[0].getBoundingClientRect();"
        "return window.scrollY === 0 && r.top >= 0 && r.bottom <= window.innerHeight;",
        element,
    )


def test_a_settled_round_stays_on_the_table_with_the_counted_dice_marked(live_asgi, open_browser):
    bob, carl, ann = (PlayerFactory(username=n) for n in ("bob", "carl", "ann"))
    # Wild ones: the marks must take in the ones too. Bob opens, Carl is next.
    match = ActiveMatchFactory(
        players=[bob, carl, ann],
        ruleset="wild_ones",
        options={"first_opener": "creator"},
        opener_seat=0,
        turn_seconds=3600,
    )
    phone, desktop = open_browser(PHONE), open_browser(DESKTOP)
    open_table(phone, live_asgi.url, ann, match.pk)
    open_table(desktop, live_asgi.url, bob, match.pk)

    # Bob bids and Carl calls liar: the round settles without Ann, who sees it at once,
    # on her phone, in sight without scrolling.
    bid = play_once(match.pk)
    assert play_once(match.pk) == {"type": "challenge"}
    record = RoundRecord.objects.get(match=match, number=1).record
    result = result_on_table(phone, 1)
    assert in_sight(phone, result)
    # Every die that made the count is marked (the bid's face and the wild ones): as many
    # as the count the server found.
    assert marked(result) == record["result"]["actual_count"]
    assert bid["face"] != 1
    wild = sum(d.count(1) for d in record["dice"].values())
    assert len(result.find_elements("css selector", ".die.counted.wild")) == wild
    assert "there were" in result.text and "lose" in result.text
    save_screenshot(phone, "table-round-settled")
    assert_fits_the_width(phone)

    # Round 2 goes on: its bids show while round 1's result stays on the table.
    play_once(match.pk)
    wait(
        phone,
        lambda d: d.find_elements("css selector", ".actions .log li"),
        message="round 2's bid",
    )
    assert present(phone, "round-result").get_attribute("data-round") == "1"
    assert present(desktop, "round-result").get_attribute("data-round") == "1"

    # Round 2 ends: it takes the table, round 1 goes to the history, a click away.
    while not RoundRecord.objects.filter(match=match, number=2).exists():
        play_once(match.pk)
    for driver in (phone, desktop):
        result_on_table(driver, 2)
        history = wait(
            driver, lambda d: d.find_element("css selector", "details.history"), message="history"
        )
        assert "Earlier rounds (1)" in history.text
        history.find_element("css selector", "summary").click()
        earlier = history.find_element("css selector", 'details.earlier[data-round="1"]')
        assert "Round 1:" in earlier.text and "there were" in earlier.text
        earlier.find_element("css selector", "summary").click()
        wait(
            driver,
            lambda d, e=earlier: e.find_elements("css selector", by_testid("commitment-verified")),
            message="round 1's dice in the history",
        )
        assert marked(earlier) == record["result"]["actual_count"]
        save_screenshot(driver, "table-round-history")
        assert_fits_the_width(driver)
        assert_no_script_errors(driver)


def test_an_aborted_match_shows_its_reason_and_refund(live_asgi, open_browser):
    ann, bob, moderator = (
        PlayerFactory(username="ann"),
        PlayerFactory(username="bob"),
        PlayerFactory(),
    )
    match = ActiveMatchFactory(players=[ann, bob], buy_in=50, ante=2, turn_seconds=3600)
    play_once(match.pk)
    phone, desktop = open_browser(PHONE), open_browser(DESKTOP)
    open_table(phone, live_asgi.url, ann, match.pk)
    open_table(desktop, live_asgi.url, bob, match.pk)

    services.match_abort(match_id=match.pk, actor=moderator)
    for driver, you, other in ((phone, "you", "bob"), (desktop, "you", "ann")):
        state = wait(
            driver, lambda d: (s := turn_state(d)).get("status") == "aborted" and s, message="abort"
        )
        assert "Match aborted: aborted by a moderator." in state["text"]
        # Each got their buy-in back whole (their antes and their stack).
        assert "Chips given back:" in state["text"]
        assert f"{you} 50" in state["text"] and f"{other} 50" in state["text"]
        seats = driver.find_elements("css selector", ".seat")
        assert len(seats) == 2
        assert all("playing" not in s.text and "50 chips back" in s.text for s in seats)
        # The round in play shows its dice, and says the abort stopped it: no empty ".".
        result = result_on_table(driver, 1)
        assert "Round 1: stopped by the abort" in result.text
        outcome = result.find_element("css selector", ".outcome").text
        assert outcome == "The match was aborted in this round: it settled nothing."
        save_screenshot(driver, "table-aborted")
        assert_fits_the_width(driver)
        assert_no_script_errors(driver)


def test_poker_dice_fits_a_phone(live_asgi, open_browser):
    ann, bob = PlayerFactory(username="ann"), PlayerFactory(username="bob")
    match = ActiveMatchFactory(players=[ann, bob], ruleset="poker_dice", turn_seconds=3600)
    # Play on until, after round 1, Ann holds the box open and may bid (she accepts it).
    for _ in range(60):
        match.refresh_from_db()
        state = engine.state_from_json(match.state)
        legal = {a["type"] for a in engine.legal_actions(state, 0)}
        if RoundRecord.objects.filter(match=match).exists():
            if "bid" in legal and engine.view_for(state, 0)["round"]["your_dice"]:
                break
            if "accept" in legal:
                services.action_submit(match_id=match.pk, user=ann, action={"type": "accept"})
                continue
        play_once(match.pk)
    else:
        raise AssertionError("Ann never held the box open on her turn")
    phone = open_browser(PHONE)
    open_table(phone, live_asgi.url, ann, match.pk)
    result_on_table(phone, 1)

    # The box (label and five dice) takes two lines at most, its dice one; the hand's
    # name is a line of its own under them.
    box = phone.find_element("css selector", by_testid("your-dice"))
    dice = box.find_elements("css selector", ".die")
    assert len(dice) == 5
    assert len({d.location["y"] for d in dice}) == 1
    named = box.find_element("css selector", by_testid("box-hand"))
    assert box.size["height"] - named.size["height"] <= 100, box.size
    assert named.location["y"] > dice[0].location["y"] and named.text
    # The hand to bid: five pickers in one row.
    pickers = phone.find_elements("css selector", ".hand select")
    assert len(pickers) == 5 and len({p.location["y"] for p in pickers}) == 1
    # The round's reveal: no empty "Lives" column, the box's dice on one line.
    result = present(phone, "round-result")
    headers = [th.text for th in result.find_elements("css selector", "thead th")]
    assert "Lives" not in headers and "±" not in headers, headers
    dice_tops = {d.location["y"] for d in result.find_elements("css selector", "tbody .die")}
    assert len(dice_tops) == 1, dice_tops
    assert "loses 1 life" in result.text or "lose 1 life" in result.text
    # "Log out" is one line.
    logout = phone.find_element("xpath", "//nav//button[text()='Log out']")
    assert logout.size["height"] <= 30, logout.size
    save_screenshot(phone, "table-poker")
    assert_fits_the_width(phone)
    assert_no_script_errors(phone)


def test_the_lobby_on_a_phone_puts_play_first(live_asgi, open_browser):
    ann = PlayerFactory(username="ann")
    for size in (PHONE, DESKTOP):
        driver = open_browser(size)
        log_in(driver, live_asgi.url, ann)
        wait(driver, lambda d: present(d, "create-match"), message="the lobby")
        top = {
            name: driver.find_element("css selector", selector).location["y"]
            for name, selector in {
                "quick play": ".lobby .quick-play",
                "create": ".lobby .create-card",
                "my matches": "#my-matches",
            }.items()
        }
        if size == PHONE:
            # Quick play, then the form that plays bots, before anything else.
            assert top["quick play"] < top["create"] < top["my matches"], top
            assert top["create"] < PHONE[1], top
        else:
            assert top["quick play"] == top["create"] < top["my matches"], top
        save_screenshot(driver, "lobby")
        assert_fits_the_width(driver)


def test_bots_are_picked_by_level_in_the_form_and_at_the_open_table(live_asgi, open_browser):
    """The four levels, weakest first, medium chosen, each saying what it plays like; the
    bots seated play the levels picked, from the form and from the open table alike."""
    from selenium.webdriver.support.ui import Select

    from games.services.bot_players import DESCRIPTIONS

    ann = PlayerFactory(username="ann")
    for size in (PHONE, DESKTOP):
        driver = open_browser(size)
        log_in(driver, live_asgi.url, ann)
        wait(driver, lambda d: present(d, "add-bot"), message="the lobby")
        for _ in range(2):
            present(driver, "add-bot").click()
        pickers = driver.find_elements("css selector", "form.create .bot-row")
        levels = [Select(p.find_element("css selector", "select")) for p in pickers]
        assert [o.text for o in levels[0].options] == [
            "Easy bot",
            "Medium bot",
            "Hard bot",
            "Expert bot",
        ]
        assert levels[0].first_selected_option.get_attribute("value") == "medium"
        assert DESCRIPTIONS["medium"] in pickers[0].text
        levels[1].select_by_value("hard")
        assert DESCRIPTIONS["hard"] in pickers[1].text
        seats = driver.find_element("css selector", 'form.create input[name="max_players"]')
        seats.clear()
        seats.send_keys("5")
        save_screenshot(driver, "create-bots")
        assert_fits_the_width(driver)
        present(driver, "create-match").click()
        wait(driver, lambda d: present(d, "start-match"), message="the open table")

        picker = Select(present(driver, "bot-level"))
        picker.select_by_value("expert")
        assert present(driver, "bot-level-note").text == DESCRIPTIONS["expert"]
        save_screenshot(driver, "open-table-bots")
        assert_fits_the_width(driver)
        present(driver, "add-bot").click()
        match_id = int(driver.current_url.rsplit("/", 1)[-1])
        wait(driver, lambda d: "(4/5)" in d.page_source, message="the expert bot seated")
        seated = Match.objects.get(pk=match_id).seats.select_related("player").order_by("seat")
        assert [s.player.bot_strategy for s in seated][1:] == ["medium", "hard", "expert"]
        assert_no_script_errors(driver)


def test_a_buy_in_leaves_only_the_bots_the_house_stakes(live_asgi, open_browser):
    """With a buy-in, the practice levels are shown disabled and a bot picked at one of
    them moves to the first staked level; without, every level is open again. The table
    made seats the staked bot on the house's bankroll."""
    from selenium.webdriver.support.ui import Select

    fund_house(1_000)
    ann = PlayerFactory(username="ann")
    driver = open_browser(DESKTOP)
    log_in(driver, live_asgi.url, ann)
    wait(driver, lambda d: present(d, "add-bot"), message="the lobby")
    present(driver, "add-bot").click()
    level = Select(driver.find_element("css selector", "form.create select.bot-level"))
    assert level.first_selected_option.get_attribute("value") == "medium"
    buy_in = driver.find_element("css selector", 'form.create input[name="buy_in"]')
    buy_in.clear()
    buy_in.send_keys("50")
    disabled = [o.get_attribute("value") for o in level.options if not o.is_enabled()]
    assert disabled == ["easy", "medium"]
    assert level.first_selected_option.get_attribute("value") == "hard"
    save_screenshot(driver, "create-staked-bots")
    buy_in.clear()
    buy_in.send_keys("0")
    assert all(o.is_enabled() for o in level.options)
    buy_in.clear()
    buy_in.send_keys("50")
    present(driver, "create-match").click()
    wait(driver, lambda d: "#/match/" in d.current_url, message="the open table")
    match = Match.objects.get(pk=int(driver.current_url.rsplit("/", 1)[-1]))
    assert match.buy_in == 50
    seats = match.seats.select_related("player").order_by("seat")
    assert [s.player.bot_strategy for s in seats] == ["", "hard"]
    assert_no_script_errors(driver)
