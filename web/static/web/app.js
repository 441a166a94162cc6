// The play page: a small router over views built only on the public API.

import { api, ApiError, session } from "./api.js";
import { botLevelPicker, loadBotLevels } from "./bots.js";
import { field, h, replace, select } from "./dom.js";
import { followAccount } from "./live.js";
import { challengeCard, matchmakingEvent, quickPlayCard, refreshMatchmaking } from "./matchmaking.js";
import { markTurns, noticeSettings } from "./notices.js";
import { loadRulesets, optionControls, rulesetSelect, turnAndStakes } from "./rules-form.js";
import { loadRulesHelp, presetTitle, renderRulesPage, rulesCard } from "./rules-help.js";
import { ratingText } from "./result.js";
import { renderMatch, renderReplay } from "./table.js";
import { renderTournament, tournamentEvent, tournamentsCard } from "./tournaments.js";
import { watchCard } from "./watch.js";

const view = document.getElementById("view");
const nav = document.getElementById("nav");
const flashBox = document.getElementById("flash");

export const app = { me: null, cleanup: [], yourTurn: new Map(), myMatches: [] };
let account = null;

// A message for a moment; an error, or one with a link to follow, stays until the next.
export function flash(message, kind = "info") {
  const box = message ? h("p", { class: `flash ${kind}` }, message) : null;
  replace(flashBox, box);
  if (box && kind !== "error" && typeof message === "string") {
    setTimeout(() => box.isConnected && replace(flashBox), 4000);
  }
}

export function errorText(error) {
  if (!(error instanceof ApiError)) return `Network problem: ${error.message}`;
  // A validation problem's detail already names each field's problem (its `errors`).
  return error.message;
}

export function go(hash) {
  if (location.hash === hash) route();
  else location.hash = hash;
}

export function onLeave(fn) {
  app.cleanup.push(fn);
}

