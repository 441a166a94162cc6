// Live updates: Server-Sent Events when the server offers them, the documented long
// poll (`events/?after=&wait=`) when it does not (a 404 or 405 on the stream).
//
// EventSource cannot send an Authorization header, so streams are read with fetch():
// the same bearer token as every other call, never a token in a URL.

import { API, ApiError, api, authHeaders } from "./api.js";

const LONG_POLL_SECONDS = 25;
const RETRY_MS = 2000;

const sleep = (ms, signal) =>
  new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener("abort", () => {
      clearTimeout(timer);
      resolve();
    });
  });

// Reads an SSE response body, calling onMessage({id, event, data}) for each message.
async function readEventStream(response, onMessage) {
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += decoder.decode(value, { stream: true }).replace(/\r\n?/g, "\n");
    let end;
    while ((end = buffer.indexOf("\n\n")) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const message = { id: null, event: "message", data: "" };
      const data = [];
      for (const line of block.split("\n")) {
        if (!line || line.startsWith(":")) continue; // a heartbeat comment
        const colon = line.indexOf(":");
        const name = colon < 0 ? line : line.slice(0, colon);
        const val = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
        if (name === "data") data.push(val);
        else if (name === "id") message.id = val;
        else if (name === "event") message.event = val;
      }
      if (data.length) {
        message.data = data.join("\n");
        onMessage(message);
      }
    }
  }
}

// A stream message as {seq, type, data}: a match event is sent whole ({seq, type, data,
// created_at}); an account event is one flat object, which becomes the `data`.
function asEvent(message) {
  let payload = null;
  try {
    payload = JSON.parse(message.data);
  } catch {
    payload = { text: message.data };
  }
  if (payload && typeof payload === "object" && "type" in payload && "data" in payload) {
    return { seq: Number(payload.seq ?? message.id), ...payload };
  }
  return { seq: Number(message.id), type: message.event, data: payload };
}

async function openStream(path, lastId, signal) {
  const headers = authHeaders({ Accept: "text/event-stream" });
  if (lastId) headers["Last-Event-ID"] = String(lastId);
  const response = await fetch(API + path, { headers, signal, cache: "no-store" });
  if (response.status === 404 || response.status === 405) return null;
  if (!response.ok) {
    throw new ApiError(response.status, await response.json().catch(() => null));
  }
  return response;
}

// Follows a match's events after `after`; onEvents(list) for each batch. Returns
// {stop(), mode} where mode is "stream" or "long poll" once known.
export function followMatch(matchId, after, onEvents, onMode = () => {}) {
  const control = new AbortController();
  const { signal } = control;
  const handle = { mode: null, stop: () => control.abort() };
  let last = after;
  let streamMissing = false;
  const deliver = (events) => {
    const fresh = events.filter((e) => !(e.seq <= last));
    if (!fresh.length) return;
    last = Math.max(last, ...fresh.map((e) => e.seq).filter(Number.isFinite));
    onEvents(fresh);
  };
  const setMode = (mode) => {
    if (handle.mode !== mode) onMode((handle.mode = mode));
  };
  (async () => {
    while (!signal.aborted) {
      try {
        if (!streamMissing) {
          const response = await openStream(`matches/${matchId}/stream/?after=${last}`, last, signal);
          if (response) {
            setMode("stream");
            const before = last;
            await readEventStream(response, (m) => deliver([asEvent(m)]));
            // The server ends the stream after the match's final events.
            const view = await api(`matches/${matchId}/`, { signal });
            if (view.status === "finished" || view.status === "aborted") return;
            // A server that cannot hold a stream open (a WSGI one) ends it at once: wait
            // before asking again rather than spin.
            if (last === before) await sleep(RETRY_MS, signal);
            continue;
          }
          streamMissing = true;
        }
        setMode("long poll");
        const page = await api(
          `matches/${matchId}/events/?after=${last}&wait=${LONG_POLL_SECONDS}`,
          { signal },
        );
        deliver(page.events);
        if (page.events.some((e) => e.type === "match_finished" || e.type === "match_aborted")) {
          return;
        }
      } catch (error) {
        if (signal.aborted) return;
        if (error instanceof ApiError && error.status === 401) return;
        await sleep(RETRY_MS, signal);
      }
    }
  })();
  return handle;
}

// Follows the caller's account stream (`your_turn`, `match_started`, challenges, ...):
// onEvent(event) for each event, onConnect() each time a stream opens (what happened
// before it is not sent: read the state then) and onMode("stream" | "poll"). Without a
// stream on the server, calls `poll()` every `pollMs` instead. Returns {stop()}.
export function followAccount({ onEvent, onConnect, onMode, poll, pollMs = 8000 }) {
  const control = new AbortController();
  const { signal } = control;
  let lastId = null;
  (async () => {
    let streamMissing = false;
    while (!signal.aborted) {
      try {
        if (!streamMissing) {
          const response = await openStream("stream/", lastId, signal);
          if (response) {
            onMode("stream");
            onConnect();
            let received = 0;
            await readEventStream(response, (m) => {
              received += 1;
              if (m.id) lastId = m.id;
              onEvent(asEvent(m));
            });
            if (!received) await sleep(RETRY_MS, signal); // a stream ended at once: no spin
            continue;
          }
          streamMissing = true;
          onMode("poll");
        }
        await poll();
        await sleep(pollMs, signal);
      } catch (error) {
        if (signal.aborted) return;
        if (error instanceof ApiError && error.status === 401) return;
        await sleep(RETRY_MS * 2, signal);
      }
    }
  })();
  return { stop: () => control.abort() };
}

// Follows a tournament's stream (`tournaments/{id}/stream/`, the whole detail after each
// change): onDetail(detail) for each. Without a stream, reads the detail every `pollMs`.
// Ends by itself once the tournament is finished or cancelled. Returns {stop()}.
export function followTournament(tournamentId, onDetail, pollMs = 5000) {
  const control = new AbortController();
  const { signal } = control;
  const over = (t) => t.status === "finished" || t.status === "cancelled";
  (async () => {
    let streamMissing = false;
    while (!signal.aborted) {
      try {
        let last = null;
        const response = streamMissing ? null : await openStream(`tournaments/${tournamentId}/stream/`, null, signal);
        if (response) {
          await readEventStream(response, (m) => onDetail((last = JSON.parse(m.data))));
          if (last && over(last)) return;
          if (!last) await sleep(RETRY_MS, signal); // a stream ended at once: no spin
          continue;
        }
        streamMissing = true;
        last = await api(`tournaments/${tournamentId}/`, { signal });
        onDetail(last);
        if (over(last)) return;
        await sleep(pollMs, signal);
      } catch (error) {
        if (signal.aborted) return;
        if (error instanceof ApiError && (error.status === 401 || error.status === 404)) return;
        await sleep(RETRY_MS * 2, signal);
      }
    }
  })();
  return { stop: () => control.abort() };
}
