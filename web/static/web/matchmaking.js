// Finding an opponent from the lobby: challenges to named players (sent, received,
// answered) and quick play (a seek the server pairs). Both follow the account stream:
// a challenge arriving or answered, a seek paired, each shows without a reload, and a
// match that starts takes its players to the table.

import { api } from "./api.js";
import { app, errorText, flash, go } from "./app.js";
import { field, h, replace } from "./dom.js";
import { playerSuggestions } from "./player-search.js";
import { TURN_TIMES, loadRulesets, optionControls, rulesetName, rulesetSelect, turnAndStakes } from "./rules-form.js";

// The pending challenges and the waiting seek, as last read.
const state = { incoming: [], outgoing: [], seek: null };

const turnText = (seconds) => TURN_TIMES.find(([s]) => s === seconds)?.[1] ?? `${seconds} s`;

function termsText(x) {
  const stakes = x.buy_in ? `buy-in ${x.buy_in}, ante ${x.ante}` : "no chips";
  return `${rulesetName(x.ruleset)} · ${turnText(x.turn_seconds)} a turn · ${stakes}`;
}

export async function refreshMatchmaking() {
  const before = { seek: state.seek, outgoing: state.outgoing.map((c) => c.id) };
  const [incoming, outgoing, seeks] = await Promise.all([
    api("challenges/?direction=incoming&status=pending&page_size=50"),
    api("challenges/?direction=outgoing&status=pending&page_size=50"),
    api("seeks/?status=waiting&page_size=1"),
  ]);
  state.incoming = incoming.results;
  state.outgoing = outgoing.results;
  state.seek = seeks.results[0] || null;
  renderChallengeLists();
  renderQuickPlayState();
  // Paired or accepted while no stream told us (a server without one, or a reconnect).
  if (before.seek && !state.seek) {
    const seek = await api(`seeks/${before.seek.id}/`);
    if (seek.match_id) landAt(seek.match_id, "Opponent found: the match has started.");
  }
  const gone = before.outgoing.filter((id) => !state.outgoing.some((c) => c.id === id));
  if (gone.length) {
    const accepted = await api("challenges/?direction=outgoing&status=accepted&page_size=10");
    const started = accepted.results.find((c) => gone.includes(c.id) && c.match_id);
    if (started) landAt(started.match_id, "Challenge accepted: the match has started.");
  }
}

const inLobby = () => location.hash === "" || location.hash === "#/" || location.hash === "#";

// A match of ours started (a challenge accepted, a seek paired, a tournament's table):
// go to its table, unless another match's table is on screen (then say so, with a link).
export function landAt(matchId, why) {
  const target = `#/match/${matchId}`;
  if (location.hash === target) return;
  if (/^#\/match\/\d+$/.test(location.hash)) {
    flash(h("span", {}, `${why} `, h("a", { href: target }, `Go to match #${matchId}`)));
    return;
  }
  flash(why);
  go(target);
}

let refreshTimer = null;
const refreshSoon = () => {
  clearTimeout(refreshTimer);
  refreshTimer = setTimeout(() => refreshMatchmaking().catch(() => {}), 150);
};

// An account event about challenges or quick play.
export function matchmakingEvent(event) {
  const data = event.data || {};
  switch (event.type) {
    case "challenge_received": {
      const text = `${data.challenger} challenges you: ${termsText(data)}.`;
      flash(inLobby() ? text : h("span", {}, `${text} `, h("a", { href: "#/" }, "Answer in the lobby")));
      refreshSoon();
      break;
    }
    case "challenge_accepted":
      refreshSoon();
      landAt(data.match_id, "Challenge accepted: the match has started.");
      break;
    case "challenge_declined":
    case "challenge_cancelled":
    case "challenge_expired":
      if (state.outgoing.some((c) => c.id === data.challenge_id)) {
        flash(`Your challenge #${data.challenge_id} was ${event.type.slice("challenge_".length)}.`);
      }
      refreshSoon();
      break;
    case "seek_matched":
      state.seek = null;
      renderQuickPlayState();
      landAt(data.match_id, "Opponent found: the match has started.");
      break;
    default:
  }
}

// --- challenges ------------------------------------------------------------------------

async function answer(challenge, verb) {
  try {
    const result = await api(`challenges/${challenge.id}/${verb}/`, { method: "POST", body: {} });
    if (result.match_id) return go(`#/match/${result.match_id}`);
    if (verb === "accept") flash("Accepted: the match starts when everyone challenged has accepted.");
  } catch (error) {
    flash(errorText(error), "error");
  }
  refreshSoon();
}

function incomingLine(c) {
  const mine = c.players.find((p) => p.player.id === app.me.id);
  const others = c.players.filter((p) => p.player.id !== app.me.id).map((p) => p.player.username);
  const who = `${c.challenger.username} challenges you${others.length ? ` and ${others.join(", ")}` : ""}`;
  const answered = mine && mine.response !== "pending";
  return h(
    "li", { class: "match-line", dataset: { challengeId: c.id } },
    h("span", {}, h("strong", {}, who), h("span", { class: "muted" }, ` · ${termsText(c)}`)),
    answered
      ? h("span", { class: "muted" }, `you ${mine.response}; waiting for the others`)
      : h("span", { class: "buttons" },
          h("button", {
            type: "button", class: "small", testid: "challenge-accept",
            "aria-label": `Accept ${c.challenger.username}'s challenge`, onclick: () => answer(c, "accept"),
          }, "Accept"),
          h("button", {
            type: "button", class: "small danger", testid: "challenge-decline",
            "aria-label": `Decline ${c.challenger.username}'s challenge`, onclick: () => answer(c, "decline"),
          }, "Decline")),
  );
}

