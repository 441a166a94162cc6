import json
from io import StringIO

import pytest
from django.core.management import CommandError, call_command


def test_simulate_prints_a_summary_as_json():
    out = StringIO()
    call_command(
        "simulate",
        "--ruleset",
        "classic",
        "--players",
        "3",
        "--games",
        "20",
        "--option",
        "exact_call=true",
        "--seed",
        "1",
        "--json",
        stdout=out,
    )
    summary = json.loads(out.getvalue())
    assert summary["games"] == 20
    wins = summary["win_rate_by_seat"]
    assert len(wins) == 3 and abs(sum(wins.values()) - 1) < 1e-9


def test_simulate_prints_a_readable_summary():
    out = StringIO()
    call_command(
        "simulate",
        "--ruleset",
        "poker_dice",
        "--players",
        "4",
        "--games",
        "5",
        "--seed",
        "2",
        stdout=out,
    )
    assert "poker_dice" in out.getvalue()


def test_simulate_rejects_a_bad_option():
    with pytest.raises(CommandError, match="ones_bids"):
        call_command(
            "simulate",
            "--ruleset",
            "milton_bradley",
            "--games",
            "1",
            "--option",
            "ones_bids=face",
            stdout=StringIO(),
        )
