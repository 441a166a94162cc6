"""The HTTP client: every operation of the API (docs/API.md) as a method.

Every POST carries a fresh `Idempotency-Key`, reused when the request is sent again, so
a retry never acts twice. A `429` or `503` is retried after its `Retry-After`, and a
client that has used up a rate limit (a `RateLimit` field with `r=0`) waits out its `t`
before its next request rather than be refused (`pace=False` turns that off); a
connection error is retried when the request was never sent, or when resending it is
safe (reads, and POSTs with their key). Non-2xx answers raise the ApiError subclass of
their problem `code` (liarsdice.errors).

Each operation is registered with `@operation(METHOD, path)` in OPERATIONS, which a test
compares with the server's OpenAPI document: adding an operation is a method and its
decorator.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable, Iterator
from typing import Any

import httpx

from liarsdice.errors import ApiError, error_for
from liarsdice.models import (
    AccountEvent,
    BotStrategy,
    Event,
    EventPage,
    Match,
    Payout,
    PlayerRef,
    RulesHelp,
    Tournament,
    decode,
)
from liarsdice.streams import Stream

API = "/api/v1"
# "METHOD /api/v1/path/" as the OpenAPI document spells it -> the Client method.
OPERATIONS: dict[str, str] = {}
RETRY_STATUSES = frozenset({429, 503})
IDEMPOTENT_METHODS = frozenset({"GET", "HEAD", "OPTIONS", "PUT", "PATCH", "DELETE"})

# (route as in OPERATIONS, response, seconds) for every answer, for whoever measures.
Observer = Callable[[str, httpx.Response, float], None]
Page = dict[str, Any]  # {next, previous, results}


def operation(method: str, path: str) -> Callable:
    def register(function: Callable) -> Callable:
        OPERATIONS[f"{method} {API}{path}"] = function.__name__
        function.route = f"{method} {path}"  # type: ignore[attr-defined]
        return function

    return register


def retry_after(response: httpx.Response, default: float = 1.0) -> float:
    try:
        return max(0.0, float(response.headers.get("Retry-After", default)))
    except ValueError:
        return default


def exhausted_for(response: httpx.Response) -> float:
    """Seconds until the server lets this caller in again when one of the rate limits
    that counted `response` has none left (`RateLimit: "user";r=0;t=41`), else 0."""
    wait = 0.0
    for item in response.headers.get("RateLimit", "").split(","):
        params = dict(part.strip().partition("=")[::2] for part in item.split(";")[1:])
        try:
            if int(params.get("r", "1")) <= 0:
                wait = max(wait, float(params.get("t", "0")))
        except ValueError:
            continue  # a field this client does not understand: no pacing from it
    return wait


def _query(params: dict[str, Any]) -> dict[str, Any]:
    """Drops unset parameters (the API refuses unknown or empty ones) and spells bools."""
    return {
        k: ("true" if v is True else "false" if v is False else v)
        for k, v in params.items()
        if v is not None
    }


class Client:
    """A session with one server, as one account once `token` is set (by `register`,
    `login`, or given). Thread-safe: bots share one across their matches."""

    def __init__(
        self,
        base_url: str,
        token: str | None = None,
        *,
        timeout: float = 40.0,  # above the 30 s longest long poll
        max_retries: int = 5,
        max_retry_wait: float = 60.0,
        observer: Observer | None = None,
        sleep: Callable[[float], None] = time.sleep,
        pace: bool = True,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.http = httpx.Client(base_url=self.base_url, timeout=timeout)
        self.token = token
        self.max_retries = max_retries
        self.max_retry_wait = max_retry_wait
        self.observer = observer
        self.sleep = sleep
        self.pace = pace
        self.paused_until = 0.0  # time.monotonic() when a used-up rate limit frees one

    def close(self) -> None:
        self.http.close()

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def auth_headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}"} if self.token else {}

    # --- transport -----------------------------------------------------------------------

    def request(
        self,
        method: str,
        path: str,
        *,
        json: Any = None,
        params: dict[str, Any] | None = None,
        auth: bool = True,
        idempotency_key: str | None = None,
        route: str | None = None,
    ) -> Any:
        """The decoded body of a 2xx answer (None for 204); raises ApiError otherwise.

        A signed-in POST gets an Idempotency-Key (a new one unless given), the same on
        every retry; register and login have no caller to scope a key to, so go without.
        """
        headers = self.auth_headers() if auth else {}
        if method == "POST" and auth:
            headers["Idempotency-Key"] = idempotency_key or uuid.uuid4().hex
        resend_safe = method in IDEMPOTENT_METHODS or "Idempotency-Key" in headers
        url = path if path.startswith("http") else API + path
        label = route or f"{method} {path}"
        for attempt in range(self.max_retries + 1):
            last = attempt == self.max_retries
            try:
                response = self.send(label, method, url, json=json, params=params, headers=headers)
            except (httpx.ConnectError, httpx.ConnectTimeout, httpx.PoolTimeout):
                if last:
                    raise  # never sent: safe to send again whatever it is
            except httpx.TransportError:
                if last or not resend_safe:
                    raise
            else:
                if response.status_code in RETRY_STATUSES and not last:
                    self.sleep(min(retry_after(response), self.max_retry_wait))
                    continue
                if response.status_code == 204:
                    return None
                body = _decode(response)
                if response.is_success:
                    return body
                raise error_for(response.status_code, body, retry_after=_retry_after_of(response))
            self.sleep(min(0.25 * 2**attempt, 5.0))
        raise AssertionError("unreachable")

    def send(self, label: str, method: str, url: str, **kwargs: Any) -> httpx.Response:
        """One HTTP exchange, after any pause a used-up rate limit asked for; shown to the
        observer; noting the pause the answer's rate limits ask for.

        Without parameters the URL's own query string is sent as it is: httpx replaces
        a URL's query by `params` even when they are empty, which made a `next` link
        lose its filters (and its cursor)."""
        self.wait_for_allowance()
        query = _query(kwargs.pop("params", None) or {})
        if query:
            kwargs["params"] = query
        started = time.perf_counter()
        response = self.http.request(method, url, **kwargs)
        if self.observer is not None:
            self.observer(label, response, time.perf_counter() - started)
        self.note_allowance(response)
        return response

    def wait_for_allowance(self) -> None:
        """Sleeps out the pause a used-up rate limit asked for (unless `pace` is off)."""
        pause = self.paused_until - time.monotonic()
        if self.pace and pause > 0:
            self.sleep(min(pause, self.max_retry_wait))

    def note_allowance(self, response: httpx.Response) -> None:
        """Reads `response`'s rate limits: one with nothing left pauses what follows."""
        if wait := exhausted_for(response):
            self.paused_until = max(self.paused_until, time.monotonic() + wait)

    def get(self, path: str, **params: Any) -> Any:
        return self.request("GET", path, params=params)

    def post(self, path: str, body: dict[str, Any] | None = None, **kwargs: Any) -> Any:
        return self.request("POST", path, json=body if body is not None else {}, **kwargs)

    def pages(self, first: Page) -> Iterator[Any]:
        """Every result of a cursor-paginated list, from its first page on, following each
        `next` link's path and query exactly as the server gave them (its filters and
        cursor included), always on this client's own server: whatever host a link names
        (a proxy may make the server name another), the token goes nowhere else."""
        page: Page | None = first
        followed: set[str] = set()
        while page is not None:
            yield from page["results"]
            link = page.get("next")
            if not link:
                return
            if link in followed:  # a server that pointed back would page forever
                raise RuntimeError(f"the pages of this list lead back to {link}")
            followed.add(link)
            url = httpx.URL(link)
            path_and_query = url.raw_path.decode("ascii").removeprefix(API)
            page = self.request("GET", path_and_query, route=f"GET {url.path.removeprefix(API)}")

    # --- auth and account -------------------------------------------------------------------

    @operation("GET", "/")
    def index(self) -> dict[str, Any]:
        return self.request("GET", "/", auth=False)

    @operation("POST", "/auth/register/")
    def register(self, username: str, password: str, **fields: Any) -> dict[str, Any]:
        """Creates an account and uses its token from now on."""
        body = self.request(
            "POST",
            "/auth/register/",
            json={"username": username, "password": password, **fields},
            auth=False,
        )
        self.token = body["token"]
        return body

    @operation("POST", "/auth/token/")
    def login(
        self,
        username: str,
        password: str,
        *,
        name: str | None = None,
        expires_in: int | None = None,
        **fields: Any,
    ) -> dict[str, Any]:
        """Logs in and uses the new token from now on. `name` names the token (a login
        with the same name replaces it where the server supports that), `expires_in`
        (seconds) makes it expire; `fields` passes what else the server takes (scopes)."""
        body = {"username": username, "password": password, **fields}
        if name is not None:
            body["name"] = name
        if expires_in is not None:
            body["expires_in"] = expires_in
        answer = self.request("POST", "/auth/token/", json=body, auth=False)
        self.token = answer["token"]
        return answer

    def login_or_register(
        self, username: str, password: str, *, is_bot: bool = False, **fields: Any
    ) -> dict[str, Any]:
        """Logs in, registering the account first when it does not exist (a program's
        account, for good, with `is_bot`)."""
        try:
            return self.login(username, password, **fields)
        except ApiError as exc:
            if exc.status not in (400, 401):
                raise
        return self.register(username, password, **({"is_bot": True} if is_bot else {}))

    @operation("DELETE", "/auth/token/")
    def logout(self) -> None:
        """Revokes the token in use."""
        self.request("DELETE", "/auth/token/")
        self.token = None

    @operation("GET", "/auth/tokens/")
    def tokens(self, **params: Any) -> Page:
        return self.get("/auth/tokens/", **params)

    @operation("DELETE", "/auth/tokens/{token_id}/")
    def revoke_token(self, token_id: int) -> None:
        self.request("DELETE", f"/auth/tokens/{token_id}/")

    @operation("GET", "/me/")
    def me(self) -> dict[str, Any]:
        return self.get("/me/")

    @operation("PATCH", "/me/")
    def update_me(self, **fields: Any) -> dict[str, Any]:
        return self.request("PATCH", "/me/", json=fields)

    @operation("GET", "/me/transactions/")
    def transactions(self, **params: Any) -> Page:
        """The wallet's ledger entries, newest first."""
        return self.get("/me/transactions/", **params)

    @operation("GET", "/players/")
    def search_players(self, search: str, *, limit: int | None = None) -> list[PlayerRef]:
        """Active players whose username starts with `search` (any case), an exact match
        first; at most `limit` (10 unless given, up to 20)."""
        found = self.get("/players/", search=search, limit=limit)
        return [decode(PlayerRef, p) for p in found]

    @operation("GET", "/players/{username}/")
    def player(self, username: str) -> dict[str, Any]:
        return self.get(f"/players/{username}/")

    @operation("POST", "/players/{username}/reports/")
    def report_player(
        self, username: str, reason: str, *, detail: str = "", match_id: int | None = None
    ) -> dict[str, Any]:
        """Reports a player to the moderators: `reason` is cheating, abuse, name,
        stalling or other."""
        body: dict[str, Any] = {"reason": reason, "detail": detail}
        if match_id is not None:
            body["match_id"] = match_id
        return self.post(f"/players/{username}/reports/", body)

    @operation("GET", "/players/{username}/matches/")
    def player_matches(self, username: str, **params: Any) -> Page:
        return self.get(f"/players/{username}/matches/", **params)

    @operation("GET", "/leaderboard/")
    def leaderboard(self, **params: Any) -> Page:
        """`by`=chips|rating, `ruleset` (with by=rating), `cursor`, `page_size`."""
        return self.get("/leaderboard/", **params)

    @operation("GET", "/webhooks/")
    def webhooks(self) -> list[dict[str, Any]]:
        return self.get("/webhooks/")

    @operation("POST", "/webhooks/")
    def create_webhook(self, url: str, secret: str | None = None) -> dict[str, Any]:
        return self.post("/webhooks/", {"url": url, **({"secret": secret} if secret else {})})

    @operation("DELETE", "/webhooks/{webhook_id}/")
    def delete_webhook(self, webhook_id: int) -> None:
        self.request("DELETE", f"/webhooks/{webhook_id}/")

    @operation("GET", "/webhooks/{webhook_id}/deliveries/")
    def webhook_deliveries(self, webhook_id: int) -> list[dict[str, Any]]:
        return self.get(f"/webhooks/{webhook_id}/deliveries/")

    @operation("GET", "/stream/")
    def account_stream(self, *, after: int | None = None, **options: Any) -> Stream[AccountEvent]:
        """The account's events as they happen, resumed after a drop or a restart.
        `after=0` replays every event kept; without it the stream starts now."""
        return Stream(
            self,
            "/stream/",
            decode=AccountEvent.from_json,
            params={"after": after} if after is not None else {},
            **options,
        )

    # --- rules and matches -----------------------------------------------------------------

    @operation("GET", "/rulesets/")
    def rulesets(self) -> list[dict[str, Any]]:
        return self.get("/rulesets/")

    @operation("GET", "/rulesets/help/")
    def rules_help(self) -> RulesHelp:
        """The rules in plain words: each family, option and preset (docs/RULES.md 5)."""
        return decode(RulesHelp, self.get("/rulesets/help/"))

    @operation("GET", "/bots/")
    def bots(self) -> list[BotStrategy]:
        """The server's bots, levels weakest first (`easy`, `medium`, `hard`, `expert`),
        then `random` and `cautious`: each name is a `strategy` for `bots=` and
        `add_bot`."""
        return [decode(BotStrategy, b) for b in self.get("/bots/")]

    @operation("GET", "/matches/")
    def matches(self, **params: Any) -> Page:
        """The lobby: `status`, `mine`, `ruleset`, `players` (seats), `buy_in_min`,
        `buy_in_max`, `cursor`, `page_size`."""
        return self.get("/matches/", **params)

    @operation("POST", "/matches/")
    def create_match(
        self,
        ruleset: str,
        *,
        max_players: int = 2,
        turn_seconds: int = 60,
        bots: list[str] | None = None,
        **fields: Any,
    ) -> Match:
        """A new match, the caller in seat 0; `bots` names the strategies of server bots
        to seat now (levels: easy, medium, hard, expert; see `bots()`); `fields`:
        options, buy_in, ante, private..."""
        body = {"ruleset": ruleset, "max_players": max_players, "turn_seconds": turn_seconds}
        if bots:
            body["bots"] = [{"strategy": s} for s in bots]
        return decode(Match, self.post("/matches/", {**body, **fields}))

    @operation("GET", "/matches/{match_id}/")
    def match(self, match_id: int) -> Match:
        return decode(Match, self.get(f"/matches/{match_id}/"))

    @operation("POST", "/matches/{match_id}/join/")
    def join(self, match_id: int, invite_code: str | None = None) -> Match:
        body = {"invite_code": invite_code} if invite_code else {}
        return decode(Match, self.post(f"/matches/{match_id}/join/", body))

    @operation("POST", "/matches/{match_id}/leave/")
    def leave(self, match_id: int) -> Match:
        return decode(Match, self.post(f"/matches/{match_id}/leave/"))

    @operation("POST", "/matches/{match_id}/bots/")
    def add_bot(self, match_id: int, strategy: str = "random") -> Match:
        return decode(Match, self.post(f"/matches/{match_id}/bots/", {"strategy": strategy}))

    @operation("POST", "/matches/{match_id}/start/")
    def start(self, match_id: int) -> Match:
        return decode(Match, self.post(f"/matches/{match_id}/start/"))

    @operation("POST", "/matches/{match_id}/actions/")
    def act(
        self,
        match_id: int,
        action: dict[str, Any],
        *,
        expected_version: int | None = None,
        idempotency_key: str | None = None,
    ) -> Match:
        """Plays `action`; with `expected_version` a move that raced another is refused
        (VersionConflict) instead of applied to a state it was not chosen for."""
        body = dict(action)
        if expected_version is not None:
            body["expected_version"] = expected_version
        answer = self.post(f"/matches/{match_id}/actions/", body, idempotency_key=idempotency_key)
        return decode(Match, answer)

    @operation("POST", "/matches/{match_id}/resign/")
    def resign(self, match_id: int) -> Match:
        return decode(Match, self.post(f"/matches/{match_id}/resign/"))

    def _step(self, match_id: int, step: str, expected_version: int | None) -> Match:
        body = {} if expected_version is None else {"expected_version": expected_version}
        return decode(Match, self.post(f"/matches/{match_id}/{step}/", body))

    @operation("POST", "/matches/{match_id}/abort/")
    def propose_abort(self, match_id: int, *, expected_version: int | None = None) -> Match:
        """Proposes ending the match with every stake refunded, or agrees to a proposal
        (round 1 only); it ends once every seat still playing agrees."""
        return self._step(match_id, "abort", expected_version)

    @operation("POST", "/matches/{match_id}/abort/withdraw/")
    def withdraw_abort(self, match_id: int, *, expected_version: int | None = None) -> Match:
        return self._step(match_id, "abort/withdraw", expected_version)

    @operation("POST", "/matches/{match_id}/claim-victory/")
    def claim_victory(self, match_id: int, *, expected_version: int | None = None) -> Match:
        """Wins a match whose every opponent has been gone (their turns timed out) for
        the last turns API.md names."""
        return self._step(match_id, "claim-victory", expected_version)

    @operation("POST", "/matches/{match_id}/rematch/")
    def rematch(self, match_id: int, *, expected_version: int | None = None) -> Match:
        """Offers a rematch of a finished match, or accepts the offer; once everyone
        accepted, the finished match's `rematch_id` names the new one."""
        return self._step(match_id, "rematch", expected_version)

    @operation("POST", "/matches/{match_id}/rematch/decline/")
    def decline_rematch(self, match_id: int, *, expected_version: int | None = None) -> Match:
        return self._step(match_id, "rematch/decline", expected_version)

    @operation("GET", "/matches/{match_id}/rounds/")
    def rounds(self, match_id: int) -> dict[str, Any]:
        return self.get(f"/matches/{match_id}/rounds/")

    @operation("GET", "/matches/{match_id}/export/")
    def export(self, match_id: int) -> dict[str, Any]:
        return self.get(f"/matches/{match_id}/export/")

    @operation("GET", "/matches/{match_id}/events/")
    def events(self, match_id: int, *, after: int = 0, wait: float | None = None) -> EventPage:
        """Events after `after`; with `wait` (<= 30 s) a long poll."""
        return decode(EventPage, self.get(f"/matches/{match_id}/events/", after=after, wait=wait))

    @operation("GET", "/matches/{match_id}/messages/")
    def messages(self, match_id: int, **params: Any) -> Page:
        return self.get(f"/matches/{match_id}/messages/", **params)

    @operation("POST", "/matches/{match_id}/messages/")
    def send_message(self, match_id: int, text: str) -> dict[str, Any]:
        return self.post(f"/matches/{match_id}/messages/", {"text": text})

    @operation("GET", "/matches/{match_id}/stream/")
    def match_stream(
        self, match_id: int, *, after: int | None = None, **options: Any
    ) -> Stream[Event]:
        """The public event log as it happens (Events), until the match ends."""
        return Stream(
            self,
            f"/matches/{match_id}/stream/",
            decode=lambda d: decode(Event, d),
            params={"after": after} if after is not None else {},
            final=lambda e: e.type in ("match_finished", "match_aborted"),
            **options,
        )

    @operation("GET", "/matches/{match_id}/seat-stream/")
    def seat_stream(self, match_id: int, **options: Any) -> Stream[Match]:
        """Your seat's view (a Match) first as it is, then once per change, until the
        match ends. `resume=False` asks for the current state on every reconnection."""
        return Stream(
            self,
            f"/matches/{match_id}/seat-stream/",
            decode=lambda d: decode(Match, d),
            final=lambda m: m.over,
            **options,
        )

    # --- challenges and quick play ------------------------------------------------------------

    @operation("GET", "/challenges/")
    def challenges(self, **params: Any) -> Page:
        """`direction`=incoming|outgoing, `status`."""
        return self.get("/challenges/", **params)

    @operation("POST", "/challenges/")
    def challenge(
        self, usernames: list[str], ruleset: str, *, turn_seconds: int = 60, **fields: Any
    ) -> dict[str, Any]:
        body = {"usernames": usernames, "ruleset": ruleset, "turn_seconds": turn_seconds}
        return self.post("/challenges/", {**body, **fields})

    @operation("POST", "/challenges/{challenge_id}/accept/")
    def accept_challenge(self, challenge_id: int) -> dict[str, Any]:
        return self.post(f"/challenges/{challenge_id}/accept/")

    @operation("POST", "/challenges/{challenge_id}/decline/")
    def decline_challenge(self, challenge_id: int) -> dict[str, Any]:
        return self.post(f"/challenges/{challenge_id}/decline/")

    @operation("POST", "/challenges/{challenge_id}/cancel/")
    def cancel_challenge(self, challenge_id: int) -> dict[str, Any]:
        return self.post(f"/challenges/{challenge_id}/cancel/")

    @operation("GET", "/seeks/")
    def seeks(self, **params: Any) -> Page:
        return self.get("/seeks/", **params)

    @operation("POST", "/seeks/")
    def seek(
        self, ruleset: str, *, players: int = 2, turn_seconds: int = 60, **fields: Any
    ) -> dict[str, Any]:
        """Quick play: waits in the pool of these settings (`status` waiting) or is
        matched at once (`match_id`)."""
        body = {"ruleset": ruleset, "players": players, "turn_seconds": turn_seconds}
        return self.post("/seeks/", {**body, **fields})

    @operation("GET", "/seeks/{seek_id}/")
    def get_seek(self, seek_id: int) -> dict[str, Any]:
        return self.get(f"/seeks/{seek_id}/")

    @operation("DELETE", "/seeks/{seek_id}/")
    def cancel_seek(self, seek_id: int) -> None:
        self.request("DELETE", f"/seeks/{seek_id}/")

    # --- tournaments ----------------------------------------------------------------------

    @operation("GET", "/tournaments/")
    def tournaments(self, **params: Any) -> Page:
        """`status`=registering|running|finished|cancelled, `format`, `mine`."""
        return self.get("/tournaments/", **params)

    @operation("POST", "/tournaments/")
    def create_tournament(
        self,
        name: str,
        format: str,
        ruleset: str,
        *,
        table_size: int,
        turn_seconds: int = 60,
        **fields: Any,
    ) -> Tournament:
        body = {
            "name": name,
            "format": format,
            "ruleset": ruleset,
            "table_size": table_size,
            "turn_seconds": turn_seconds,
        }
        return decode(Tournament, self.post("/tournaments/", {**body, **fields}))

    @operation("GET", "/tournaments/{tournament_id}/")
    def tournament(self, tournament_id: int) -> Tournament:
        return decode(Tournament, self.get(f"/tournaments/{tournament_id}/"))

    @operation("POST", "/tournaments/{tournament_id}/register/")
    def register_for(self, tournament_id: int) -> Tournament:
        return decode(Tournament, self.post(f"/tournaments/{tournament_id}/register/"))

    @operation("POST", "/tournaments/{tournament_id}/unregister/")
    def unregister_from(self, tournament_id: int) -> Tournament:
        return decode(Tournament, self.post(f"/tournaments/{tournament_id}/unregister/"))

    @operation("POST", "/tournaments/{tournament_id}/bots/")
    def add_tournament_bot(self, tournament_id: int, strategy: str) -> Tournament:
        path = f"/tournaments/{tournament_id}/bots/"
        return decode(Tournament, self.post(path, {"strategy": strategy}))

    @operation("POST", "/tournaments/{tournament_id}/cancel/")
    def cancel_tournament(self, tournament_id: int) -> Tournament:
        return decode(Tournament, self.post(f"/tournaments/{tournament_id}/cancel/"))

    @operation("GET", "/tournaments/{tournament_id}/payouts/")
    def tournament_payouts(self, tournament_id: int) -> Payout:
        return decode(Payout, self.get(f"/tournaments/{tournament_id}/payouts/"))

    @operation("GET", "/tournaments/{tournament_id}/stream/")
    def tournament_stream(self, tournament_id: int, **options: Any) -> Stream[Tournament]:
        """The tournament first as it is, then after each change, until it is over."""
        return Stream(
            self,
            f"/tournaments/{tournament_id}/stream/",
            decode=lambda d: decode(Tournament, d),
            final=lambda t: t.over,
            **options,
        )


def _decode(response: httpx.Response) -> Any:
    try:
        return response.json()
    except ValueError:
        return response.text


def _retry_after_of(response: httpx.Response) -> float | None:
    return retry_after(response) if "Retry-After" in response.headers else None
