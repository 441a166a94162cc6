"""A small third-party Liar's Dice client: plays one seat through the public REST API.

    python examples/client.py --base-url http://127.0.0.1:8000 --username ann \\
        --password 'a long secret' --create milton_bradley --players 2
    python examples/client.py --username bob --password 'another secret' --match 17

It only uses what API.md promises (no server imports) over bare httpx calls, so it doubles
as a reference for clients in other languages and as the player the load benchmark
(bench/api_load.py) runs many times. In Python, the client library (clients/python, with
its bot kit; examples/bot.py) does all of this for you.
The loop: follow the seat's own stream (`seat-stream/`, Server-Sent Events: the match as
GET answers it, once per change), and when `legal_actions` is non-empty pick one of them
and POST it with `expected_version` and an `Idempotency-Key`: one request a turn.
`--long-poll` plays the older way instead: long-poll the match events, re-read the match
when something happened, then act (three requests a turn).

    python examples/client.py --username bob --password 'another secret' --follow

plays every match of the account at once instead, led by the account stream
(`GET /api/v1/stream/`, Server-Sent Events: `your_turn`, `match_finished`).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import random
import sys
import time
import uuid
from collections import Counter
from collections.abc import Callable, Iterator
from typing import Any

import httpx

API = "/api/v1"
POKER_RANKS = ("9", "10", "J", "Q", "K", "A")
# 409 codes that only mean "someone moved first": re-read the match and decide again.
RACE_CODES = frozenset({"stale_version", "not_your_turn", "idempotency_key_in_use"})
# 409 codes of a match that ended meanwhile (e.g. by a turn timeout): re-read, then stop.
ENDED_CODES = frozenset({"match_over", "match_not_active"})

# A stream is quiet for at most 15 s between heartbeats.
STREAM_TIMEOUT = httpx.Timeout(30.0, read=45.0)
# Connections to a seat's stream that may fail in a row before the client gives up.
STREAM_RETRIES = 10

# (route label, response, seconds) for every answered request, for whoever measures.
Observer = Callable[[str, httpx.Response, float], None]


class ApiError(Exception):
    """A non-2xx answer: `status`, the problem+json `code` and the whole body."""

    def __init__(self, status: int, body: Any) -> None:
        self.status = status
        self.body = body
        self.code = body.get("code") if isinstance(body, dict) else None
        detail = body.get("detail") if isinstance(body, dict) else body
        super().__init__(f"HTTP {status} {self.code or ''}: {detail}")


class Api:
    """A thin httpx wrapper: bearer auth, problem+json errors, 429 and transport retries.

    `route` labels each call (e.g. "POST actions") so an observer can group latencies
    without parsing URLs.
    """

    def __init__(
        self,
        base_url: str,
        token: str | None = None,
        *,
        observer: Observer | None = None,
        timeout: float = 40.0,  # above the 25 s long poll, so a wait is never cut short
        max_retries: int = 5,
    ) -> None:
        self.http = httpx.Client(base_url=base_url.rstrip("/"), timeout=timeout)
        self.token = token
        self.observer = observer
        self.max_retries = max_retries

    def close(self) -> None:
        self.http.close()

    def __enter__(self) -> Api:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def request(
        self,
        method: str,
        path: str,
        *,
        route: str | None = None,
        json: Any = None,
        params: dict[str, Any] | None = None,
        headers: dict[str, str] | None = None,
        auth: bool = True,
    ) -> Any:
        """The decoded body of a 2xx answer; raises ApiError otherwise."""
        all_headers = dict(headers or {})
        if auth and self.token:
            all_headers["Authorization"] = f"Bearer {self.token}"
        label = route or f"{method} {path}"
        for attempt in range(self.max_retries + 1):
            started = time.perf_counter()
            try:
                response = self.http.request(
                    method, API + path, json=json, params=params, headers=all_headers
                )
            except httpx.TransportError:
                # Safe to resend: GETs are reads and every mutating POST we make carries
                # an Idempotency-Key, so a resend never acts twice.
                if attempt == self.max_retries:
                    raise
                time.sleep(0.2 * (attempt + 1))
                continue
            elapsed = time.perf_counter() - started
            if self.observer is not None:
                self.observer(label, response, elapsed)
            if response.status_code == 429 and attempt < self.max_retries:
                # Honour the server's pacing instead of hammering it.
                time.sleep(_retry_after(response))
                continue
            if response.status_code == 204:
                return None
            body = _decode(response)
            if response.is_success:
                return body
            raise ApiError(response.status_code, body)
        raise AssertionError("unreachable")

    def get(self, path: str, *, route: str | None = None, **params: Any) -> Any:
        return self.request("GET", path, route=route, params=params or None)

    def post(
        self,
        path: str,
        body: dict[str, Any],
        *,
        route: str | None = None,
        idempotent: bool = True,
        auth: bool = True,
    ) -> Any:
        headers = {"Idempotency-Key": uuid.uuid4().hex} if idempotent else None
        return self.request("POST", path, route=route, json=body, headers=headers, auth=auth)


def server_sent_events(
    api: Api, path: str, *, last_id: int | None = None, params: dict | None = None
) -> Iterator[tuple[int, str, dict[str, Any]]]:
    """(id, event, data as JSON) from a Server-Sent Events stream of the API, until the
    server ends it; resumes after `last_id` (the `Last-Event-ID` header)."""
    headers = {"Authorization": f"Bearer {api.token}"}
    if last_id is not None:
        headers["Last-Event-ID"] = str(last_id)
    with api.http.stream(
        "GET", f"{API}{path}", headers=headers, params=params or {}, timeout=STREAM_TIMEOUT
    ) as response:
        if response.status_code != 200:
            response.read()
            raise ApiError(response.status_code, _decode(response))
        fields: dict[str, str] = {}
        for line in response.iter_lines():
            if line:
                if not line.startswith(":"):  # a heartbeat comment
                    name, _, value = line.partition(":")
                    fields[name] = value.removeprefix(" ")
                continue
            if "data" in fields:
                yield int(fields["id"]), fields.get("event", ""), json.loads(fields["data"])
            fields = {}


def _decode(response: httpx.Response) -> Any:
    try:
        return response.json()
    except ValueError:
        return response.text


def _retry_after(response: httpx.Response) -> float:
    try:
        return max(0.0, min(float(response.headers.get("Retry-After", "1")), 60.0))
    except ValueError:
        return 1.0


# --- accounts ------------------------------------------------------------------------


def log_in(api: Api, username: str, password: str) -> str:
    """Logs in, registering the account first if it does not exist; sets api.token."""
    try:
        body = api.post(
            "/auth/token/",
            {"username": username, "password": password, "name": "example client"},
            route="POST token",
            idempotent=False,
            auth=False,
        )
    except ApiError as exc:
        if exc.status not in (400, 401):
            raise
        body = api.post(
            "/auth/register/",
            {"username": username, "password": password},
            route="POST register",
            idempotent=False,
            auth=False,
        )
    api.token = body["token"]
    return api.token


def register(api: Api, username: str, password: str) -> str:
    """Creates a new account (no login attempt first); sets api.token."""
    body = api.post(
        "/auth/register/",
        {"username": username, "password": password},
        route="POST register",
        idempotent=False,
        auth=False,
    )
    api.token = body["token"]
    return api.token


def create_match(
    api: Api,
    ruleset: str,
    *,
    players: int = 2,
    bots: int = 0,
    bot_strategy: str = "random",
    buy_in: int = 0,
    ante: int = 0,
    turn_seconds: int = 60,
    options: dict[str, Any] | None = None,
) -> dict[str, Any]:
    body: dict[str, Any] = {
        "ruleset": ruleset,
        "options": options or {},
        "max_players": players,
        "turn_seconds": turn_seconds,
        "buy_in": buy_in,
        "ante": ante,
        "bots": [{"strategy": bot_strategy} for _ in range(bots)],
    }
    return api.post("/matches/", body, route="POST matches")


def join_match(api: Api, match_id: int, invite_code: str | None = None) -> dict[str, Any]:
    body = {"invite_code": invite_code} if invite_code else {}
    return api.post(f"/matches/{match_id}/join/", body, route="POST join")


# --- the policy ------------------------------------------------------------------------


def choose_action(match: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """One action from `match["legal_actions"]` (never anything outside it)."""
    legal = {entry["type"]: entry for entry in match["legal_actions"]}
    if match["family"] == "poker_dice":
        return _poker_action(match, legal, rng)
    return _pool_action(match, legal, rng)


def _pool_action(
    match: dict[str, Any], legal: dict[str, dict], rng: random.Random
) -> dict[str, Any]:
    rnd = match["round"] or {}
    mine = rnd.get("your_dice") or []
    wild = bool(match["rules"].get("ones_wild"))
    in_play = sum(s["dice_count"] or 0 for s in match["seats"] if s["status"] == "playing")
    bid = rnd.get("current_bid")
    if bid and "challenge" in legal:
        face, quantity = bid["face"], bid["quantity"]
        # With wild ones a face other than 1 shows on about 1/3 of the dice we cannot see,
        # ones (and every face when ones are plain) on about 1/6.
        share = 1 / 3 if wild and face != 1 else 1 / 6
        held = _count(mine, face, wild) + _count(_shown(rnd), face, wild)
        unseen = max(in_play - len(mine) - len(_shown(rnd)), 0)
        if quantity > held + unseen * share + 0.5:
            challenge = legal["challenge"]
            action: dict[str, Any] = {"type": "challenge"}
            targets = challenge.get("target_seats")
            if targets and bid.get("seat") in targets:
                action["target_seat"] = bid["seat"]
            elif targets:
                action["target_seat"] = targets[0]
            return action
    if "bid" in legal:
        minimum = {int(f): q for f, q in legal["bid"]["min_quantity_by_face"].items()}
        # Bid the face we hold most of (wilds count for every other face) at its minimum;
        # ties go to the cheapest quantity, then to the higher face.
        face = max(minimum, key=lambda f: (_count(mine, f, wild), -minimum[f], f))
        return {"type": "bid", "quantity": minimum[face], "face": face}
    if "challenge" in legal:
        targets = legal["challenge"].get("target_seats")
        return {"type": "challenge", **({"target_seat": targets[0]} if targets else {})}
    kind = next(iter(legal))  # exact / pass / show_reroll: whatever is left
    if kind == "show_reroll":
        return {"type": "show_reroll", "show": [0]}
    return {"type": kind}


def _shown(rnd: dict[str, Any]) -> list[int]:
    return [d for dice in (rnd.get("shown_dice") or {}).values() for d in dice]


def _count(dice: list[int], face: int, wild: bool) -> int:
    return sum(1 for d in dice if d == face or (wild and face != 1 and d == 1))


def _poker_action(
    match: dict[str, Any], legal: dict[str, dict], rng: random.Random
) -> dict[str, Any]:
    rnd = match["round"] or {}
    if "reroll" in legal:
        if "hold_required" in legal["reroll"]:  # player one may not touch the dice
            return {"type": "reroll", "hold": legal["reroll"]["hold_required"]}
        box = rnd.get("your_dice") or []
        counts = Counter(box)
        # Keep every rank showing at least twice; reroll the rest.
        hold = [i for i, rank in enumerate(box) if counts[rank] >= 2]
        return {"type": "reroll", "hold": hold}
    if "bid" in legal:
        entry = legal["bid"]
        action: dict[str, Any] = {"type": "bid", "hand": entry["min_hand"]}
        if entry.get("needs_direction"):
            action["direction"] = rng.choice(["left", "right"])
        return action
    if "challenge" in legal and ("accept" not in legal or rng.random() < _doubt(rnd)):
        return {"type": "challenge"}
    return {"type": "accept"}


def _doubt(rnd: dict[str, Any]) -> float:
    """How often to challenge a poker-dice bid: more as the named hand gets stronger.

    Bids only climb, and a passed box is often a bluff by then; doubting early enough also
    keeps rounds from walking step by step up to five aces.
    """
    hand = (rnd.get("current_bid") or {}).get("hand") or []
    named = [r for r in hand if r in POKER_RANKS]
    most = max(Counter(named).values(), default=0)
    if most >= 4:
        return 0.8
    return {0: 0.05, 1: 0.1, 2: 0.15, 3: 0.25, 4: 0.4}.get(len(named), 0.6)


# --- one seat ----------------------------------------------------------------------------


class SeatClient:
    """Plays one seat of one match until it ends; `play()` returns the final match."""

    def __init__(
        self,
        api: Api,
        match_id: int,
        *,
        rng: random.Random | None = None,
        wait: float = 25.0,
        log: Callable[[str], None] | None = print,
        after_action: Callable[[], None] | None = None,
        max_actions: int = 5000,
    ) -> None:
        self.api = api
        self.match_id = match_id
        self.rng = rng or random.Random()
        self.wait = wait
        self.log = log
        self.after_action = after_action  # e.g. the benchmark's interleaved /me/ call
        self.max_actions = max_actions
        self.actions = 0
        self.races = 0  # 409s lost to another request; expected, never an error

    def _say(self, text: str) -> None:
        if self.log is not None:
            self.log(text)

    def get_match(self) -> dict[str, Any]:
        return self.api.get(f"/matches/{self.match_id}/", route="GET match")

    def events(self, after: int) -> dict[str, Any]:
        return self.api.get(
            f"/matches/{self.match_id}/events/", route="GET events", after=after, wait=self.wait
        )

    def act(self, match: dict[str, Any], action: dict[str, Any]) -> dict[str, Any] | None:
        """POSTs `action`; the updated match, or None when we lost a race (re-read)."""
        body = {**action, "expected_version": match["version"]}
        try:
            return self.api.post(f"/matches/{self.match_id}/actions/", body, route="POST actions")
        except ApiError as exc:
            if exc.status == 409 and exc.code in RACE_CODES | ENDED_CODES:
                self.races += 1
                return None
            raise

    def play_from_stream(self) -> dict[str, Any]:
        """Plays from the seat's own stream (`seat-stream/`): each state is the match as
        GET answers it, so a turn costs one POST and no read; a dropped stream resumes
        after the last state."""
        acted_at = -1  # the version we last acted on: the stream repeats it once
        resume: int | None = None
        match: dict[str, Any] = {}
        path = f"/matches/{self.match_id}/seat-stream/"
        failures = 0
        while match.get("status") not in ("finished", "aborted"):
            try:
                for state_id, _kind, state in server_sent_events(self.api, path, last_id=resume):
                    resume, match, failures = state_id, state, 0
                    if state["legal_actions"] and state["version"] > acted_at:
                        self._act_once(state)
                        acted_at = state["version"]  # acted, or lost a race to a newer one
            except httpx.TransportError:
                failures += 1
                if failures > STREAM_RETRIES:
                    raise
                # The server went away (a deploy), or an action's POST did: reconnect for
                # the state as it is now, which may still be this turn.
                resume = None
            time.sleep(min(failures, 5) or 0.2)
        self._say(result_line(match))
        return match

    def _act_once(self, match: dict[str, Any]) -> None:
        """One action on `match`'s state; a lost race waits for the next state."""
        if self.actions >= self.max_actions:
            raise RuntimeError(f"match {self.match_id} did not end")
        action = choose_action(match, self.rng)
        if self.act(match, action) is not None:
            self.actions += 1
            self._say(f"match {self.match_id} seat {match['your_seat']}: {describe(action)}")
            if self.after_action is not None:
                self.after_action()

    def play(self) -> dict[str, Any]:
        match = self.get_match()
        after = match.get("event_seq", 0)
        while match["status"] in ("open", "active"):
            if match["legal_actions"]:
                if self.actions >= self.max_actions:
                    raise RuntimeError(f"match {self.match_id} did not end")
                action = choose_action(match, self.rng)
                updated = self.act(match, action)
                if updated is None:
                    match = self.get_match()
                else:
                    self.actions += 1
                    self._say(
                        f"match {self.match_id} seat {match['your_seat']}: {describe(action)}"
                    )
                    match = updated
                    if self.after_action is not None:
                        self.after_action()
                after = max(after, match.get("event_seq", 0))
                continue
            # Not our turn: hold a long poll until something happens, then re-read.
            page = self.events(after)
            after = max(after, page["last_seq"])
            match = self.get_match()
            after = max(after, match.get("event_seq", 0))
        self._say(result_line(match))
        return match


