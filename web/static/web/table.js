// A match: the open table (seats, bots, start), the game table (dice, seats, bid,
// actions, turn clock, controls for `legal_actions` only, the ended rounds: rounds.js),
// table chat, and the round-by-round replay.

import { api, ApiError } from "./api.js";
import { app, errorText, flash, go, onLeave, refreshMe, setYourTurn } from "./app.js";
import { botLevelPicker, loadBotLevels } from "./bots.js";
import { field, h, replace, select } from "./dom.js";
import { abortText, actionText, bidText, clock, diceRow, die, faceName, handOrder, handText, RANKS, verb } from "./format.js";
import { followMatch } from "./live.js";
import { announceTable, LOW_TIME_SECONDS, lowTimeWarning, noticeSettings } from "./notices.js";
import { resultScreen } from "./result.js";
import { roundDetails, roundsOnTable } from "./rounds.js";
import { handsList, presetTitle, rulesHelpButton } from "./rules-help.js";
import { spectatorNote } from "./watch.js";

const CHAT_POLL_MS = 5000;

const byType = (legal) => Object.fromEntries(legal.map((a) => [a.type, a]));
const namer = (match) => (seat) => {
  const entry = match.seats.find((s) => s.seat === seat);
  if (!entry) return seat === undefined || seat === null ? "?" : `seat ${seat}`;
  return entry.seat === match.your_seat ? "you" : entry.player.username;
};

// A finished match's winners are no longer "playing": they won.
function seatStatus(m, seat) {
  return m.status === "finished" && m.winner_seats.includes(seat.seat) ? "won" : seat.status;
}

export async function renderMatch(root, matchId) {
  const table = { match: await api(`matches/${matchId}/`), rounds: null, controlsVersion: null };
  if (table.match.status === "open") await loadBotLevels();
  const parts = {
    head: h("div", { class: "match-head" }),
    live: h("span", { class: "live muted", "aria-live": "off" }),
    body: h("div", { class: "table-body" }),
    rounds: roundsOnTable(),
    chat: chatPanel(matchId),
  };
  const seated = table.match.your_seat !== null && table.match.your_seat !== undefined;
  replace(root, parts.head, parts.body, parts.chat.el, seated ? noticeSettings() : null);

  // Answers can arrive out of order (a refresh sent before a move may come back after
  // the move's own answer): an older version of the match never replaces a newer one.
  const show = (view) => {
    if (view.version < table.match.version) return;
    table.match = view;
    draw();
  };
  // One refresh at a time; events arriving meanwhile ask for one more after it.
  let refreshing = null;
  let refreshAgain = false;
  const refresh = async () => {
    if (refreshing) {
      refreshAgain = true;
      return refreshing;
    }
    refreshing = (async () => {
      try {
        do {
          refreshAgain = false;
          show(await api(`matches/${matchId}/`));
        } while (refreshAgain);
      } finally {
        refreshing = null;
      }
    })();
    return refreshing;
  };
  const loadRounds = async () => {
    table.rounds = await api(`matches/${matchId}/rounds/`);
    await parts.rounds.draw(table.match, table.rounds.rounds, namer(table.match));
  };
  const act = async (action) => {
    try {
      show(await api(`matches/${matchId}/actions/`, {
        method: "POST", body: { ...action, expected_version: table.match.version },
      }));
    } catch (error) {
      flash(errorText(error), "error");
      if (error instanceof ApiError && error.code === "stale_version") await refresh();
    }
  };
  const lobbyAct = async (path, body = {}) => {
    try {
      show(await api(`matches/${matchId}/${path}`, { method: "POST", body }));
    } catch (error) {
      flash(errorText(error), "error");
    }
  };

  // A new round, or the end, means a round just finished: its result is fetched.
  let roundKey = null;
  function draw() {
    const m = table.match;
    const key = `${m.status}:${m.round?.number ?? ""}`;
    if (roundKey !== null && key !== roundKey && m.status !== "open") loadRounds().catch(() => {});
    const mine = m.your_seat !== null && m.your_seat !== undefined;
    // The end pays out (and a start takes the buy-in): the chips in the bar follow, whichever
    // way the new status arrived (a move's own answer or the stream).
    if (mine && roundKey !== null && !roundKey.startsWith(`${m.status}:`)) refreshMe().catch(() => {});
    roundKey = key;
    setYourTurn(m.id, mine && m.legal_actions.length > 0);
    replace(parts.head,
      h("h1", {}, `Match #${m.id} · ${presetTitle(m.ruleset)}`),
      h("p", { class: "muted" }, `${m.status} · ${m.turn_seconds} s per turn`,
        m.buy_in ? ` · buy-in ${m.buy_in}, ante ${m.ante} (${2 * m.ante} a round)` : " · no chips", " · ", parts.live,
        tableRulesButton(m),
        m.status === "finished" ? h("a", { href: `#/match/${m.id}/replay`, class: "button small" }, "Replay") : null),
      spectatorNote(parts.chat.el, m));
    const name = namer(m);
    const last = m.round?.actions.at(-1);
    announceTable(m, name, last && actionText(last, name));
    if (m.status === "open") {
      table.controlsVersion = null;
      return replace(parts.body, openTable(m, lobbyAct));
    }
    const sameControls = table.controlsVersion === m.version && parts.body.querySelector(".controls");
    const controls = sameControls ? parts.body.querySelector(".controls") : controlsFor(m, act);
    table.controlsVersion = m.version;
    replace(parts.body, m.status === "finished" ? resultScreen(m, { show, refresh }) : null, gameTable(m, controls, parts.rounds));
    tick();
  }

  function tick() {
    const indicator = parts.body.querySelector("[data-testid=turn-indicator]");
    const m = table.match;
    if (!indicator || m.status !== "active" || !m.round) return;
    const left = m.round.turn_deadline ? (Date.parse(m.round.turn_deadline) - Date.now()) / 1000 : null;
    const clockEl = indicator.querySelector(".clock");
    if (clockEl && left !== null) {
      clockEl.textContent = clock(left);
      clockEl.classList.toggle("urgent", left < LOW_TIME_SECONDS);
    }
    lowTimeWarning(indicator, m, left);
  }

  const follower = followMatch(
    matchId,
    table.match.event_seq,
    async (events) => {
      const types = new Set(events.map((e) => e.type));
      if (types.has("chat")) parts.chat.load();
      if ([...types].some((t) => t !== "chat")) await refresh();
      if (types.has("match_finished")) refreshMe().catch(() => {});
    },
    (mode) => (parts.live.textContent = `live: ${mode}`),
  );
  const clockTimer = setInterval(tick, 1000);
  onLeave(() => {
    follower.stop();
    parts.chat.stop();
    clearInterval(clockTimer);
  });
  draw();
  if (table.match.status !== "open") await loadRounds();
}

