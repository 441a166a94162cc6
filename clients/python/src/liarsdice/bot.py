"""The bot kit: a bot is a class with one method, `act(match) -> action`; a BotRunner
logs in, follows the account stream, accepts challenges by a policy, seeks quick play,
plays many matches at once (a thread per match, each on its seat stream) and survives a
server restart (every stream reconnects and resumes; each action carries the
`expected_version` of the state it was chosen for and an Idempotency-Key, so no action
is applied twice or to a state it was not meant for).

    class Caller:
        def act(self, match):
            return {"type": "challenge"} if match.legal("challenge") else ...

    BotRunner(Caller(), Client(url), accept=accept_all).run()
"""

from __future__ import annotations

import threading
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

import httpx

from liarsdice.client import Client
from liarsdice.errors import (
    ApiError,
    Conflict,
    IdempotencyKeyInUse,
    MatchEnded,
    NotYourTurn,
    VersionConflict,
)
from liarsdice.models import AccountEvent, Action, ChallengeReceived, Match, decode
from liarsdice.streams import Stream

# Refusals that only mean the state moved on: wait for the seat stream's next state.
MOVED_ON = (VersionConflict, NotYourTurn, IdempotencyKeyInUse, MatchEnded)


class Bot(Protocol):
    def act(self, match: Match) -> Action:
        """One action among `match.legal_actions` (called only when there is one).
        Called from one thread per match: keep per-match state keyed by `match.id`."""


AcceptPolicy = Callable[[ChallengeReceived], bool]


def accept_all(challenge: ChallengeReceived) -> bool:
    return True


def accept_rulesets(*rulesets: str) -> AcceptPolicy:
    return lambda challenge: challenge.ruleset in rulesets


def accept_from_bots(client: Client) -> AcceptPolicy:
    """Accepts challenges from accounts that declare themselves bots."""
    return lambda challenge: bool(client.player(challenge.challenger).get("is_bot"))


@dataclass(frozen=True)
class Seek:
    """Quick play to keep asking for while below `max_matches`."""

    ruleset: str
    players: int = 2
    turn_seconds: int = 60
    fields: dict[str, Any] = field(default_factory=dict)  # buy_in, ante...


