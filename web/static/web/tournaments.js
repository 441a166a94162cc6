// Tournaments: the lobby's card (upcoming, running, finished) with register and
// unregister, the buy-in and the payout table; the tournament's page (#/tournament/<id>)
// with its entrants, stages and tables and standings, kept live by the tournament's
// stream; and the account events that take a player to their table when a stage starts.

import { api } from "./api.js";
import { app, errorText, flash, onLeave, refreshMe } from "./app.js";
import { h, replace } from "./dom.js";
import { followTournament } from "./live.js";
import { landAt } from "./matchmaking.js";
import { ordinal } from "./result.js";
import { TURN_TIMES, rulesetName } from "./rules-form.js";

const REFRESH_MS = 8000;
const TABS = [["registering", "Upcoming"], ["running", "Running"], ["finished", "Finished"]];
const STATUS_TEXT = { registering: "registering", running: "running", finished: "finished", cancelled: "cancelled" };

// The lobby card's state: the tab shown, and how to read it again (while it is shown).
const lobby = { tab: "registering", reload: null };

const turnText = (seconds) => TURN_TIMES.find(([s]) => s === seconds)?.[1] ?? `${seconds} s`;

function formatText(t) {
  if (t.format === "sit_and_go") return `Sit-and-go, ${t.table_size} seats`;
  return `Knockout, tables of ${t.table_size}, top ${t.advance} go on`;
}

function entryText(t) {
  if (!t.buy_in && !t.fee) return "free entry";
  return `buy-in ${t.buy_in}${t.fee ? ` + fee ${t.fee}` : ""} chips`;
}

function startText(t) {
  if (t.starts_at) return `starts ${new Date(t.starts_at).toLocaleString()}`;
  if (t.format === "sit_and_go") return "starts when full";
  return `starts once ${t.min_entrants} have registered`;
}

const isMine = (t) => t.standings?.some((s) => s.player.id === app.me?.id);

// "1st 65% (130) · 2nd 35% (70)": each paid place's share and its prize as it stands.
function payoutLine(payout) {
  if (!payout.places.length) return h("span", { class: "muted" }, "no prizes");
  const places = payout.places
    .map((p) => `${ordinal(p.place)} ${p.share_bp / 100}%${payout.pool ? ` (${p.prize})` : ""}`)
    .join(" · ");
  return payout.pool ? `${places} of ${payout.pool} chips${payout.fixed ? "" : " so far"}` : places;
}

async function registration(t, verb) {
  try {
    const detail = await api(`tournaments/${t.id}/${verb}/`, { method: "POST", body: {} });
    await refreshMe();
    flash(verb === "register"
      ? `Registered for ${t.name}${t.buy_in ? `: ${t.buy_in + t.fee} chips paid` : ""}. You are taken to your table when it starts.`
      : `Unregistered from ${t.name}${t.buy_in ? `: ${t.buy_in + t.fee} chips refunded` : ""}.`);
    lobby.reload?.();
    return detail;
  } catch (error) {
    flash(errorText(error), "error");
    return null;
  }
}

function registerButton(t, registered, after = () => {}) {
  const verb = registered ? "unregister" : "register";
  const full = !registered && t.entrant_count >= t.max_entrants;
  return h("button", {
    type: "button", class: registered ? "small secondary" : "small", testid: `tournament-${verb}`, disabled: full,
    "aria-label": `${registered ? "Unregister from" : "Register for"} ${t.name}`,
    onclick: async (event) => {
      const button = event.currentTarget; // null once the handler has awaited
      button.disabled = true;
      const detail = await registration(t, verb);
      if (detail) after(detail);
      else button.disabled = false;
    },
  }, registered ? "Unregister" : full ? "Full" : `Register${t.buy_in ? ` (${t.buy_in + t.fee})` : ""}`);
}

// --- the lobby card --------------------------------------------------------------------