// The options in force at this table (the preset's, with the creator's changes) and its stakes.
function tableRulesButton(m) {
  const { family, ...options } = m.rules;
  return rulesHelpButton("How this table plays", () => ({
    ruleset: m.ruleset, family, options, stakes: { buyIn: m.buy_in, ante: m.ante },
  }), "table-rules");
}

// --- before the start ----------------------------------------------------------------

function openTable(m, lobbyAct) {
  const creator = m.created_by.id === app.me.id;
  const seated = m.your_seat !== null && m.your_seat !== undefined;
  const seatsFree = creator && m.seats.length < m.max_players;
  const level = seatsFree ? botLevelPicker({ staked: m.buy_in > 0 }) : null;
  return h("section", { class: "card" },
    h("h2", {}, `Waiting for players (${m.seats.length}/${m.max_players})`),
    h("ol", { class: "plain seats-open" }, m.seats.map((s) =>
      h("li", {}, `Seat ${s.seat}: ${s.player.username}`, s.player.is_bot ? h("span", { class: "tag" }, "bot") : null))),
    m.invite_code ? h("p", {}, "Invite code: ", h("code", {}, m.invite_code)) : null,
    seatsFree ? h("div", { class: "bot-row" },
      h("div", { class: "buttons" }, level.choice,
        h("button", { type: "button", testid: "add-bot", onclick: () => lobbyAct("bots/", { strategy: level.choice.value }) }, "Add bot")),
      level.note) : null,
    h("div", { class: "buttons" },
      !seated ? h("button", { type: "button", testid: "join-match", onclick: () => lobbyAct("join/") }, "Join") : null,
      seated && !creator ? h("button", { type: "button", onclick: async () => { await lobbyAct("leave/"); go("#/"); } }, "Leave") : null,
      creator ? h("button", { type: "button", testid: "start-match", disabled: m.seats.length < 2, onclick: () => lobbyAct("start/") }, "Start match") : null,
    ),
    creator ? h("p", { class: "muted" }, "Share this page's match number; the match starts by itself when every seat is taken.") : null,
  );
}

