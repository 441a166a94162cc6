"""Tournaments on the play page in real headless Chromium on the real ASGI server, with
a real Celery worker (issue 26): a person finds a sit-and-go in the lobby's tournaments
card with its buy-in and payout table, registers, unregisters (refunded) and registers
again; their entry fills the table, the worker starts it, and the `tournament_table`
account event takes them to their table. The tournament's page shows the table they
sit at and the standings, at desktop and phone width.

Screenshots go to test-screenshots/ (git-ignored)."""

import pytest

from accounts.models import User
from games.models import Match
from ledger.selectors import wallet_balance
from tests.factories import PlayerFactory
from tests.tournaments.helpers import fill
from tests.web.test_play_page_browser import (
    DESKTOP,
    PHONE,
    assert_fits_the_width,
    assert_pages_were_clean,
    by_testid,
    emulate,
    present,
    save_screenshot,
    sign_up,
    wait,
    wait_for_account_stream,
)
from tournaments.models import Tournament
from tournaments.services import tournament_create

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

BUY_IN = 50


def _tournament(creator, name: str, **settings) -> Tournament:
    fields = {
        "name": name,
        "ruleset": "perudo",
        "options": {"dice_per_player": 2},
        "turn_seconds": 60,
        "buy_in": BUY_IN,
        "bots_allowed": True,
        **settings,
    }
    return tournament_create(user=creator, **fields)


def _line(driver, tournament_id: int):
    found = driver.find_elements(
        "css selector", f'.tournament-line[data-tournament-id="{tournament_id}"]'
    )
    return found[0] if found else None


def _click_in_line(driver, tournament_id: int, testid: str) -> None:
    """Clicks the line's button, again should the card's refresh re-draw it first."""
    wait(
        driver,
        lambda d: (
            (line := _line(d, tournament_id))
            and (buttons := line.find_elements("css selector", by_testid(testid)))
            and not buttons[0].click()
        ),
        message=f"{testid} in tournament {tournament_id}'s line",
    )


def _both_widths(driver, name: str, ready) -> None:
    for size in (DESKTOP, PHONE):
        emulate(driver, size)
        wait(driver, ready, message=f"{name} at {size[0]} px")
        assert_fits_the_width(driver)
        save_screenshot(driver, name)
    emulate(driver, DESKTOP)