class AccountClient:
    """Plays every match of the account at once, led by the account stream
    (`GET /api/v1/stream/`, Server-Sent Events): `your_turn` -> read that match and act
    until it is no longer our turn; `match_finished` -> report it. On connecting it also
    acts in every active match where it is our turn (turns that began while away), and it
    resumes a dropped stream with `Last-Event-ID`. `play(matches=n)` returns the final
    match of the first n matches that finish (None: play on until interrupted)."""

    def __init__(
        self,
        api: Api,
        *,
        rng: random.Random | None = None,
        log: Callable[[str], None] | None = print,
    ) -> None:
        self.api = api
        self.rng = rng or random.Random()
        self.log = log
        self.last_event_id: int | None = None
        self.finished: dict[int, dict[str, Any]] = {}
        self.actions = 0

    def _say(self, text: str) -> None:
        if self.log is not None:
            self.log(text)

    def take_turns(self, match_id: int) -> None:
        """Acts in `match_id` while it is our turn there."""
        seat = SeatClient(self.api, match_id, rng=self.rng, log=self.log)
        match = seat.get_match()
        while match["status"] == "active" and match["legal_actions"]:
            action = choose_action(match, self.rng)
            updated = seat.act(match, action)
            if updated is not None:
                self.actions += 1
                self._say(f"match {match_id} seat {match['your_seat']}: {describe(action)}")
            match = updated if updated is not None else seat.get_match()

    def catch_up(self) -> None:
        page = self.api.get("/matches/", route="GET matches", mine="true", status="active")
        for summary in page["results"]:
            self.take_turns(summary["id"])

    def events(self) -> Iterator[tuple[int, str, dict[str, Any]]]:
        """(id, type, event) from the account stream, until the server ends it; the event
        is one flat object (`id`, `type`, `created_at` and the payload's fields)."""
        # Without a resume point, everything kept: no turn is missed while starting up.
        params = {} if self.last_event_id is not None else {"after": 0}
        yield from server_sent_events(
            self.api, "/stream/", last_id=self.last_event_id, params=params
        )

    def play(self, matches: int | None = None) -> list[dict[str, Any]]:
        while matches is None or len(self.finished) < matches:
            try:
                self.catch_up()
                for event_id, kind, event in self.events():
                    self.last_event_id = event_id
                    if kind == "your_turn":
                        self.take_turns(event["match_id"])
                    elif kind == "match_finished" and event["match_id"] not in self.finished:
                        final = self.api.get(f"/matches/{event['match_id']}/", route="GET match")
                        self.finished[event["match_id"]] = final
                        self._say(result_line(final))
                    if matches is not None and len(self.finished) >= matches:
                        break
            except httpx.TransportError:
                time.sleep(1)  # the server went away (a deploy): reconnect and resume
        return list(self.finished.values())