// --- the table -----------------------------------------------------------------------

function gameTable(m, controls, rounds) {
  const name = namer(m);
  const poker = m.family === "poker_dice";
  const round = m.round;
  const yourTurn = m.legal_actions.length > 0;
  let indicator;
  if (m.status === "finished" || m.status === "aborted") {
    const winners = m.winner_seats.map(name).join(" and ");
    indicator = h("div", { class: "turn over", testid: "turn-indicator", dataset: { yourTurn: "false", status: m.status } },
      m.status === "aborted" ? abortText(m, name) : `Match over: ${winners || "nobody"} ${m.winner_seats.length === 1 && winners !== "you" ? "wins" : "win"}.`);
    controls = h("div", { class: "buttons" },
      m.status === "finished" ? h("a", { href: `#/match/${m.id}/replay`, class: "button" }, "Replay round by round") : null,
      h("a", { href: "#/", class: "button" }, "Back to the lobby"));
  } else if (round) {
    indicator = h("div", { class: `turn ${yourTurn ? "mine" : ""}`, testid: "turn-indicator", dataset: { yourTurn: String(yourTurn), status: m.status } },
      yourTurn ? "Your turn" : `${name(round.turn_seat)}'s turn`, round.turn_deadline ? [" · ", h("span", { class: "clock" }, "")] : null);
  }
  const seats = h("ol", { class: "seats plain", "aria-label": "Seats" }, m.seats.map((s) => {
    const shown = round?.shown_dice?.[String(s.seat)] || [];
    return h("li", { class: `seat ${round && round.turn_seat === s.seat && m.status === "active" ? "on-turn" : ""} ${s.status}` },
      h("div", { class: "seat-name" }, s.player.username, s.seat === m.your_seat ? " (you)" : "",
        s.player.is_bot ? h("span", { class: "tag" }, "bot") : null),
      h("div", { class: "seat-stats" },
        poker ? h("span", {}, `${s.lives} ${s.lives === 1 ? "life" : "lives"}`) : h("span", {}, `${s.dice_count} ${s.dice_count === 1 ? "die" : "dice"}`),
        m.aborted && m.buy_in ? h("span", {}, `${m.aborted.refunds[String(s.seat)] ?? 0} chips back`)
          : m.buy_in ? h("span", {}, `${s.stack} chips`) : null,
        h("span", { class: "status" }, seatStatus(m, s))),
      shown.length ? h("div", { class: "shown" }, "shown: ", diceRow(shown)) : null);
  }));

  let yourDice = null;
  if (round && m.your_seat !== null && m.your_seat !== undefined) {
    const dice = round.your_dice;
    const label = poker ? "The box" : "Your dice";
    // The shelf's note goes on the label's line: the box keeps to two lines on a phone.
    yourDice = h("div", { class: "your-dice", testid: "your-dice", "aria-label": label },
      h("span", { class: "label" }, label,
        poker && round.shelf?.length ? h("small", { class: "muted" }, " (outlined dice stand on the shelf)") : null),
      dice && dice.length
        ? h("span", { class: "dice" }, dice.map((d, i) => die(d, { poker, extra: round.shelf?.includes(i) ? "shelf" : "" })))
        : h("span", { class: "muted" }, poker ? `with ${name(round.turn_seat)}, closed` : "none"),
      poker && round.your_hand ? h("strong", { class: "box-hand", testid: "box-hand" }, round.your_hand) : null);
  }
  const bid = round ? h("div", { class: "bid" }, h("span", { class: "label" }, "Current bid"),
    h("strong", {}, bidText(round.current_bid)), round.current_bid ? ` by ${name(round.current_bid.seat)}` : "",
    poker && round.direction ? h("span", { class: "muted" }, ` · play goes ${round.direction}`) : null,
    round.palifico ? h("span", { class: "muted", testid: "palifico" }, " · palifico: ones not wild, the face stays") : null) : null;
  const pots = round && m.buy_in ? h("div", { class: "muted" }, `Pots: round ${round.pots.round}, game ${round.pots.game}`) : null;
  const actions = round ? h("section", { class: "actions" }, h("h2", {}, `Round ${round.number}`),
    round.actions.length
      ? h("ol", { class: "log" }, round.actions.map((a) => h("li", {}, actionText(a, name))))
        : h("p", { class: "muted" }, `${verb(name(round.opener_seat), "open")} the round.`)) : null;
  return h("section", { class: "card table" }, indicator, rounds.last, h("div", { class: "table-grid" },
    h("div", {}, yourDice, bid, pots, controls),
    h("div", {}, seats, actions)), rounds.history);
}