function tournamentLine(t, { payout, registered }) {
  return h(
    "li", { class: "match-line tournament-line", dataset: { tournamentId: t.id } },
    h("span", { class: "grow" },
      h("a", { href: `#/tournament/${t.id}`, testid: "tournament-link" }, h("strong", {}, t.name)),
      registered ? h("span", { class: "tag" }, "registered") : null,
      h("span", { class: "muted" }, ` · ${formatText(t)} · ${rulesetName(t.ruleset)} · `,
        t.status === "registering" ? `${t.entrant_count}/${t.max_entrants} registered · ${entryText(t)}` : `${t.entrant_count} entrants`,
        t.pool ? ` · pool ${t.pool}` : ""),
      payout ? h("span", { class: "payout-line", testid: "tournament-payout-line" }, "Pays ", payoutLine(payout)) : null),
    t.status === "registering"
      ? registerButton(t, registered)
      : h("a", { href: `#/tournament/${t.id}`, class: "button small secondary" }, t.status === "running" ? "Follow" : "Results"),
  );
}

// The lobby's "Tournaments" card, one tab per stage of a tournament's life; it refreshes
// itself while the lobby is shown.
export function tournamentsCard() {
  const list = h("div", { testid: "tournament-list" }, h("p", {}, "Loading…"));
  const tabs = h("div", { class: "tournament-tabs", role: "tablist", "aria-label": "Tournaments" });
  const load = async () => {
    const tab = lobby.tab;
    try {
      const [page, mine] = await Promise.all([
        api(`tournaments/?status=${tab}&page_size=20`),
        tab === "registering" ? api("tournaments/?status=registering&mine=true&page_size=50") : null,
      ]);
      const payouts = tab === "registering"
        ? await Promise.all(page.results.map((t) => api(`tournaments/${t.id}/payouts/`).catch(() => null)))
        : [];
      if (tab !== lobby.tab) return; // another tab was chosen meanwhile
      const registered = new Set((mine?.results || []).map((t) => t.id));
      replace(list, page.results.length
        ? h("ul", { class: "plain" }, page.results.map((t, i) =>
            tournamentLine(t, { payout: payouts[i], registered: registered.has(t.id) })))
        : h("p", { class: "muted" }, `No ${TABS.find(([s]) => s === tab)[1].toLowerCase()} tournaments right now.`));
    } catch (error) {
      replace(list, h("p", { class: "error" }, errorText(error)));
    }
  };
  const drawTabs = () => replace(tabs, TABS.map(([status, label]) => h("button", {
    type: "button", role: "tab", class: status === lobby.tab ? "current" : "", "aria-selected": String(status === lobby.tab),
    testid: `tournaments-tab-${status}`,
    onclick: () => {
      lobby.tab = status;
      drawTabs();
      replace(list, h("p", {}, "Loading…"));
      load();
    },
  }, label)));
  drawTabs();
  lobby.reload = load;
  load();
  const timer = setInterval(load, REFRESH_MS);
  onLeave(() => {
    clearInterval(timer);
    lobby.reload = null;
  });
  return h("section", { class: "card", "aria-labelledby": "tournaments-title", testid: "tournaments-card" },
    h("h2", { id: "tournaments-title" }, "Tournaments"), tabs, list);
}

// --- account events --------------------------------------------------------------------

