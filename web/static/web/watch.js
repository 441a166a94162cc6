// Watching: the lobby's list of public matches in play, narrowed by preset, table size
// and stakes, each a link to its table; and what the table says to someone watching.
// A spectator reads the same API as a player and is sent no die still hidden.

import { api } from "./api.js";
import { app, errorText, onLeave } from "./app.js";
import { field, h, replace, select } from "./dom.js";
import { loadRulesets, rulesetName } from "./rules-form.js";

const REFRESH_MS = 8000;
// Stakes choice -> the list's buy-in filters.
const STAKES = {
  any: {},
  none: { buy_in_max: 0 },
  low: { buy_in_min: 1, buy_in_max: 100 },
  high: { buy_in_min: 101 },
};

function watchLine(m) {
  const names = m.players.map((p) => p.username).join(", ");
  return h(
    "li", { class: "match-line", dataset: { matchId: m.id } },
    h("span", {}, h("strong", {}, `#${m.id} ${rulesetName(m.ruleset)}`),
      h("span", { class: "muted" }, ` · ${names}`, m.buy_in ? ` · buy-in ${m.buy_in}, ante ${m.ante}` : " · no chips")),
    h("a", { href: `#/match/${m.id}`, class: "button small", testid: "watch-match", "aria-label": `Watch match #${m.id}` }, "Watch"),
  );
}

// The lobby's "Watch a match" card; it refreshes itself while the lobby is shown.
export async function watchCard() {
  const rulesets = await loadRulesets();
  const preset = select({ name: "ruleset", testid: "watch-ruleset" },
    [["", "any rules"], ...rulesets.map((r) => [r.name, rulesetName(r.name)])], "");
  const players = select({ name: "players", testid: "watch-players" },
    [["", "any"], ...[2, 3, 4, 5, 6, 7, 8].map((n) => [n, `${n} players`])], "");
  const stakes = select({ name: "stakes", testid: "watch-stakes" },
    [["any", "any"], ["none", "no chips"], ["low", "1 to 100"], ["high", "over 100"]], "any");
  const list = h("div", { testid: "watch-list", "aria-live": "off" }, h("p", {}, "Loading…"));
  const load = async () => {
    const query = new URLSearchParams({ status: "active", page_size: "20", ...STAKES[stakes.value] });
    if (preset.value) query.set("ruleset", preset.value);
    if (players.value) query.set("players", players.value);
    try {
      const page = await api(`matches/?${query}`);
      const others = page.results.filter((m) => !m.players.some((p) => p.id === app.me?.id));
      replace(list, others.length
        ? h("ul", { class: "plain" }, others.map(watchLine))
        : h("p", { class: "muted" }, "No match in play with these settings right now."));
    } catch (error) {
      replace(list, h("p", { class: "error" }, errorText(error)));
    }
  };
  for (const control of [preset, players, stakes]) control.addEventListener("change", load);
  load();
  const timer = setInterval(load, REFRESH_MS);
  onLeave(() => clearInterval(timer));
  return h("section", { class: "card", "aria-labelledby": "watch-title" },
    h("h2", { id: "watch-title" }, "Watch a match"),
    h("form", { class: "row settings watch-filters", "aria-label": "Filter the matches in play", onsubmit: (e) => e.preventDefault() },
      field("Rules", preset), field("Players", players), field("Stakes", stakes)),
    list);
}

// At a table: marks the page as a spectator's (no seat) while the match is not open,
// and says what watching means. Returns the note for the match's heading, or null.
export function spectatorNote(root, m) {
  const watching = (m.your_seat === null || m.your_seat === undefined) && m.status !== "open";
  root.dataset.watching = String(watching);
  if (!watching) return null;
  return h("p", { class: "watching", testid: "watching" },
    h("strong", {}, "Watching. "),
    m.status === "active"
      ? "You see what every player sees of the others: no hidden die. Only the players talk at the table."
      : "Only the players talk at the table.");
}
