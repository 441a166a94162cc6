// The end of a finished match: each seat's place, chips won or lost and rating change
// (the match's `results`), every round one click away, and what comes next: a rematch
// (offered, accepted or declined here, followed live until it starts) or a new match.

import { api } from "./api.js";
import { errorText, flash, go, onLeave } from "./app.js";
import { h } from "./dom.js";

const LONG_POLL_SECONDS = 25;
const RETRY_MS = 3000;

// A rating as players see it (docs/API.md, "Ratings shown to players"): "1520", or
// "1500? ±167" while it is provisional.
export function ratingText(shown) {
  if (!shown) return "—";
  return shown.provisional ? `${shown.value}? ±${shown.deviation}` : String(shown.value);
}

// Why a finished match moved no rating (the match's `unrated_reason`, docs/API.md).
const UNRATED = {
  casual: "A casual match: no rating changed.",
  abandoned: "Not rated: the match was abandoned (a resign, a leave, a timeout or a claimed win) in its first rounds.",
  not_played: "Not rated: a match counts once a round has ended with every player having made a move.",
};

const signed = (n) => (n > 0 ? `+${n}` : n < 0 ? `−${-n}` : "±0");
export const ordinal = (n) => `${n}${["th", "st", "nd", "rd"][(n % 100 > 10 && n % 100 < 14) || n % 10 > 3 ? 0 : n % 10]}`;

// "1447? ±161 (−53)"; `brief` leaves the deviation out (the table's narrow column).
function ratingChange(result, { brief = false } = {}) {
  if (!result.rating_after) return "unchanged";
  const after = result.rating_after;
  const delta = after.value - result.rating_before.value;
  const shown = brief ? `${after.value}${after.provisional ? "?" : ""}` : ratingText(after);
  return `${shown} (${signed(delta)})`;
}

// Matches shown here with no rematch yet: should one start while the page is open, the
// players are taken to it (an old match opened later stays where it is).
const awaitingRematch = new Set();
// The one follower of a finished match's events (a rematch's offer, answers, start).
let watched = null;

// Long polls the finished match's events after `after` (rematch_offered, _accepted,
// _declined, _started) and refreshes the page on each batch until the page is left.
function watchRematch(matchId, after, refresh) {
  if (watched?.matchId === matchId) return;
  watched?.stop();
  const control = new AbortController();
  watched = { matchId, stop: () => control.abort() };
  onLeave(() => {
    control.abort();
    if (watched?.matchId === matchId) watched = null;
  });
  let last = after;
  (async () => {
    while (!control.signal.aborted) {
      try {
        const page = await api(`matches/${matchId}/events/?after=${last}&wait=${LONG_POLL_SECONDS}`, {
          signal: control.signal,
        });
        if (page.events.length) {
          last = Math.max(last, ...page.events.map((e) => e.seq));
          await refresh();
        }
        if (page.events.some((e) => e.type === "rematch_started")) return;
      } catch {
        if (control.signal.aborted) return;
        await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
      }
    }
  })();
}