class BotRunner:
    def __init__(
        self,
        bot: Bot,
        client: Client,
        *,
        accept: AcceptPolicy | None = None,
        seek: Seek | None = None,
        max_matches: int = 8,
        log: Callable[[str], None] | None = print,
    ) -> None:
        self.bot = bot
        self.client = client
        self.accept = accept
        self.seek = seek
        self.max_matches = max_matches  # the server allows 20 streams per account
        self.log = log
        self.finished: dict[int, Match] = {}
        self.actions = 0
        self.errors: list[BaseException] = []
        self._stopping = threading.Event()
        self._lock = threading.Lock()
        self._playing: dict[int, threading.Thread] = {}
        self._streams: set[Stream] = set()
        self.account_stream: Stream | None = None  # while run() runs
        self._wanted: int | None = None
        self._done = threading.Event()

    def _say(self, text: str) -> None:
        if self.log is not None:
            self.log(text)

    # --- the account ----------------------------------------------------------------------

    def run(self, matches: int | None = None) -> list[Match]:
        """Plays until stop() (or until `matches` matches have ended); returns the final
        state of every match that ended meanwhile."""
        self._wanted = matches
        stream = self.account_stream = self.client.account_stream(on_connect=self._catch_up)
        self._track(stream)
        watcher = threading.Thread(target=self._until_done, args=(stream,), daemon=True)
        watcher.start()
        try:
            for event in stream:
                if self._stopping.is_set():
                    break
                self._handle(event)
        finally:
            self.stop()
            for thread in list(self._playing.values()):
                thread.join(timeout=10)
        return list(self.finished.values())

    def stop(self) -> None:
        """Ends every stream and lets every match thread return (clean shutdown)."""
        self._stopping.set()
        self._done.set()
        with self._lock:
            streams = list(self._streams)
        for stream in streams:
            stream.close()

    def _until_done(self, stream: Stream) -> None:
        self._done.wait()
        stream.close()

    def _catch_up(self) -> None:
        """On each connection: the matches and challenges that began while away."""
        try:
            for summary in self.client.pages(self.client.matches(mine=True, status="active")):
                self.play_in_background(summary["id"])
            if self.accept is not None:
                pending = self.client.challenges(direction="incoming", status="pending")
                for challenge in self.client.pages(pending):
                    self._consider(challenge["id"], challenge)
            self._seek()
        except (ApiError, httpx.TransportError) as exc:
            self._say(f"catching up failed: {exc}")

    def _handle(self, event: AccountEvent) -> None:
        kind, data = event.type, event.data
        if kind in ("your_turn", "match_started", "challenge_accepted", "seek_matched"):
            if data.get("match_id") is not None:
                self.play_in_background(data["match_id"])
        elif kind == "challenge_received" and self.accept is not None:
            body = {"id": event.id, "type": kind, "created_at": event.created_at, **data}
            challenge = decode(ChallengeReceived, body)
            self._consider(challenge.challenge_id, challenge)

    def _consider(self, challenge_id: int, challenge: Any) -> None:
        if isinstance(challenge, dict):  # from the challenges list
            challenge = ChallengeReceived(
                id=0,
                type="challenge_received",
                created_at=challenge["created_at"],
                challenge_id=challenge["id"],
                challenger=challenge["challenger"]["username"],
                challenger_is_bot=challenge["challenger"]["is_bot"],
                ruleset=challenge["ruleset"],
                turn_seconds=challenge["turn_seconds"],
                buy_in=challenge["buy_in"],
                ante=challenge["ante"],
                expires_at=challenge["expires_at"],
            )
        try:
            if self._room() and self.accept is not None and self.accept(challenge):
                self.client.accept_challenge(challenge_id)
                self._say(f"accepted challenge {challenge_id} from {challenge.challenger}")
            else:
                self.client.decline_challenge(challenge_id)
        except ApiError as exc:  # closed or expired meanwhile, or refused
            self._say(f"challenge {challenge_id}: {exc}")

    def _seek(self) -> None:
        if self.seek is None or self._done.is_set() or not self._room():
            return
        try:
            answer = self.client.seek(
                self.seek.ruleset,
                players=self.seek.players,
                turn_seconds=self.seek.turn_seconds,
                **self.seek.fields,
            )
        except Conflict as exc:  # already_seeking: one waiting seek is enough
            self._say(f"seek: {exc.code}")
            return
        if answer.get("match_id"):
            self.play_in_background(answer["match_id"])

    def _room(self) -> bool:
        with self._lock:
            return sum(t.is_alive() for t in self._playing.values()) < self.max_matches

    def _track(self, stream: Stream) -> None:
        with self._lock:
            self._streams.add(stream)
        if self._stopping.is_set():
            stream.close()

    # --- one match ------------------------------------------------------------------------

    def play_in_background(self, match_id: int) -> None:
        with self._lock:
            running = self._playing.get(match_id)
            if (running and running.is_alive()) or match_id in self.finished:
                return
            if self._stopping.is_set():
                return
            thread = threading.Thread(
                target=self._play_logged, args=(match_id,), name=f"match-{match_id}", daemon=True
            )
            self._playing[match_id] = thread
        thread.start()

    def _play_logged(self, match_id: int) -> None:
        try:
            final = self.play(match_id)
        except Exception as exc:  # kept for the caller; the account stream may restart it
            self.errors.append(exc)
            self._say(f"match {match_id}: {exc!r}\n{traceback.format_exc().rstrip()}")
            return
        if final is not None and final.over:
            with self._lock:
                if self._wanted is not None and len(self.finished) >= self._wanted:
                    self._done.set()
            self._seek()

    def play(self, match_id: int) -> Match | None:
        """Plays one seat of `match_id` from its seat stream until the match ends (or
        stop()); returns the last state seen."""
        # A reconnection starts from the current state, so a turn whose POST was lost
        # while the server was away is played again (its version says it is still due).
        stream = self.client.seat_stream(match_id, resume=False)
        self._track(stream)
        acted_on = -1  # the version we last acted on
        last: Match | None = None
        try:
            for state in stream:
                last = state
                if self._stopping.is_set():
                    break
                if state.legal_actions and state.version > acted_on:
                    acted_on = self._act(state, acted_on)
        finally:
            with self._lock:
                self._streams.discard(stream)
        if last is not None and last.over:
            with self._lock:
                self.finished[match_id] = last
            won = last.your_seat in last.winner_seats
            self._say(f"match {match_id} {last.status}: {'won' if won else 'lost'}")
        return last

    def _act(self, state: Match, acted_on: int) -> int:
        """Plays the bot's action on `state`; returns the version now dealt with
        (`acted_on` unchanged when the turn should be tried again on reconnection)."""
        chosen = self._choose(state)
        if chosen is None:  # the bot failed twice: the match's timeout policy plays
            return state.version
        state, action = chosen
        try:
            self.client.act(state.id, action, expected_version=state.version)
        except MOVED_ON:
            return state.version
        except httpx.TransportError as exc:
            self._say(f"match {state.id}: action not sent ({exc!r}); retrying on reconnect")
            return acted_on
        except ApiError as exc:  # the bot broke the rules: the turn timer plays for it
            self.errors.append(exc)
            self._say(f"match {state.id}: {action} refused: {exc}")
            return state.version
        with self._lock:
            self.actions += 1
        return state.version

    def _choose(self, state: Match) -> tuple[Match, Action] | None:
        """The bot's action and the state it was chosen for. An exception in `act()` is
        logged with its traceback and the turn tried once more on the state read again;
        a second one leaves the turn to the match's timeout policy (None), and the
        match's thread plays on from the next state."""
        for attempt in (1, 2):
            try:
                return state, self.bot.act(state)
            except Exception as exc:
                self.errors.append(exc)
                then = "trying once more" if attempt == 1 else "leaving the turn to its timeout"
                self._say(
                    f"match {state.id}: the bot's act() raised at version {state.version}, "
                    f"{then}\n{traceback.format_exc().rstrip()}"
                )
            if attempt == 2:
                return None
            try:
                state = self.client.match(state.id)
            except (ApiError, httpx.TransportError) as exc:
                self._say(f"match {state.id}: reading it again failed ({exc!r})")
                return None
            if not state.legal_actions:  # the turn is over meanwhile
                return None
        return None