def test_registering_for_a_sit_and_go_from_the_lobby_takes_you_to_the_table(
    live_asgi,
    bot_worker,
    open_browser,
):
    creator = PlayerFactory()
    sit_and_go = _tournament(
        creator, "Friday sit-and-go", format=Tournament.Format.SIT_AND_GO, table_size=3
    )
    fill(sit_and_go, bots=2)
    knockout = _tournament(
        creator,
        "Sunday knockout",
        format=Tournament.Format.KNOCKOUT,
        table_size=4,
        advance=2,
        min_entrants=8,
        max_entrants=16,
    )
    fill(knockout, bots=3)
    # Bots only, playing out meanwhile: its page shows the stages once it is over.
    bots_knockout = _tournament(
        creator,
        "Bots' knockout",
        format=Tournament.Format.KNOCKOUT,
        table_size=3,
        advance=1,
        min_entrants=6,
        max_entrants=6,
    )
    fill(bots_knockout, bots=6)

    driver = open_browser(DESKTOP)
    sign_up(driver, live_asgi.url, "ada-tournament")
    wait_for_account_stream(driver)
    ada = User.objects.get(username="ada-tournament")
    before = wallet_balance(user=ada)

    # The upcoming tab lists both, each with its buy-in and payout table as it stands.
    line = wait(driver, lambda d: _line(d, sit_and_go.pk), message="the sit-and-go's line")
    text = line.text
    assert "Sit-and-go, 3 seats" in text and "2/3 registered" in text, text
    assert f"buy-in {BUY_IN} chips" in text, text
    assert "Pays 1st 65% (65) · 2nd 35% (35)" in text, text
    knockout_text = _line(driver, knockout.pk).text
    assert "Knockout, tables of 4, top 2 go on" in knockout_text, knockout_text
    assert "3/16 registered" in knockout_text, knockout_text
    _both_widths(driver, "tournaments-lobby", lambda d: _line(d, knockout.pk))

    # Register, then change one's mind: the buy-in comes back exactly.
    _click_in_line(driver, knockout.pk, "tournament-register")
    wait(
        driver,
        lambda d: (
            (line := _line(d, knockout.pk))
            and line.find_elements("css selector", by_testid("tournament-unregister"))
        ),
        message="registered for the knockout",
    )
    assert wallet_balance(user=ada) == before - BUY_IN
    _click_in_line(driver, knockout.pk, "tournament-unregister")
    wait(
        driver,
        lambda d: (
            (line := _line(d, knockout.pk))
            and line.find_elements("css selector", by_testid("tournament-register"))
        ),
        message="unregistered from the knockout",
    )
    assert wallet_balance(user=ada) == before
    assert knockout.entries.filter(user=ada, status="withdrawn").exists()

    # The last seat of the sit-and-go: the worker starts it, the page goes to the table.
    _click_in_line(driver, sit_and_go.pk, "tournament-register")
    wait(
        driver,
        lambda d: d.execute_script("return /^#\\/match\\/\\d+$/.test(location.hash)"),
        seconds=60,
        message="taken to the tournament's table",
    )
    sit_and_go.refresh_from_db()
    assert sit_and_go.status == Tournament.Status.RUNNING
    match = Match.objects.get(tournament_table__stage__tournament=sit_and_go)
    assert driver.current_url.endswith(f"#/match/{match.pk}")
    assert match.seats.filter(player=ada).exists() and match.seats.count() == 3
    wait(driver, lambda d: present(d, "turn-indicator"), message="the table")
    assert wallet_balance(user=ada) == before - BUY_IN
    assert sit_and_go.pool == 3 * BUY_IN

    # The tournament's page: the table they sit at, marked, one click from play.
    driver.execute_script(f"location.hash = '#/tournament/{sit_and_go.pk}'")
    play = wait(driver, lambda d: present(d, "tournament-play"), message="the your-table link")
    assert play.get_attribute("href").endswith(f"#/match/{match.pk}")
    tables = driver.find_elements("css selector", by_testid("bracket-table"))
    assert [t.get_attribute("data-match-id") for t in tables] == [str(match.pk)]
    assert "ada-tournament (you)" in tables[0].text
    payout = present(driver, "tournament-payout").text
    assert "1st 65% 98" in payout and "2nd 35% 52" in payout, payout
    standings = present(driver, "tournament-standings")
    assert len(standings.find_elements("css selector", "tbody tr")) == 3
    assert present(driver, "tournament-status").text == "running"
    _both_widths(driver, "tournament-page", lambda d: present(d, "tournament-bracket"))

    # The bots' knockout, over: two tables of three, the winners at the final, places 1-6.
    driver.execute_script(f"location.hash = '#/tournament/{bots_knockout.pk}'")
    wait(
        driver,
        lambda d: (
            d.execute_script(
                "return document.querySelector('[data-testid=tournament]')?.dataset.status"
            )
            == "finished"
        ),
        seconds=240,
        message="the bots' knockout finished",
    )
    stages = driver.find_elements("css selector", ".bracket-stage")
    assert [len(s.find_elements("css selector", by_testid("bracket-table"))) for s in stages] == [
        2,
        1,
    ]
    places = present(driver, "tournament-standings").find_elements("css selector", "tbody tr")
    assert [row.text.split()[0] for row in places] == ["1st", "2nd", "3rd", "4th", "5th", "6th"]
    _both_widths(driver, "tournament-finished", lambda d: present(d, "tournament-bracket"))
    assert_pages_were_clean(driver)