// An account event about a tournament: a stage's table takes you to it.
export function tournamentEvent(event) {
  const data = event.data || {};
  const link = h("a", { href: `#/tournament/${data.tournament_id}` }, `tournament #${data.tournament_id}`);
  switch (event.type) {
    case "tournament_starting":
      flash(`${data.name} is starting: ${data.entrants} entrants${data.pool ? `, a pool of ${data.pool} chips` : ""}.`);
      break;
    case "tournament_table":
      landAt(data.match_id, data.stage > 1 || !data.final
        ? `Tournament #${data.tournament_id}, ${data.final ? "the final" : `stage ${data.stage}`}: your table has started.`
        : `Tournament #${data.tournament_id}: your table has started. Good luck!`);
      break;
    case "tournament_finished":
      flash(h("span", {}, `You placed ${ordinal(data.place)} in `, link,
        data.prize ? ` and won ${data.prize} chips.` : "."));
      refreshMe().catch(() => {});
      break;
    case "tournament_cancelled":
      flash(h("span", {}, link, ` was cancelled (${data.reason})`, data.refund ? `: ${data.refund} chips refunded.` : "."));
      refreshMe().catch(() => {});
      break;
    default:
  }
  lobby.reload?.();
}

// --- the tournament's page -------------------------------------------------------------

function payoutTable(payout) {
  return h("section", { class: "card" },
    h("h2", {}, "Prizes"),
    h("p", { class: "muted" }, payout.fixed
      ? `Pool ${payout.pool} chips, fixed at the start for ${payout.entrants} entrants.`
      : `Pool ${payout.pool} chips so far; the table follows the entrants until the start.`),
    payout.places.length
      ? h("table", { class: "results", testid: "tournament-payout" },
          h("thead", {}, h("tr", {}, h("th", {}, "Place"), h("th", { class: "num" }, "Share"), h("th", { class: "num" }, "Prize"))),
          h("tbody", {}, payout.places.map((p) => h("tr", {},
            h("td", {}, ordinal(p.place)), h("td", { class: "num" }, `${p.share_bp / 100}%`), h("td", { class: "num" }, p.prize)))))
      : h("p", { class: "muted" }, "No prizes."),
    h("p", { class: "muted small" }, payout.remainder_rule));
}

function standingsTable(t) {
  const finalStage = t.stages.find((stage) => stage.final)?.number;
  const rows = t.standings.map((s) => h("tr", { class: s.player.id === app.me?.id ? "me" : "", dataset: { playerId: s.player.id } },
    h("td", {}, s.place ? ordinal(s.place) : "",
      s.place && s.out_in_stage !== finalStage ? h("small", { class: "muted out-in" }, `out in stage ${s.out_in_stage}`) : null),
    h("td", {}, h("a", { href: `#/profile/${encodeURIComponent(s.player.username)}` }, s.player.username),
      s.player.is_bot ? h("span", { class: "tag" }, "bot") : null),
    h("td", { class: "num" }, s.seed ?? ""),
    h("td", { class: "num" }, s.prize ?? "")));
  return h("section", { class: "card" },
    h("h2", {}, t.status === "registering" ? `Entrants (${t.entrant_count}/${t.max_entrants})` : "Standings"),
    rows.length
      ? h("table", { class: "results", testid: "tournament-standings" },
          h("thead", {}, h("tr", {}, h("th", {}, "Place"), h("th", {}, "Player"), h("th", { class: "num" }, "Seed"),
            h("th", { class: "num" }, "Prize"))),
          h("tbody", {}, rows))
      : h("p", { class: "muted" }, "Nobody has registered yet."));
}

function tableBox(t, stage, table, placed) {
  const mine = table.players.some((p) => p.id === app.me?.id);
  const playing = table.status === "active" || table.status === "open";
  return h("li", { class: `bracket-table${mine ? " mine" : ""}`, dataset: { matchId: table.match_id }, testid: "bracket-table" },
    h("div", { class: "bracket-head" },
      h("strong", {}, t.format === "sit_and_go" ? "The table" : stage.final ? "Final table" : `Table ${table.number}`),
      h("span", { class: "muted" }, playing ? " playing" : ` ${table.status}`)),
    h("ul", { class: "plain" }, table.players.map((p) => {
      // At the final the places; before it, who went out here and who goes on.
      const entry = placed.get(p.id);
      const out = !stage.final && entry?.out_in_stage === stage.number;
      const mark = stage.final ? (entry ? ordinal(entry.place) : null) : playing || out ? null : "goes on";
      return h("li", { class: out ? "out" : "" }, p.username, p.id === app.me?.id ? " (you)" : "",
        mark ? h("span", { class: "tag" }, mark) : null);
    })),
    h("a", { href: `#/match/${table.match_id}`, class: "button small", testid: mine && playing ? "tournament-your-table" : "tournament-watch-table" },
      mine && playing ? "Play" : playing ? "Watch" : "Replay"));
}