def describe(action: dict[str, Any]) -> str:
    kind = action["type"]
    if kind == "bid" and "face" in action:
        return f"bid {action['quantity']} x {action['face']}"
    if kind == "bid":
        hand = " ".join(r or "?" for r in action["hand"])
        return f"bid [{hand}]" + (f" {action['direction']}" if "direction" in action else "")
    if kind == "reroll":
        return f"reroll holding {action['hold']}"
    if kind == "challenge" and "target_seat" in action:
        return f"challenge seat {action['target_seat']}"
    return kind


def result_line(match: dict[str, Any]) -> str:
    you = match.get("your_seat")
    winners = match.get("winner_seats") or []
    outcome = "won" if you in winners else "lost"
    if match["status"] == "aborted":
        outcome = "aborted"
    return f"match {match['id']} {match['status']}: seat {you} {outcome} (winners {winners})"


# --- command line ------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Play one seat of a Liar's Dice match.")
    parser.add_argument("--base-url", default="http://127.0.0.1:8000")
    parser.add_argument("--username", required=True)
    parser.add_argument("--password", required=True)
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument(
        "--follow",
        action="store_true",
        help="play every match of the account at once, led by the account stream",
    )
    parser.add_argument("--matches", type=int, help="with --follow: stop after this many end")
    where.add_argument("--match", type=int, help="join (or resume) this match")
    where.add_argument("--create", metavar="RULESET", help="create a match with this ruleset")
    parser.add_argument("--invite-code", help="for --match of a private table")
    parser.add_argument("--players", type=int, default=2, help="seats of a created match")
    parser.add_argument("--bots", type=int, default=0, help="bots seated at creation")
    parser.add_argument("--buy-in", type=int, default=0)
    parser.add_argument("--ante", type=int, default=0)
    parser.add_argument("--turn-seconds", type=int, default=60)
    parser.add_argument(
        "--options", type=json.loads, default={}, help="rule overrides, e.g. '{\"lives\": 1}'"
    )
    parser.add_argument("--seed", type=int, help="for a repeatable policy")
    parser.add_argument(
        "--long-poll", action="store_true", help="long-poll and re-read instead of the seat stream"
    )
    args = parser.parse_args(argv)

    with Api(args.base_url) as api:
        log_in(api, args.username, args.password)
        if args.follow:
            with contextlib.suppress(KeyboardInterrupt):
                AccountClient(api, rng=random.Random(args.seed)).play(args.matches)
            return 0
        if args.create:
            match = create_match(
                api,
                args.create,
                players=args.players,
                bots=args.bots,
                buy_in=args.buy_in,
                ante=args.ante,
                turn_seconds=args.turn_seconds,
                options=args.options,
            )
            print(f"created match {match['id']} ({args.create}); waiting for players")
        else:
            match = api.get(f"/matches/{args.match}/", route="GET match")
            if match["your_seat"] is None:
                match = join_match(api, args.match, args.invite_code)
                print(f"joined match {match['id']} at seat {match['your_seat']}")
        try:
            seat = SeatClient(api, match["id"], rng=random.Random(args.seed))
            final = seat.play() if args.long_poll else seat.play_from_stream()
        except ApiError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 1
        if final.get("buy_in"):
            # Stacks are cashed out into the wallet when the match ends.
            print(f"chips now {api.get('/me/', route='GET me')['chips']}")
    return 0 if final["status"] == "finished" else 1


if __name__ == "__main__":
    sys.exit(main())