// --- controls: only what `legal_actions` allows -------------------------------------

function controlsFor(m, act) {
  const legal = byType(m.legal_actions);
  const box = h("div", { class: "controls", role: "group", "aria-label": "Your move" });
  if (!m.legal_actions.length) return box;
  const parts = m.family === "poker_dice" ? pokerControls(m, legal, act) : poolControls(m, legal, act);
  box.append(...parts.filter(Boolean));
  return box;
}

// Checkboxes over dice: pick which to show / hold. `fixed` are checked and locked.
function dicePicker(dice, legend, { poker = false, fixed = [] } = {}) {
  const boxes = dice.map((d, i) => h("input", { type: "checkbox", value: i, checked: fixed.includes(i), disabled: fixed.includes(i), "aria-label": `die ${i + 1} (${d})` }));
  const el = h("fieldset", { class: "picker" }, h("legend", {}, legend),
    dice.map((d, i) => h("label", { class: "pick" }, boxes[i], die(d, { poker }))));
  return { el, chosen: () => boxes.filter((b) => b.checked).map((b) => Number(b.value)) };
}

function poolControls(m, legal, act) {
  const out = [];
  const dice = m.round.your_dice || [];
  const inPlay = m.seats.filter((s) => s.status === "playing").reduce((n, s) => n + (s.dice_count || 0), 0);
  if (legal.bid) {
    const mins = legal.bid.min_quantity_by_face;
    const faces = Object.keys(mins).map(Number).sort((a, b) => a - b);
    const maxFor = (f) => {
      const given = legal.bid.max_quantity;
      if (typeof given === "number") return given;
      if (given && given[String(f)] !== undefined) return given[String(f)];
      return inPlay; // no bid can exceed the dice in play (RULES 1.2)
    };
    const current = m.round.current_bid?.face;
    const startFace = faces.includes(current) ? current : faces.includes(6) ? 6 : faces[0];
    const face = select({ testid: "bid-face", name: "face" }, faces.map((f) => [f, f === 1 && m.rules.ones_wild ? "1s (wild)" : faceName(f)]), startFace);
    const quantity = h("input", { type: "number", name: "quantity", testid: "bid-quantity", inputmode: "numeric", required: true });
    const range = h("small", { class: "muted" });
    const bound = () => {
      const f = Number(face.value);
      quantity.min = mins[f];
      quantity.max = maxFor(f);
      const q = Number(quantity.value);
      if (!q || q < mins[f]) quantity.value = mins[f];
      if (Number(quantity.value) > maxFor(f)) quantity.value = maxFor(f);
      range.textContent = `from ${mins[f]} to ${maxFor(f)}`;
    };
    face.addEventListener("change", bound);
    bound();
    const show = legal.bid.can_show ? dicePicker(dice, `Show up to ${legal.bid.max_show} dice with this raise (the rest are rerolled)`) : null;
    const onsubmit = (event) => {
      event.preventDefault();
      const f = Number(face.value);
      const q = Number(quantity.value);
      if (!(q >= mins[f] && q <= maxFor(f))) return flash(`Bid between ${mins[f]} and ${maxFor(f)} ${faceName(f)}.`, "error");
      const action = { type: "bid", quantity: q, face: f };
      const chosen = show?.chosen() || [];
      if (chosen.length) {
        if (chosen.length > legal.bid.max_show) return flash(`Show at most ${legal.bid.max_show} dice.`, "error");
        action.show = chosen;
      }
      act(action);
    };
    out.push(h("form", { class: "bid-form", onsubmit, "aria-label": "Raise the bid" },
      h("div", { class: "row" }, field("Quantity", quantity, range), field("Face", face)),
      show?.el, h("button", { type: "submit", testid: "bid-submit" }, m.round.current_bid ? "Raise" : "Bid")));
  }
  if (legal.show_reroll) {
    const show = dicePicker(dice, `Show 1 to ${legal.show_reroll.max_show} dice, reroll the rest, then raise`);
    out.push(h("div", { class: "subform" }, show.el, h("button", {
      type: "button", testid: "show-reroll", onclick: () => {
        const chosen = show.chosen();
        if (!chosen.length || chosen.length > legal.show_reroll.max_show) return flash(`Pick 1 to ${legal.show_reroll.max_show} dice to show.`, "error");
        act({ type: "show_reroll", show: chosen });
      },
    }, "Show and reroll")));
  }
  out.push(callButtons(m, legal, act));
  return out;
}