function bracket(t) {
  const placed = new Map(t.standings.filter((s) => s.place).map((s) => [s.player.id, s]));
  return h("section", { class: "card" },
    h("h2", {}, "Stages and tables"),
    t.stages.length
      ? h("div", { class: "bracket", testid: "tournament-bracket" }, t.stages.map((stage) => h("div", { class: "bracket-stage", dataset: { stage: stage.number } },
          h("h3", {}, t.format === "sit_and_go" ? "One table" : stage.final ? "Final" : `Stage ${stage.number}`, h("span", { class: "muted" }, stage.finished ? " · over" : " · playing")),
          h("ul", { class: "plain" }, stage.tables.map((table) => tableBox(t, stage, table, placed))))))
      : h("p", { class: "muted" }, t.status === "registering" ? `The tables are drawn at the start (${startText(t)}).` : "No tables."));
}

function yourTable(t) {
  for (const stage of [...t.stages].reverse()) {
    const table = stage.tables.find((x) => x.status === "active" && x.players.some((p) => p.id === app.me?.id));
    const where = t.format === "sit_and_go" ? "Your table is playing." : stage.final ? "You are at the final table." : `Your table in stage ${stage.number} is playing.`;
    if (table) return h("p", { class: "your-table" }, h("strong", {}, `${where} `),
      h("a", { href: `#/match/${table.match_id}`, class: "button small", testid: "tournament-play" }, "Go to your table"));
  }
  return null;
}

function heading(t, redraw) {
  return h("section", { class: "card" },
    h("h1", {}, t.name, h("span", { class: `tag status-${t.status}`, testid: "tournament-status" }, STATUS_TEXT[t.status] || t.status)),
    h("p", { class: "muted" }, `${formatText(t)} · ${rulesetName(t.ruleset)} · ${turnText(t.turn_seconds)} a turn · ${entryText(t)}`,
      t.fee ? ` (the fee goes to the house)` : "", t.rated ? " · rated" : "", t.bots_allowed ? " · bots may enter" : "",
      ` · by ${t.created_by.username}`),
    t.status === "registering"
      ? h("div", { class: "row register-row" },
          h("span", {}, `${t.entrant_count} of ${t.max_entrants} registered`,
            t.format === "knockout" ? ` (at least ${t.min_entrants})` : "", ` · ${startText(t)}.`),
          registerButton(t, isMine(t), redraw))
      : null,
    t.status === "cancelled" ? h("p", { class: "error" }, `Cancelled: ${t.cancel_reason}. Every entry was refunded.`) : null,
    t.status === "finished" && t.standings[0] ? h("p", {}, h("strong", {}, `Won by ${t.standings[0].player.username}.`)) : null,
    t.status === "running" ? yourTable(t) : null);
}

export async function renderTournament(root, tournamentId) {
  const first = await api(`tournaments/${tournamentId}/`);
  let shown = -1;
  const draw = (t) => {
    if (t.version === shown) return;
    shown = t.version;
    replace(root, h("div", { class: "tournament", testid: "tournament", dataset: { tournamentId: t.id, status: t.status } },
      heading(t, draw), h("div", { class: "columns tournament-columns" }, standingsTable(t), payoutTable(t.payout)), bracket(t)));
  };
  draw(first);
  if (first.status === "finished" || first.status === "cancelled") return;
  const follow = followTournament(tournamentId, draw);
  onLeave(follow.stop);
}