// The result screen of finished match `m`; `show(view)` draws a newer view of it and
// `refresh()` reloads it.
export function resultScreen(m, { show, refresh }) {
  const seated = m.your_seat !== null && m.your_seat !== undefined;
  if (m.rematch_id && awaitingRematch.has(m.id)) {
    awaitingRematch.delete(m.id);
    go(`#/match/${m.rematch_id}`);
  }
  if (seated && !m.rematch_id) {
    awaitingRematch.add(m.id);
    watchRematch(m.id, m.event_seq, refresh);
  }
  const name = (seat) => {
    const entry = m.seats.find((s) => s.seat === seat);
    return entry.seat === m.your_seat ? "you" : entry.player.username;
  };
  const results = [...(m.results || [])].sort((a, b) => a.place - b.place || a.seat - b.seat);
  const mine = results.find((r) => r.seat === m.your_seat);

  let headline;
  if (mine) headline = mine.place === 1 ? "You won!" : `You finished ${ordinal(mine.place)} of ${results.length}.`;
  else headline = `${m.winner_seats.map(name).join(" and ")} won.`;
  const summary = mine
    ? h("div", { class: "stats" },
        h("div", { class: "stat", testid: "result-chips" }, h("span", { class: "label" }, "Chips"),
          h("strong", {}, m.buy_in ? `${signed(mine.chips)} chips` : "no stake")),
        h("div", { class: "stat", testid: "result-rating" }, h("span", { class: "label" }, `Rating in ${m.ruleset.replaceAll("_", " ")}`),
          h("strong", {}, mine.rating_after ? ratingChange(mine) : "unchanged")))
    : null;
  let note = null;
  if (m.unrated_reason) note = UNRATED[m.unrated_reason] ?? "Not rated.";
  else if (mine && mine.rating_weight < 1) {
    note = `Your opponents are new here: this result moved your rating ${Math.round(100 * mine.rating_weight)}% of a full change.`;
  } else if (mine?.rating_after?.provisional) {
    note = `"?" marks a provisional rating: a new player's moves fast, give or take ${mine.rating_after.deviation} for now.`;
  }

  const rows = results.map((r) => {
    const seat = m.seats.find((s) => s.seat === r.seat);
    return h("tr", { class: r.seat === m.your_seat ? "you" : "" },
      h("td", {}, ordinal(r.place)),
      h("td", {}, seat.player.username, r.seat === m.your_seat ? " (you)" : "", seat.player.is_bot ? h("span", { class: "tag" }, "bot") : null),
      h("td", { class: "num" }, m.buy_in ? signed(r.chips) : "—"),
      h("td", { class: "num rating" }, ratingChange(r, { brief: true })));
  });
  const lastRound = m.last_round?.number || 0;
  const rounds = Array.from({ length: lastRound }, (_, i) => i + 1);

  return h("section", { class: "card result-screen", testid: "result-screen", "aria-labelledby": `result-${m.id}` },
    h("h2", { id: `result-${m.id}` }, headline),
    summary,
    note ? h("p", { class: "muted" }, note) : null,
    h("table", { class: "results" },
      h("thead", {}, h("tr", {}, h("th", {}, "Place"), h("th", {}, "Player"), h("th", { class: "num" }, "Chips"), h("th", { class: "num" }, "Rating"))),
      h("tbody", {}, rows)),
    rounds.length
      ? h("nav", { class: "round-links", "aria-label": "Rounds of this match" }, h("span", { class: "label" }, "Rounds: "),
          rounds.map((n) => h("a", { href: `#/match/${m.id}/replay/${n}`, testid: "round-link" }, String(n))))
      : null,
    nextSteps(m, seated, name, show));
}

// Rematch (offer, accept, decline or withdraw, or go to it) and New match.
function nextSteps(m, seated, name, show) {
  const post = (path) => async (event) => {
    event.target.disabled = true;
    try {
      show(await api(`matches/${m.id}/${path}`, { method: "POST", body: {} }));
    } catch (error) {
      flash(errorText(error), "error");
      event.target.disabled = false;
    }
  };
  const newMatch = h("a", { href: "#/", class: "button", testid: "new-match" }, "New match");
  if (!seated) return h("div", { class: "buttons" }, newMatch);
  if (m.rematch_id) {
    return h("div", { class: "buttons" },
      h("a", { href: `#/match/${m.rematch_id}`, class: "button", testid: "go-rematch" }, "Go to the rematch"), newMatch);
  }
  const offer = m.rematch_offer;
  if (!offer) {
    return h("div", { class: "buttons" },
      h("button", { type: "button", testid: "rematch", onclick: post("rematch/") }, "Rematch"), newMatch,
      h("small", { class: "muted" }, "A rematch keeps the rules and stakes; the others accept on their page."));
  }
  const waiting = m.seats.filter((s) => !offer.accepted_seats.includes(s.seat)).map((s) => name(s.seat));
  const asked = m.seats.filter((s) => offer.accepted_seats.includes(s.seat)).map((s) => name(s.seat));
  if (offer.accepted_seats.includes(m.your_seat)) {
    return h("div", { class: "buttons", testid: "rematch-offer" },
      h("span", {}, `Rematch asked: waiting for ${waiting.join(", ")}…`),
      h("button", { type: "button", class: "secondary", testid: "rematch-withdraw", onclick: post("rematch/decline/") }, "Withdraw"),
      newMatch);
  }
  return h("div", { class: "buttons", testid: "rematch-offer" },
    h("strong", {}, `${asked.join(", ")} ${asked.length === 1 ? "wants" : "want"} a rematch.`),
    h("button", { type: "button", testid: "rematch-accept", onclick: post("rematch/") }, "Accept rematch"),
    h("button", { type: "button", class: "secondary", testid: "rematch-decline", onclick: post("rematch/decline/") }, "Decline"),
    newMatch);
}
