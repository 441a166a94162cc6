"""A match's live events: the long poll (`events/?after=&wait=`) and the Server-Sent
Events stream (`stream/`), both async views that hold no thread and no database
connection while they wait (see `core.live`, `core.notifications`).

Match events are public (the log never holds a seat's hidden dice), and who may follow
a match is `selectors.match_get`'s rule, as for every other read: checked when a reader
comes, and again only where it can change (`_Sight`). Followers of one match in one
process share its recent events (`_MatchLog`): when an event wakes a thousand of them,
the log is read once.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import AsyncIterator
from typing import Any

from django.http import HttpResponse, JsonResponse
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import exceptions, serializers
from rest_framework.request import Request
from rest_framework.views import APIView

from accounts.authentication import TokenExpired
from accounts.events import SESSIONS_CHANNEL
from accounts.models import User
from core import notifications
from core.errors import DomainError, TooManyStreams
from core.live import (
    RECHECK_SECONDS,
    Pulse,
    StreamSlot,
    can_stream,
    db,
    live_view,
    problem_from,
    resume_position,
    sse_event,
    sse_response,
    stream_limit,
    token_expiry,
    token_problem,
)
from core.query import parse_query
from core.schema import event_stream, problems
from games import selectors
from games.errors import MatchNotFound, NotSeated
from games.events import EventsOutput
from games.models import Match
from games.notify import CHANNEL
from games.serializers import EventsQuery
from games.services.publish import MATCH_END_EVENTS

# Recent events one process keeps per followed match.
LOG_CACHE = 200
# Events one answer (or one read of the stream) carries at most.
EVENTS_PAGE = 200
ENDED = (Match.Status.FINISHED, Match.Status.ABORTED)
# The one event that takes a seat away (`games.services.lobby._unseat`: a player leaves,
# is unseated short of chips or banned), so the one way to lose sight of a private match.
SEAT_LOST = "player_left"


def _session_key(user_id: int) -> tuple[str, int]:
    return (SESSIONS_CHANNEL, user_id)


class _MatchLog:
    """The recent events of one match, shared by its followers in this process, each
    event's SSE frame encoded once for all of them (match events are public: every
    follower may see the same bytes).

    A read serves a follower when it started after the follower's subscription or last
    wake-up (whatever was committed before those has been read), or when the listener
    vouches that no notification for the match came since the read started
    (`Hub.quiet_since`): then a follower reads nothing, and of a thousand woken by one
    event, one reads while the others wait for that read."""

    def __init__(self, match_id: int) -> None:
        self.match_id = match_id
        self.followers = 0
        # The log's events in (start, end], oldest first: none cached before a first read.
        self.start: int | None = None
        self.end = 0
        self.events: list[dict[str, Any]] = []
        self.frames: dict[int, bytes] = {}  # seq: the event's SSE frame
        self.read_at = -1.0
        self.read_mark = (-1, 0)
        self.truncated = False  # the last read stopped at a full page: more may follow
        self.lock = asyncio.Lock()

    def _current(self, fresh_since: float, sub: notifications.Subscription) -> bool:
        if self.truncated:
            return False
        return self.read_at >= fresh_since or (
            sub.reliable and sub.hub.quiet_since(self.read_mark, CHANNEL, self.match_id)
        )

    async def after(
        self, after: int, fresh_since: float, sub: notifications.Subscription
    ) -> list[dict[str, Any]]:
        if self.start is None or after < self.start:
            async with self.lock:
                return await self._read(after, sub)
        if not self._current(fresh_since, sub):
            async with self.lock:
                if not self._current(fresh_since, sub):  # not read meanwhile
                    await self._read(self.end, sub)
        first = after - self.start  # seqs are gapless
        return self.events[first : first + EVENTS_PAGE]

    async def _read(self, after: int, sub: notifications.Subscription) -> list[dict[str, Any]]:
        read_at, mark = time.monotonic(), sub.hub.mark(sub)
        events = await db(_events_after, self.match_id, after)
        final = next((e["seq"] for e in events if e["type"] in MATCH_END_EVENTS), None)
        if final is not None:
            _ended_at(self.match_id, final)
        if after != self.end or self.start is None or after < self.start:
            self.start, self.events, self.frames = after, [], {}
        self.events.extend(events)
        self.end = self.events[-1]["seq"] if self.events else self.start
        self.truncated = len(events) >= EVENTS_PAGE
        if len(self.events) > LOG_CACHE:
            del self.events[:-LOG_CACHE]
            self.start = self.end - LOG_CACHE
            self.frames = {seq: f for seq, f in self.frames.items() if seq > self.start}
        self.read_at, self.read_mark = read_at, mark
        return events

    def frame(self, event: dict[str, Any]) -> bytes:
        seq = event["seq"]
        found = self.frames.get(seq)
        if found is None:
            found = sse_event(seq, event["type"], event)
            if self.start is not None and self.start < seq <= self.end:
                self.frames[seq] = found
        return found


_logs: dict[tuple[asyncio.AbstractEventLoop, int], _MatchLog] = {}


class _Following:
    """A follower's share of its match's log (dropped with the last follower)."""

    def __init__(self, match_id: int) -> None:
        self.key = (asyncio.get_running_loop(), match_id)

    def __enter__(self) -> _MatchLog:
        log = _logs.get(self.key) or _logs.setdefault(self.key, _MatchLog(self.key[1]))
        log.followers += 1
        return log

    def __exit__(self, *exc: object) -> None:
        log = _logs[self.key]
        log.followers -= 1
        if not log.followers:
            del _logs[self.key]


def _events_after(match_id: int, after: int) -> list[dict[str, Any]]:
    return selectors.events_after(match=Match(pk=match_id), after=after, limit=EVENTS_PAGE)


def _last_seq(match_id: int) -> int:
    return Match.objects.filter(pk=match_id).values_list("event_seq", flat=True).first() or 0


def _sight_lost(match_id: int, user: User) -> MatchNotFound | None:
    """Why `user` may no longer see the match (the refusal a read would answer), or None."""
    try:
        selectors.match_with_seats(match_id=match_id, user=user)
    except MatchNotFound as exc:
        return exc
    return None


class _Sight:
    """What one reader may still see of the match it follows, checked where that can
    change, so that the followers of a public match (`private` is fixed when a match is
    made) make no query for it: the reader's token when its account's sessions channel
    fires (revoked, banned), and, at a private match, its seat when a read brings a
    `player_left`. Once it may see no more, `lost` is the refusal a new request would get
    and the reader gets nothing written from the loss on."""

    def __init__(
        self,
        request: Request,
        sub: notifications.Subscription,
        match_id: int,
        after: int,
        private_seq: int | None,
    ) -> None:
        """`private_seq`: the last event of a private match when the reader was found
        seated there; None for a public match."""
        self.request = request
        self.sub = sub
        self.match_id = match_id
        self.private = private_seq is not None
        # Events checked through here. A private match's reader reads every event written
        # since it was found seated, even when it resumes later: no `player_left` unseen.
        self.read_to = after if private_seq is None else min(after, private_seq)
        self.lost: exceptions.APIException | DomainError | None = None

    async def events_after(
        self, log: _MatchLog, after: int, fresh_since: float
    ) -> list[dict[str, Any]]:
        """The events after `after` the reader may see (a page at most)."""
        while True:
            read = await log.after(self.read_to, fresh_since, self.sub)
            visible = await self._visible(read)
            if visible:
                self.read_to = visible[-1]["seq"]
            events = [e for e in visible if e["seq"] > after]
            if events or self.lost or len(read) < EVENTS_PAGE:
                return events

    async def _visible(self, events: list[dict[str, Any]]) -> list[dict[str, Any]]:
        user = self.request.user
        if self.sub.take_woken(*_session_key(user.pk)):
            self.lost = await token_problem(self.request)
            if self.lost:
                return []  # when in the read the token went is unknown: none of it
        if not self.private or not any(e["type"] == SEAT_LOST for e in events):
            return events
        self.lost = await db(_sight_lost, self.match_id, user)
        if not self.lost:
            return events
        own = (
            i
            for i, e in enumerate(events)
            if e["type"] == SEAT_LOST and e["data"]["player"]["id"] == user.pk
        )
        return events[: next(own, 0)]  # before the reader's seat went (if it is here)


def _visible_match(match_id: int, request: Request) -> Match:
    return selectors.match_get(match_id=match_id, user=request.user)


# Matches this process found public: anyone may follow them (a match's `private` is fixed
# when it is made), so a long poll's renewal needs no query to say so. Most recent last.
_public_matches: dict[int, None] = {}
_public_matches_lock = threading.Lock()  # the live views' worker threads share it
PUBLIC_MATCHES_KEPT = 10_000


# Matches this process saw end, and their last event: a long poll asking beyond it is
# answered at once with it, rather than waiting for events that will never come.
_ended_matches: dict[int, int] = {}


def _ended_at(match_id: int, last_seq: int) -> None:
    with _public_matches_lock:
        if len(_ended_matches) >= PUBLIC_MATCHES_KEPT:
            _ended_matches.pop(next(iter(_ended_matches)))
        _ended_matches[match_id] = last_seq


def _check_visible(match_id: int, request: Request) -> int | None:
    """Refuses a caller who may not see the match. For a private match (where the caller
    is seated), its last event now; None for a public one."""
    if match_id in _public_matches:
        return None
    match = _visible_match(match_id, request)
    if match.status in ENDED:
        _ended_at(match_id, match.event_seq)
    if match.private:
        return match.event_seq
    with _public_matches_lock:
        if len(_public_matches) >= PUBLIC_MATCHES_KEPT:
            _public_matches.pop(next(iter(_public_matches)))
        _public_matches[match_id] = None
    return None


def _events_query(request: Request, match_id: int) -> tuple[dict[str, Any], int | None]:
    query = parse_query(request, EventsQuery)
    return query, _check_visible(match_id, request)


def _stream_start(request: Request, match_id: int) -> tuple[int, Match]:
    query = parse_query(request, StreamQuery)
    after = resume_position(request, query.get("after")) or 0
    return after, _visible_match(match_id, request)


# --- the long poll ------------------------------------------------------------------------


class MatchEventsSchema(APIView):
    token_scope = "read"

    @extend_schema(
        parameters=[EventsQuery],
        responses={200: EventsOutput},
        tags=["play"],
        summary="Events after a sequence number (long poll with wait)",
        description="The match's public events with `seq > after`, oldest first (at most "
        "200 a call), typed by `type`. With `wait` (seconds, up to 30) the call holds "
        "until an event exists or the time passes: call again with `after=last_seq`. A "
        "waiting call holds no server thread. Should the caller lose sight of the match "
        "while it waits (a private match's seat gone, the token revoked or expired, the account "
        "banned), it answers what was written before that, else the 404 or 401 a new call "
        "would get.",
    )
    def get(self, request: Request, match_id: int) -> None:
        """Documents `match_events`."""


@live_view(MatchEventsSchema, prepare=_events_query)
async def match_events(request: Request, prepared: tuple, match_id: int) -> HttpResponse:
    query, private_seq = prepared
    after, wait = query["after"], query["wait"]
    deadline = request.arrived_at + wait
    # A token's expiry ends the wait it opened: what came before it, else a 401.
    expiry = token_expiry(request)
    expires_first = expiry is not None and expiry < deadline
    if expires_first:
        deadline = expiry
    hub = notifications.hub()
    async with hub.subscribe((CHANNEL, match_id), _session_key(request.user.pk)) as sub:
        sight = _Sight(request, sub, match_id, after, private_seq)
        with _Following(match_id) as log:
            fresh_since = time.monotonic()
            events = await sight.events_after(log, after, fresh_since)
            final = _ended_matches.get(match_id)
            if not events and final is not None and after > final:
                # Events may follow the end (a rematch's): the one kept may be behind.
                final = await db(_last_seq, match_id)
                _ended_at(match_id, final)
                if after > final:
                    return JsonResponse({"events": [], "last_seq": final})
            while not events and not sight.lost and not sub.closing:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    break
                if sub.reliable:
                    woken = await sub.wait(remaining)
                else:
                    woken = await sub.wait(min(remaining, RECHECK_SECONDS)) or True
                if not woken:
                    break  # the listener vouches that nothing was written
                fresh_since = time.monotonic()
                events = await sight.events_after(log, after, fresh_since)
    # Nothing came, nothing was lost and no shutdown answered early: the wait ran to its
    # deadline, which was the token's expiry. (Not a clock reading: a timer may fire a
    # fraction of a millisecond early.)
    if not events and not sight.lost and expires_first and not sub.closing:
        sight.lost = TokenExpired()
    if sight.lost and not events:
        return problem_from(sight.lost)
    last = events[-1]["seq"] if events else after
    return JsonResponse({"events": events, "last_seq": last})


# --- the event stream ---------------------------------------------------------------------


class StreamQuery(serializers.Serializer):
    after = serializers.IntegerField(
        min_value=0, required=False, help_text="Resume after this event id (Last-Event-ID wins)."
    )


LAST_EVENT_ID = OpenApiParameter(
    "Last-Event-ID",
    type=int,
    location=OpenApiParameter.HEADER,
    required=False,
    description="The id of the last event received: the stream resumes after it.",
)


class MatchStreamSchema(APIView):
    token_scope = "read"

    @extend_schema(
        parameters=[StreamQuery, LAST_EVENT_ID],
        responses={
            (200, "text/event-stream"): OpenApiResponse(
                description=(
                    "Server-Sent Events: `id: <seq>`, `event: <type>`, `data: <the event "
                    "as JSON>` for every event of the match log after the resume point, "
                    "oldest first; a `: heartbeat` comment every 15 s; the stream ends "
                    "after the match's final events (`match_finished`, `match_aborted`), "
                    "and when the caller loses sight of the match (a private match's seat "
                    "gone, the token revoked or expired, the account banned), before anything "
                    "written from then on."
                ),
            )
        },
        tags=["play"],
        summary="The match's events as they happen (Server-Sent Events)",
        extensions={**problems(TooManyStreams), **event_stream("match")},
    )
    def get(self, request: Request, match_id: int) -> None:
        """Documents `match_stream`."""


@live_view(MatchStreamSchema, prepare=_stream_start)
async def match_stream(request: Request, prepared: tuple, match_id: int) -> HttpResponse:
    after, match = prepared
    slot = stream_limit.open(request.user.pk)
    return sse_response(_match_stream_body(request, slot, match, after), request)


async def _match_stream_body(
    request: Request, slot: StreamSlot, match: Match, after: int
) -> AsyncIterator[bytes]:
    user_id = request.user.pk
    ended = match.status in ENDED
    hub = notifications.hub()
    try:
        async with hub.subscribe((CHANNEL, match.pk), _session_key(user_id)) as sub:
            private_seq = match.event_seq if match.private else None
            sight = _Sight(request, sub, match.pk, after, private_seq)
            with _Following(match.pk) as log:
                fresh_since = time.monotonic()
                pulse = Pulse()
                read = True
                while not sub.closing:
                    if read:
                        events = await sight.events_after(log, after, fresh_since)
                        if events:
                            yield b"".join(log.frame(event) for event in events)
                            after = events[-1]["seq"]
                            ended = ended or any(e["type"] in MATCH_END_EVENTS for e in events)
                        if sight.lost:
                            return
                        if events:
                            continue  # a full page, maybe: read on before waiting
                        if ended or not can_stream():
                            return
                    woken, now, beat = await pulse.wait(sub)
                    if beat:
                        yield beat
                    # Silence the listener vouches for needs no read.
                    read = woken or not sub.reliable
                    if read:
                        fresh_since = now
    finally:
        slot.release()


# --- a seat's own stream ------------------------------------------------------------------


class SeatStreamSchema(APIView):
    # What `GET /matches/{id}/` answers the same caller, as it changes.
    token_scope = "read"

    @extend_schema(
        parameters=[StreamQuery, LAST_EVENT_ID],
        responses={
            (200, "text/event-stream"): OpenApiResponse(
                description=(
                    "Server-Sent Events for a seated player: `event: state` with `data:` "
                    "the match exactly as `GET /matches/{match_id}/` answers you (your "
                    "dice, `legal_actions`, `version`, the deadline), first as it is now, "
                    "then once per change (a move, a round, a timeout, a start or an end; "
                    "not chat). `id:` is the match's `event_seq` at that state: resume "
                    "with `Last-Event-ID` (the state comes again if anything, chat too, was "
                    "written since: compare its `version`). "
                    "A `: heartbeat` comment every 15 s; the stream ends after the state "
                    "in which the match finished or was aborted, and when you lose your "
                    "seat, your token, or your account. A whole match plays from this "
                    "stream and `POST actions/`."
                ),
            )
        },
        tags=["play"],
        summary="Your seat's view as it changes (Server-Sent Events)",
        extensions={**problems(NotSeated, TooManyStreams), **event_stream("seat")},
    )
    def get(self, request: Request, match_id: int) -> None:
        """Documents `seat_stream`."""


def _seat_stream_start(request: Request, match_id: int) -> int | None:
    """The resume point (None: send the state as it is now); refuses a caller who is not
    seated at the match (404 where they may not see it, as reads answer)."""
    query = parse_query(request, StreamQuery)
    _match, seats = selectors.match_with_seats(match_id=match_id, user=request.user)
    if not any(s.player_id == request.user.pk for s in seats):
        raise NotSeated("Only a seated player has a seat stream; follow `stream/` instead.")
    return resume_position(request, query.get("after"))


def _seat_view(match_id: int, user: User) -> dict[str, Any] | None:
    """The match as the seated `user` sees it now; None once they are seated no more."""
    try:
        match, seats = selectors.match_with_seats(match_id=match_id, user=user)
    except MatchNotFound:
        return None
    if not any(s.player_id == user.pk for s in seats):
        return None
    return selectors.match_view(match=match, user=user, seats=seats)


@live_view(SeatStreamSchema, prepare=_seat_stream_start)
async def seat_stream(request: Request, after: int | None, match_id: int) -> HttpResponse:
    slot = stream_limit.open(request.user.pk)
    return sse_response(_seat_stream_body(request, slot, match_id, after), request)


async def _seat_stream_body(
    request: Request, slot: StreamSlot, match_id: int, after: int | None
) -> AsyncIterator[bytes]:
    """One view read per wake-up (the match's events channel): a `state` when the match's
    version or status moved since the last one sent."""
    user = request.user
    sent: tuple[int, str] | None = None
    hub = notifications.hub()
    try:
        async with hub.subscribe((CHANNEL, match_id), _session_key(user.pk)) as sub:
            pulse = Pulse()
            read = True
            while not sub.closing:
                if sub.take_woken(*_session_key(user.pk)) and await token_problem(request):
                    return
                if read:
                    view = await db(_seat_view, match_id, user)
                    if view is None:
                        return  # the seat is gone: nothing more of this match is theirs
                    # A revocation noticed during the read: when it came is unknown, so
                    # nothing read then is sent.
                    if sub.take_woken(*_session_key(user.pk)) and await token_problem(request):
                        return
                    moved = (view["version"], view["status"]) != sent
                    if moved and (after is None or view["event_seq"] > after):
                        yield sse_event(view["event_seq"], "state", view)
                    sent = (view["version"], view["status"])
                    if view["status"] in ENDED or not can_stream():
                        return
                woken, _now, beat = await pulse.wait(sub)
                if beat:
                    yield beat
                read = woken or not sub.reliable
    finally:
        slot.release()