function callButtons(m, legal, act) {
  const name = namer(m);
  const buttons = [];
  if (legal.challenge) {
    const targets = legal.challenge.target_seats || [];
    const target = targets.length > 1 ? select({ "aria-label": "Whom to challenge" }, targets.map((t) => [t, name(t)]), targets[0]) : null;
    buttons.push(target, h("button", {
      type: "button", class: "danger", testid: "challenge",
      onclick: () => act(target ? { type: "challenge", target_seat: Number(target.value) } : { type: "challenge" }),
    }, "Liar! (challenge)"));
  }
  if (legal.accept) buttons.push(h("button", { type: "button", testid: "accept", onclick: () => act({ type: "accept" }) }, "Accept and look"));
  if (legal.exact) buttons.push(h("button", { type: "button", testid: "exact", onclick: () => act({ type: "exact" }) }, "Exact!"));
  if (legal.pass) buttons.push(h("button", { type: "button", testid: "pass", onclick: () => act({ type: "pass" }) }, "Pass"));
  return buttons.length ? h("div", { class: "buttons" }, buttons) : null;
}

function pokerControls(m, legal, act) {
  const out = [];
  const box = m.round.your_dice || [];
  if (legal.bid) {
    const min = legal.bid.min_hand;
    const opening = min[0] === "junk";
    // Opening, the box's own hand is the natural bid; junk stays one choice away.
    const kind = opening ? select({ "aria-label": "Kind of bid" }, [["named", "name a hand"], ["junk", "junk (no claim)"]], "named") : null;
    const start = opening ? handOrder(box) : min;
    const dice = [0, 1, 2, 3, 4].map((i) => select({ "aria-label": `Die ${i + 1}` },
      [["", "any"], ...RANKS.map((r) => [r, r])], start[i] ?? ""));
    const builder = h("div", { class: "hand" }, dice);
    const syncKind = () => builder.classList.toggle("disabled", kind?.value === "junk");
    kind?.addEventListener("change", syncKind);
    syncKind();
    let direction = null;
    const directionBox = legal.bid.needs_direction ? h("fieldset", { class: "direction" }, h("legend", {}, "Direction of play"),
      ["left", "right"].map((d) => h("label", {}, h("input", { type: "radio", name: "direction", value: d, checked: d === "left", onchange: () => (direction = d) }), ` ${d}`))) : null;
    if (directionBox) direction = "left";
    const useMine = box.length === 5 ? h("button", { type: "button", onclick: () => {
      handOrder(box).forEach((r, i) => (dice[i].value = r));
      if (kind) kind.value = "named";
      syncKind();
    } }, "Use the dice in the box") : null;
    const onsubmit = (event) => {
      event.preventDefault();
      const hand = kind?.value === "junk" ? ["junk"] : dice.map((d) => d.value || null);
      act({ type: "bid", hand, ...(direction ? { direction } : {}) });
    };
    out.push(h("form", { class: "bid-form", onsubmit, "aria-label": "Bid a hand" },
      kind ? field("Bid", kind) : null,
      h("div", { class: "field" }, h("span", { class: "label" }, "Hand (high dice first, “any” for an unnamed die)"), builder,
        h("small", { class: "muted" }, `Lowest legal: ${handText(min)}`)),
      directionBox, h("div", { class: "buttons" }, h("button", { type: "submit", testid: "bid-submit" }, "Bid"), useMine),
      h("details", { class: "hands-details" }, h("summary", { testid: "hands-summary" }, "Hands, high to low"), handsList())));
  }
  if (legal.reroll) {
    const fixed = legal.reroll.hold_required || [];
    const hold = dicePicker(box, "Dice to stand on the shelf (the others are re-shaken)", { poker: true, fixed });
    out.push(h("div", { class: "subform" }, hold.el, h("button", {
      type: "button", testid: "reroll", onclick: () => act({ type: "reroll", hold: hold.chosen() }),
    }, "Shake the rest")));
  }
  out.push(callButtons(m, legal, act));
  return out;
}