function outgoingLine(c) {
  const names = c.players.map((p) => `${p.player.username}${p.response === "pending" ? "" : ` (${p.response})`}`);
  return h(
    "li", { class: "match-line", dataset: { challengeId: c.id } },
    h("span", {}, h("strong", {}, `You challenge ${names.join(", ")}`), h("span", { class: "muted" }, ` · ${termsText(c)}`)),
    h("button", {
      type: "button", class: "small", testid: "challenge-cancel",
      "aria-label": `Cancel your challenge to ${c.players.map((p) => p.player.username).join(", ")}`,
      onclick: () => answer(c, "cancel"),
    }, "Cancel"),
  );
}

function renderChallengeLists() {
  const box = document.getElementById("challenge-lists");
  if (!box) return;
  const list = (title, items, line, testid) => h("div", { testid },
    h("h3", {}, title),
    items.length ? h("ul", { class: "plain" }, items.map(line)) : h("p", { class: "muted" }, "None."));
  replace(
    box,
    list("Received", state.incoming, incomingLine, "challenges-received"),
    list("Sent", state.outgoing, outgoingLine, "challenges-sent"),
  );
}

export async function challengeCard() {
  await loadRulesets();
  const usernames = h("input", {
    name: "usernames", required: true, autocomplete: "off", maxlength: 1200, testid: "challenge-username",
  });
  const ruleset = rulesetSelect({ name: "ruleset", testid: "challenge-ruleset" });
  const options = optionControls(ruleset);
  const settings = turnAndStakes({ testid: "challenge" });
  const onsubmit = async (event) => {
    event.preventDefault();
    const names = usernames.value.split(/[\s,]+/).filter(Boolean);
    const body = { usernames: names, ruleset: ruleset.value, options: options.read(), ...settings.read() };
    try {
      await api("challenges/", { method: "POST", body });
      flash(`Challenge sent to ${names.join(", ")}.`);
      usernames.value = "";
    } catch (error) {
      flash(errorText(error), "error");
    }
    refreshSoon();
  };
  return h(
    "section", { class: "card", "aria-labelledby": "challenges-title" },
    h("h2", { id: "challenges-title" }, "Challenges"),
    h("div", { id: "challenge-lists" }, h("p", {}, "Loading…")),
    h("form", { class: "challenge", onsubmit, "aria-label": "Challenge a player" },
      h("h3", {}, "Challenge a player"),
      field("Player", usernames, "Type the start of a name to find them; several separated by commas (up to 7)."),
      playerSuggestions(usernames),
      field("Rules", ruleset),
      h("details", {}, h("summary", {}, "Rule options"), options.box),
      h("div", { class: "row settings" }, settings.turn, settings.buyIn, settings.ante),
      h("button", { type: "submit", testid: "challenge-send" }, "Send challenge"),
    ),
  );
}

// --- quick play ------------------------------------------------------------------------

function renderQuickPlayState() {
  const form = document.getElementById("quick-play-form");
  const waiting = document.getElementById("quick-play-waiting");
  if (!form || !waiting) return;
  // Keyboard users keep their place: the focus moves to the part that replaces the other.
  const hadFocus = form.contains(document.activeElement) || waiting.contains(document.activeElement);
  form.hidden = Boolean(state.seek);
  waiting.hidden = !state.seek;
  replace(waiting, state.seek
    ? [
        h("p", { class: "searching", role: "status", testid: "quick-play-waiting" },
          "Looking for an opponent… ", h("span", { class: "muted" }, termsText(state.seek))),
        h("button", {
          type: "button", class: "small", testid: "quick-play-cancel",
          "aria-label": "Cancel: stop looking for an opponent", onclick: cancelSeek,
        }, "Cancel"),
      ]
    : null);
  if (hadFocus) (state.seek ? waiting : form).querySelector("button").focus();
}

async function cancelSeek() {
  const seek = state.seek;
  if (!seek) return;
  try {
    await api(`seeks/${seek.id}/`, { method: "DELETE" });
    flash("Stopped looking for an opponent.");
  } catch (error) {
    // 409 seek_closed: paired meanwhile (the seek_matched event takes us to the table).
    flash(errorText(error), "error");
  }
  refreshSoon();
}

export async function quickPlayCard() {
  await loadRulesets();
  const ruleset = rulesetSelect({ name: "ruleset", testid: "quick-play-ruleset" });
  const settings = turnAndStakes({ testid: "quick-play" });
  const onsubmit = async (event) => {
    event.preventDefault();
    const body = { ruleset: ruleset.value, players: 2, ...settings.read() };
    try {
      const seek = await api("seeks/", { method: "POST", body });
      if (seek.match_id) return landAt(seek.match_id, "Opponent found: the match has started.");
      state.seek = seek;
      renderQuickPlayState();
    } catch (error) {
      flash(errorText(error), "error");
    }
  };
  return h(
    "section", { class: "card", "aria-labelledby": "quick-play-title" },
    h("h2", { id: "quick-play-title" }, "Quick play"),
    h("form", { id: "quick-play-form", onsubmit, "aria-label": "Quick play" },
      h("p", { class: "muted" }, "Play the next person who asks for the same rules, turn time and stakes."),
      field("Rules", ruleset),
      h("div", { class: "row settings" }, settings.turn, settings.buyIn, settings.ante),
      h("button", { type: "submit", testid: "quick-play" }, "Find an opponent"),
    ),
    h("div", { id: "quick-play-waiting", class: "buttons", hidden: true }),
  );
}
