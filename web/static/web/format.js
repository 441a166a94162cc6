// Words and dice for the page: how actions, bids and results read. Presentation only:
// what is legal always comes from the API's `legal_actions`.

import { h } from "./dom.js";

const PIPS = { 1: [5], 2: [1, 9], 3: [1, 5, 9], 4: [1, 3, 7, 9], 5: [1, 3, 5, 7, 9], 6: [1, 3, 4, 6, 7, 9] };

export function die(value, { poker = false, extra = "" } = {}) {
  if (poker || !PIPS[value]) {
    return h("span", { class: `die rank ${extra}`, role: "img", "aria-label": String(value ?? "?") }, value ?? "?");
  }
  return h(
    "span",
    { class: `die d${value} ${extra}`, role: "img", "aria-label": String(value) },
    PIPS[value].map((p) => h("i", { class: `pip p${p}` })),
  );
}

export function diceRow(values, opts = {}) {
  return h("span", { class: "dice" }, values.map((v) => die(v, opts)));
}

export function faceName(face, plural = true) {
  if (face === 1) return plural ? "1s" : "1";
  return plural ? `${face}s` : String(face);
}

export function poolBid(bid) {
  return `${bid.quantity} × ${faceName(bid.face, bid.quantity !== 1)}`;
}

export const RANKS = ["9", "10", "J", "Q", "K", "A"];

// A box's five ranks as a bid names them: the most of a kind first, higher ranks first
// (a straight stays high to low).
export function handOrder(box) {
  const count = (r) => box.filter((x) => x === r).length;
  const rank = (r) => RANKS.indexOf(r);
  return [...box].sort((a, b) => count(b) - count(a) || rank(b) - rank(a));
}

export function handText(hand) {
  if (!hand) return "";
  if (hand[0] === "junk") return "junk (no claim)";
  return hand.map((r) => r ?? "·").join(" ");
}

export function bidText(bid) {
  if (!bid) return "no bid yet";
  if (bid.hand?.[0] === "junk") return handText(bid.hand); // its text says no more
  if (bid.text) return `${bid.text} (${handText(bid.hand)})`;
  if (bid.hand) return handText(bid.hand);
  return poolBid(bid);
}

// "you bid" but "ann bids": names come from namer(), which says "you" for the viewer.
export const verb = (who, base, third = `${base}s`) => `${who} ${who === "you" ? base : third}`;
const possessive = (who) => (who === "you" ? "your" : `${who}’s`);

export function actionText(action, name) {
  const who = name(action.seat);
  switch (action.type) {
    case "bid": {
      let text = `${verb(who, "bid")} ${action.hand ? handText(action.hand) : poolBid(action)}`;
      if (action.direction) text += `, play goes ${action.direction}`;
      if (action.show?.length || action.shown?.length) text += ` (shows ${(action.shown || action.show).length})`;
      return text;
    }
    case "show_reroll":
      return `${verb(who, "show")} ${(action.shown || []).join(", ")} and ${who === "you" ? "reroll" : "rerolls"} the rest`;
    case "challenge":
      return action.target_seat !== undefined && action.target_seat !== null
        ? `${verb(who, "call")} liar on ${name(action.target_seat)}`
        : `${verb(who, "call")} liar`;
    case "exact":
      return `${verb(who, "call")} exact`;
    case "pass":
      return `${verb(who, "pass", "passes")}`;
    case "accept":
      return `${verb(who, "accept")} and ${who === "you" ? "look" : "looks"}`;
    case "reroll":
      return `${verb(who, "hold")} ${(action.hold || []).length} and ${who === "you" ? "shake" : "shakes"} the rest`;
    default:
      return `${who}: ${action.type.replaceAll("_", " ")}`;
  }
}

export function resultText(record, name, poker) {
  if (!record.result) {
    if (record.aborted) return "The match was aborted in this round: it settled nothing.";
    if (record.voided_by !== undefined && record.voided_by !== null) {
      return `${verb(name(record.voided_by), "leave")} the match: the round is void, its antes given back.`;
    }
    return "No result.";
  }
  const r = record.result;
  const parts = [];
  const bid = r.bid ? (r.bid.hand ? handText(r.bid.hand) : poolBid(r.bid)) : "";
  if (r.type === "exact") parts.push(`${name(r.challenger_seat)} called exact on ${bid}`);
  else if (r.type === "pass_challenge")
    parts.push(`${name(r.challenger_seat)} challenged ${possessive(name(r.target_seat))} pass`);
  else if (r.challenger_seat !== undefined && r.challenger_seat !== null)
    parts.push(`${name(r.challenger_seat)} challenged ${possessive(name(r.bidder_seat))} ${bid}`);
  if (r.actual_count !== undefined && r.actual_count !== null) parts.push(`there were ${r.actual_count}`);
  if (r.actual_hand) parts.push(`the box held ${handText(r.actual_hand)}`);
  for (const [seat, n] of Object.entries(r.losses || {})) {
    parts.push(`${verb(name(Number(seat)), "lose")} ${n} ${poker ? (n === 1 ? "life" : "lives") : n === 1 ? "die" : "dice"}`);
  }
  for (const [seat, n] of Object.entries(r.gains || {})) {
    parts.push(`${verb(name(Number(seat)), "regain")} ${n} ${n === 1 ? "die" : "dice"}`);
  }
  return parts.join("; ") + ".";
}

// An aborted match: why, and what each seat got back (`aborted.refunds`, by seat).
export function abortText(m, name) {
  const reason = m.aborted?.reason || "no reason given";
  if (!m.buy_in) return `Match aborted: ${reason}.`;
  const refunds = Object.entries(m.aborted?.refunds || {}).map(([seat, n]) => `${name(Number(seat))} ${n}`);
  const back = refunds.length ? `Chips given back: ${refunds.join(", ")}.` : "Every chip went back to its owner.";
  return `Match aborted: ${reason}. ${back}`;
}

export function clock(seconds) {
  if (seconds <= 0) return "0:00";
  const d = Math.floor(seconds / 86400);
  const hh = Math.floor((seconds % 86400) / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = Math.floor(seconds % 60);
  if (d) return `${d}d ${hh}h`;
  if (hh) return `${hh}:${String(m).padStart(2, "0")}:${String(s).padStart(2, "0")}`;
  return `${m}:${String(s).padStart(2, "0")}`;
}
