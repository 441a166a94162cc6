"""The path of a bid through the code, measured: the project files whose functions run
from the view's entry to its answer, and the calls that cross from one file to another
(docs/ARCHITECTURE.md walks them). The rules engine (`games/engine/`) is one pure
component entered through its facade and counted once; a new file on the path, or a
new entry into the engine, is a deliberate decision."""

import random
import sys
from pathlib import Path

import pytest

from games.api.actions import MatchActionApi
from tests.factories import ActiveMatchFactory
from tests.games.helpers import MATCHES, seated_players

ROOT = str(Path(__file__).resolve().parents[2]) + "/"
OWN = ("core/", "ledger/", "accounts/", "games/", "moderation/", "config/")
ENGINE = "games/engine/"
MAX_FILES = 12
# Reading the state, applying the action, the next turn, its round and its commitments
# (play); the mover's view and legal actions (selectors).
MAX_ENGINE_ENTRIES = 7


def _unit(filename: str) -> str | None:
    """The project file a frame runs in (the engine as one), or None outside the project."""
    if not filename.startswith(ROOT):
        return None
    relative = filename[len(ROOT) :]
    if not relative.startswith(OWN):
        return None
    return ENGINE if relative.startswith(ENGINE) else relative


class PathRecorder:
    """Follows calls from the view's entry (`MatchActionApi.post` as decorated) to its
    return: the files entered, in order, and the calls from one file into another."""

    def __init__(self, view) -> None:
        self.view = view.__code__
        self.files: list[str] = []
        self.crossings = 0
        self.engine_entries = 0
        self.stack: list[str | None] = []
        self.depth = 0  # frames inside the view, the view's own included

    def __call__(self, frame, event, arg) -> None:
        if event == "call":
            if frame.f_code is self.view and not self.depth:
                self.stack = []
            if frame.f_code is self.view or self.depth:
                self.depth += 1
                self._enter(_unit(frame.f_code.co_filename))
        elif event == "return" and self.depth:
            self.depth -= 1
            self.stack.pop()

    def _enter(self, unit: str | None) -> None:
        caller = next((u for u in reversed(self.stack) if u is not None), None)
        if unit is not None:
            if unit not in self.files:
                self.files.append(unit)
            if caller is not None and caller != unit:
                self.crossings += 1
                self.engine_entries += unit == ENGINE
        self.stack.append(unit)


@pytest.mark.django_db
def test_a_bid_crosses_at_most_twelve_files(monkeypatch):
    monkeypatch.setattr("games.fairness.SECURE_DICE", random.Random(3))
    players = seated_players(2)
    match_id = ActiveMatchFactory(players=[u for u, _ in players], ruleset="classic").pk
    views = [(c, c.get(f"{MATCHES}{match_id}/").json()) for _, c in players]
    mover, view = next((c, v) for c, v in views if v["legal_actions"])
    bid = next(a for a in view["legal_actions"] if a["type"] == "bid")
    face, quantity = sorted(bid["min_quantity_by_face"].items())[0]
    recorder = PathRecorder(MatchActionApi.post)

    sys.setprofile(recorder)
    try:
        response = mover.post(
            f"{MATCHES}{match_id}/actions/",
            {"type": "bid", "quantity": quantity, "face": int(face)},
            format="json",
        )
    finally:
        sys.setprofile(None)

    assert response.status_code == 201, response.content
    assert recorder.files[0] == "core/idempotency.py"  # the view as decorated
    assert "games/services/publish.py" in recorder.files
    report = (
        f"{len(recorder.files)} files, {recorder.crossings} calls across, "
        f"{recorder.engine_entries} into the engine: {recorder.files}"
    )
    print(report)
    assert len(recorder.files) <= MAX_FILES, report
    assert recorder.engine_entries <= MAX_ENGINE_ENTRIES, report