async function route() {
  for (const fn of app.cleanup.splice(0)) fn();
  const parts = location.hash.replace(/^#\/?/, "").split("/").filter(Boolean);
  // The rules are for everyone, logged in or not.
  if (parts[0] === "rules" && !session.token) return renderRulesPage(view, parts[1], await loadRulesets());
  if (!session.token) {
    app.me = null;
    account?.stop();
    account = null;
    renderNav();
    return renderAuth();
  }
  if (!app.me) {
    try {
      app.me = await api("me/");
    } catch (error) {
      session.clear();
      flash(errorText(error), "error");
      return route();
    }
  }
  if (!account) {
    account = followAccount({
      onEvent: onAccountEvent,
      onConnect: refreshAccountState,
      onMode: (mode) => (document.body.dataset.accountLive = mode),
      poll: () => Promise.all([refreshMyMatches(), refreshMatchmaking()]),
    });
  }
  renderNav();
  await loadRulesHelp(); // once: every view names presets and options in plain words
  try {
    if (parts[0] === "rules") return await renderRulesPage(view, parts[1], await loadRulesets());
    if (parts[0] === "match" && parts[2] === "replay") return await renderReplay(view, Number(parts[1]), Number(parts[3]) || null);
    if (parts[0] === "match") return await renderMatch(view, Number(parts[1]));
    if (parts[0] === "tournament") return await renderTournament(view, Number(parts[1]));
    if (parts[0] === "profile") return await renderProfile(parts[1] ? decodeURIComponent(parts[1]) : app.me.username);
    return await renderLobby();
  } catch (error) {
    replace(view, h("p", { class: "error" }, errorText(error)));
  }
}

export async function refreshMe() {
  app.me = await api("me/");
  renderNav();
}

function renderNav() {
  markTurns(app.me ? [...app.yourTurn].filter(([, mine]) => mine).map(([id]) => id) : []);
  if (!app.me) return replace(nav);
  const waiting = [...app.yourTurn.values()].filter(Boolean).length;
  replace(
    nav,
    h("a", { href: "#/" }, "Lobby", waiting ? h("span", { class: "badge", title: "matches waiting for you" }, waiting) : null),
    h("a", { href: "#/profile" }, "Profile"),
    h("span", { class: "who" }, `${app.me.username} · ${app.me.chips} chips`),
    h("button", { type: "button", class: "link", onclick: logout }, "Log out"),
  );
}

async function logout() {
  try {
    await api("auth/token/", { method: "DELETE" });
  } catch {
    // The token is dropped here whatever the server said.
  }
  session.clear();
  app.yourTurn.clear();
  go("#/");
}

window.addEventListener("liarsdice:logged-out", () => {
  flash("Your session ended: please log in again.", "error");
  route();
});

// --- sign up / log in ----------------------------------------------------------------

function renderAuth() {
  const authForm = (title, kind, submitText) => {
    const username = h("input", { name: "username", autocomplete: "username", required: true, maxlength: 150, testid: `${kind}-username` });
    const password = h("input", {
      type: "password", name: "password", required: true, testid: `${kind}-password`,
      autocomplete: kind === "signup" ? "new-password" : "current-password",
    });
    const onsubmit = async (event) => {
      event.preventDefault();
      const body = { username: username.value.trim(), password: password.value };
      // The page's own token name: logging in here replaces only the page's last token.
      if (kind !== "signup") body.name = "play page";
      try {
        const answer = await api(kind === "signup" ? "auth/register/" : "auth/token/", { method: "POST", body });
        session.save(answer.token);
        app.me = null;
        flash(kind === "signup" ? `Welcome, ${body.username}!` : "");
        go("#/");
      } catch (error) {
        flash(errorText(error), "error");
      }
    };
    return h(
      "form", { class: "card auth", onsubmit, "aria-label": title },
      h("h2", {}, title),
      field("Username", username),
      field("Password", password, kind === "signup" ? "At least 8 characters, not too common." : null),
      h("button", { type: "submit", testid: `${kind}-submit` }, submitText),
    );
  };
  replace(
    view,
    h("section", { class: "intro" }, h("h1", {}, "Liar's Dice"),
      h("p", {}, "Bid on dice nobody can see, call liar, and check afterwards that the server never changed a die."),
      h("p", {}, h("a", { href: "#/rules", testid: "rules-link" }, "How to play"))),
    h("div", { class: "columns" }, authForm("Sign up", "signup", "Create account"), authForm("Log in", "login", "Log in")),
  );
}

// --- account-wide: my matches and "your turn" ----------------------------------------

// What the account stream does not replay: read when it (re)connects.
function refreshAccountState() {
  refreshMyMatches().catch(() => {});
  refreshMatchmaking().catch(() => {});
}

let refreshTimer = null;
function onAccountEvent(event) {
  if (event.type.startsWith("challenge_") || event.type.startsWith("seek_")) return matchmakingEvent(event);
  if (event.type.startsWith("tournament_")) tournamentEvent(event);
  if (event.type === "your_turn" && event.data?.match_id) app.yourTurn.set(Number(event.data.match_id), true);
  renderNav();
  clearTimeout(refreshTimer);
  refreshTimer = setTimeout(refreshMyMatches, 300);
}

export async function refreshMyMatches() {
  const [active, open] = await Promise.all([
    api("matches/?mine=true&status=active&page_size=50"),
    api("matches/?mine=true&status=open&page_size=50"),
  ]);
  app.myMatches = [...active.results, ...open.results];
  const details = await Promise.all(active.results.slice(0, 20).map((m) => api(`matches/${m.id}/`).catch(() => null)));
  app.yourTurn.clear();
  for (const m of details.filter(Boolean)) {
    app.yourTurn.set(m.id, m.legal_actions.length > 0 && m.round?.turn_seat === m.your_seat);
  }
  renderNav();
  renderMyMatches();
}

export function setYourTurn(matchId, value) {
  if (app.yourTurn.get(matchId) === value) return;
  app.yourTurn.set(matchId, value);
  renderNav();
  renderMyMatches();
}

function matchLine(m, actions) {
  const others = m.players.filter((p) => p.id !== app.me?.id).map((p) => p.username);
  return h(
    "li", { class: "match-line", dataset: { matchId: m.id } },
    h("a", { href: `#/match/${m.id}` }, `#${m.id} ${presetTitle(m.ruleset)}`),
    h("span", { class: "muted" }, ` ${m.status} · ${m.players.length}/${m.max_players} seats`,
      others.length ? ` · with ${others.join(", ")}` : "",
      m.buy_in ? ` · buy-in ${m.buy_in}` : ""),
    app.yourTurn.get(m.id) ? h("span", { class: "your-turn", testid: "your-turn-mark" }, "Your turn") : null,
    actions,
  );
}

function renderMyMatches() {
  const box = document.getElementById("my-matches");
  if (!box) return;
  replace(
    box,
    app.myMatches.length
      ? h("ul", { class: "plain" }, app.myMatches.map((m) => matchLine(m)))
      : h("p", { class: "muted" }, "No matches yet: play quickly, challenge someone, create a match, or join an open one."),
  );
}

// --- lobby ---------------------------------------------------------------------------

async function renderLobby() {
  const openBox = h("div", { id: "open-matches" }, h("p", {}, "Loading…"));
  const [quickPlay, challenges, create, watch] = await Promise.all([quickPlayCard(), challengeCard(), createForm(), watchCard()]);
  quickPlay.classList.add("quick-play");
  replace(
    view,
    h("h1", { class: "sr-only" }, "Lobby"),
    h("div", { class: "columns lobby" },
      h("div", { class: "lobby-side" },
        quickPlay,
        h("section", { class: "card" }, h("h2", {}, "My matches"), h("div", { id: "my-matches" }, h("p", {}, "Loading…")), noticeSettings()),
        tournamentsCard(),
        challenges,
        h("section", { class: "card" }, h("h2", {}, "Open matches"), openBox),
        watch,
        rulesCard(),
      ),
      h("section", { class: "card create-card" }, h("h2", {}, "Create a match: play bots or people"), create),
    ),
  );
  renderMyMatches();
  refreshAccountState();
  const loadOpen = async () => {
    const page = await api("matches/?status=open&page_size=50");
    const joinable = page.results.filter((m) => !m.players.some((p) => p.id === app.me.id));
    replace(
      openBox,
      joinable.length
        ? h("ul", { class: "plain" }, joinable.map((m) =>
            matchLine(m, h("button", { type: "button", class: "small", testid: "join-match", onclick: () => join(m.id) }, "Join"))))
        : h("p", { class: "muted" }, "No open matches right now."),
    );
  };
  await loadOpen();
  const timer = setInterval(() => loadOpen().catch(() => {}), 5000);
  onLeave(() => clearInterval(timer));
}

async function join(matchId) {
  try {
    await api(`matches/${matchId}/join/`, { method: "POST", body: {} });
    go(`#/match/${matchId}`);
  } catch (error) {
    flash(errorText(error), "error");
  }
}

async function createForm() {
  await Promise.all([loadRulesets(), loadBotLevels()]);
  const ruleset = rulesetSelect({ testid: "ruleset-select", name: "ruleset" });
  const options = optionControls(ruleset);
  const settings = turnAndStakes();
  const maxPlayers = h("input", { type: "number", name: "max_players", min: 2, max: 8, value: 2, required: true });
  const onTimeout = select({ name: "on_timeout" }, [
    ["auto", "a medium bot plays for them"], ["challenge", "the bid is challenged"], ["forfeit", "they are out"],
  ], "auto");
  const isPrivate = h("input", { type: "checkbox", name: "private" });
  const bots = h("ul", { class: "plain bots", "aria-label": "Bots" });
  const pickers = [];
  const staked = () => settings.read().buy_in > 0;
  const addBot = () => {
    const level = botLevelPicker({ staked: staked() });
    pickers.push(level);
    const row = h("li", { class: "bot-row" },
      h("div", { class: "buttons" }, level.choice,
        h("button", { type: "button", class: "small", onclick: () => row.remove(), "aria-label": "Remove this bot" }, "Remove")),
      level.note);
    bots.append(row);
    maxPlayers.value = Math.max(Number(maxPlayers.value), bots.children.length + 1);
  };
  const onsubmit = async (event) => {
    event.preventDefault();
    const body = {
      ruleset: ruleset.value, options: options.read(), max_players: Number(maxPlayers.value),
      ...settings.read(), private: isPrivate.checked, on_timeout: onTimeout.value,
      bots: [...bots.querySelectorAll("select.bot-level")].map((s) => ({ strategy: s.value })),
    };
    try {
      const match = await api("matches/", { method: "POST", body });
      go(`#/match/${match.id}`);
    } catch (error) {
      flash(errorText(error), "error");
    }
  };
  return h(
    "form", {
      class: "create", onsubmit, "aria-label": "Create a match",
      // A buy-in leaves only the bots the house stakes to pick.
      oninput: () => pickers.forEach((picker) => picker.staked(staked())),
    },
    field("Rules", ruleset),
    options.box,
    h("div", { class: "row" }, field("Seats", maxPlayers), settings.turn),
    field("When a player runs out of time", onTimeout),
    h("div", { class: "row" }, settings.buyIn, settings.ante),
    h("div", { class: "field check" }, h("label", {}, isPrivate, " private (invite code only)")),
    h("div", { class: "field" }, h("span", { class: "label" }, "Bots"), bots,
      h("button", { type: "button", class: "small", testid: "add-bot", onclick: addBot }, "Add a bot")),
    h("button", { type: "submit", testid: "create-match" }, "Create match"),
  );
}

// --- profile -------------------------------------------------------------------------

async function renderProfile(username) {
  const mine = username === app.me.username;
  const [player, finished, ledger] = await Promise.all([
    api(`players/${encodeURIComponent(username)}/`),
    mine ? api("matches/?mine=true&status=finished&page_size=30") : null,
    mine ? api("me/transactions/") : null,
  ]);
  if (mine) await refreshMe();
  const stat = (label, value) => h("div", { class: "stat" }, h("span", { class: "label" }, label), h("strong", {}, value));
  const entries = ledger?.results || [];
  replace(
    view,
    h("section", { class: "card" },
      h("h1", {}, player.username, player.is_bot ? h("span", { class: "tag" }, "bot") : null),
      h("div", { class: "stats" },
        mine ? stat("Chips", app.me.chips) : null,
        stat("Rating", ratingText(player.rating_shown)),
        stat("Games played", player.games_played),
        stat("Games won", player.games_won),
      ),
      Object.keys(player.ratings).length
        ? h("p", { class: "muted", testid: "preset-ratings" }, "By rules: ", Object.entries(player.ratings)
            .map(([preset, r]) => `${preset.replaceAll("_", " ")} ${ratingText(r.shown)} (${r.games} rated)`).join(" · "))
        : null,
    ),
    mine ? h("section", { class: "card" }, h("h2", {}, "Finished matches"),
      finished.results.length
        ? h("ul", { class: "plain" }, finished.results.map((m) => matchLine(m, h("a", { href: `#/match/${m.id}/replay`, class: "button small" }, "Replay"))))
        : h("p", { class: "muted" }, "None yet.")) : null,
    mine ? h("section", { class: "card" }, h("h2", {}, "Chip history"),
      entries.length
        ? h("table", { class: "ledger" },
            h("thead", {}, h("tr", {}, h("th", {}, "When"), h("th", {}, "What"), h("th", { class: "num" }, "Chips"))),
            h("tbody", {}, entries.map((t) => h("tr", {},
              h("td", {}, new Date(t.created_at).toLocaleString()),
              h("td", {}, t.kind.replaceAll("_", " "), t.match_id ? ` · match #${t.match_id}` : ""),
              h("td", { class: "num" }, t.amount > 0 ? `+${t.amount}` : t.amount)))))
        : h("p", { class: "muted" }, "No transactions.")) : null,
  );
}

window.addEventListener("hashchange", route);
route();