// --- table chat ----------------------------------------------------------------------

function chatPanel(matchId) {
  const list = h("ol", { class: "chat-log plain", "aria-live": "polite" });
  const input = h("input", { name: "text", maxlength: 500, testid: "chat-input", autocomplete: "off", required: true });
  const load = async () => {
    const page = await api(`matches/${matchId}/messages/?page_size=50`);
    replace(list, page.results.slice().reverse().map((msg) =>
      h("li", {}, h("strong", {}, msg.author.username), ": ", msg.text)));
    list.scrollTop = list.scrollHeight;
  };
  const onsubmit = async (event) => {
    event.preventDefault();
    try {
      await api(`matches/${matchId}/messages/`, { method: "POST", body: { text: input.value } });
      input.value = "";
      await load();
    } catch (error) {
      flash(errorText(error), "error");
    }
  };
  const el = h("section", { class: "card chat" }, h("h2", {}, "Table talk"), list,
    h("form", { onsubmit, class: "chat-form", "aria-label": "Send a message" }, field("Message", input),
      h("button", { type: "submit", testid: "chat-send" }, "Send")));
  load().catch(() => {});
  const timer = setInterval(() => load().catch(() => {}), CHAT_POLL_MS);
  return { el, load: () => load().catch(() => {}), stop: () => clearInterval(timer) };
}

// --- replay --------------------------------------------------------------------------

export async function renderReplay(root, matchId, roundNumber = null) {
  const [m, rounds] = await Promise.all([api(`matches/${matchId}/`), api(`matches/${matchId}/rounds/`)]);
  const records = rounds.rounds;
  const name = namer(m);
  let index = 0;
  let step = 0;
  const stage = h("section", { class: "card replay" });
  const pick = select({ "aria-label": "Round" }, records.map((r, i) => [i, `Round ${r.number}`]), 0);
  const prev = h("button", { type: "button", onclick: () => show(index - 1) }, "◀ Previous round");
  const next = h("button", { type: "button", onclick: () => show(index + 1) }, "Next round ▶");
  pick.addEventListener("change", () => show(Number(pick.value)));

  async function show(i) {
    index = Math.max(0, Math.min(records.length - 1, i));
    step = 0;
    pick.value = String(index);
    prev.disabled = index === 0;
    next.disabled = index === records.length - 1;
    await drawRound();
  }
  async function drawRound() {
    const record = records[index];
    const done = step >= record.actions.length;
    replace(stage,
      h("h2", {}, `Round ${record.number} · ${verb(name(record.opener_seat), "open")}`),
      h("ol", { class: "log" }, record.actions.slice(0, step).map((a) => h("li", {}, actionText(a, name)))),
      done ? await roundDetails(m, record, name) : h("div", { class: "buttons" },
        h("button", { type: "button", onclick: () => { step += 1; drawRound(); } }, "Next action"),
        h("button", { type: "button", testid: "replay-reveal", onclick: () => { step = record.actions.length; drawRound(); } }, "Reveal the round")));
  }
  replace(root,
    h("h1", {}, `Replay of match #${m.id} · ${presetTitle(m.ruleset)}`),
    h("p", {}, h("a", { href: `#/match/${m.id}` }, "Back to the table"),
      m.winner_seats.length ? ` · won by ${m.winner_seats.map(name).join(" and ")}` : ""),
    records.length ? h("div", { class: "buttons" }, prev, pick, next) : h("p", { class: "muted" }, "No finished rounds."),
    stage);
  if (records.length) await show(Math.max(0, records.findIndex((r) => r.number === roundNumber)));
}
