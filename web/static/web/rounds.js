// A match's ended rounds on its table: the last one (every die, the dice that made the
// count marked, the commitments checked here) stays until the next one ends, and the
// earlier ones are a line each, opened on demand. The replay shows rounds the same way.

import { h, replace } from "./dom.js";
import { diceRow, resultText } from "./format.js";
import { verifyRound } from "./verify.js";

// A sign, and words a phone leaves out (they stay the mark's title).
const MARKS = {
  verified: ["✓", "verified"],
  mismatch: ["✗", "does not match"],
  missing: ["–", "no commitment"],
  unavailable: ["?", "cannot check (needs HTTPS)"],
};

// Per die of `dice`: "counted" (it made the count), "wild" (a one counted as the face),
// or "" (it did not count); null when the round counted nothing (a challenged pass).
// Common pool: the bid's face, and ones where they are wild (not on a bid of ones, nor
// in a palifico round: RULES 1.3, 1.10). Poker dice: the box's dice that the bid named,
// rank by rank.
function countedMarks(record, rules, dice) {
  const bid = record.result?.type === "pass_challenge" ? null : record.result?.bid;
  if (!bid) return null;
  if (bid.hand) {
    const named = bid.hand.filter((r) => r !== null && r !== "junk");
    return dice.map((d) => {
      const at = named.indexOf(d);
      if (at < 0) return "";
      named.splice(at, 1);
      return "counted";
    });
  }
  const wild = rules.ones_wild && bid.face !== 1 && !record.palifico;
  return dice.map((d) => (d === bid.face ? "counted" : wild && d === 1 ? "wild" : ""));
}

function markedDice(m, record, dice) {
  const poker = m.family === "poker_dice";
  const marks = countedMarks(record, m.rules, dice);
  const row = diceRow(dice, { poker });
  if (!marks) return row;
  [...row.children].forEach((el, i) => {
    el.classList.add(...(marks[i] ? ["counted", marks[i]] : ["uncounted"]));
    if (marks[i] === "wild") el.title = "a wild one, counted";
  });
  return row;
}

// Every die of a round, the dice that made the count marked, each commitment checked.
export async function roundDetails(m, record, name) {
  const poker = m.family === "poker_dice";
  const checks = await verifyRound(record);
  const rows = Object.entries(record.dice || {}).map(([key, dice]) => {
    const shown = record.shown?.[key] || [];
    const delta = [
      record.result?.losses?.[key] ? `−${record.result.losses[key]}` : "",
      record.result?.gains?.[key] ? `+${record.result.gains[key]}` : "",
    ].join("");
    return h("tr", {},
      h("th", { scope: "row" }, key === "box" ? "The box" : name(Number(key))),
      h("td", {}, markedDice(m, record, dice), shown.length ? h("small", { class: "muted" }, ` (${shown.length} shown)`) : null),
      // In poker dice the box belongs to nobody: the lives lost are in the sentence.
      poker ? null : h("td", { class: "num" }, delta),
      h("td", {}, h("span", {
        class: `mark ${checks[key]}`, testid: "commitment-verified", dataset: { seat: key, state: checks[key] },
        title: `${MARKS[checks[key]][1]}: sha256("<salt>:<dice>") = ${record.dice_commitments?.[key] ?? "?"}`,
      }, MARKS[checks[key]][0], h("span", { class: "mark-word" }, ` ${MARKS[checks[key]][1]}`))));
  });
  return h("div", {},
    h("p", { class: "outcome" }, resultText(record, name, poker)),
    h("table", { class: "reveal" },
      h("thead", {}, h("tr", {}, h("th", {}, poker ? "" : "Seat"), h("th", {}, "Dice"),
        poker ? null : h("th", { class: "num" }, "±"), h("th", { title: "The dice as committed before the round" }, "Check"))),
      h("tbody", {}, rows)));
}

function roundTitle(record) {
  if (record.aborted) return `Round ${record.number}: stopped by the abort`;
  if (record.voided_by !== undefined && record.voided_by !== null) return `Round ${record.number}: voided`;
  return `Round ${record.number}: result`;
}

// The table's part for ended rounds: `last` (the newest one, in full) and `history`
// (the ones before it). `draw(m, records, name)` fills both.
export function roundsOnTable() {
  const last = h("section", { class: "last-round", "aria-live": "polite" });
  const history = h("details", { class: "history" });
  const draw = async (m, records, name) => {
    const newest = records.at(-1);
    history.hidden = true;
    if (!newest) return replace(last);
    last.dataset.testid = "round-result";
    last.dataset.round = newest.number;
    replace(last, h("h2", {}, roundTitle(newest)), await roundDetails(m, newest, name));
    const earlier = records.slice(0, -1).reverse();
    history.hidden = !earlier.length;
    replace(history,
      h("summary", {}, `Earlier rounds (${earlier.length})`),
      h("ol", { class: "plain" }, earlier.map((record) => earlierRound(m, record, name))));
  };
  return { last, history, draw };
}

// One line (the round's outcome) that opens onto its dice, checked when first opened.
function earlierRound(m, record, name) {
  const body = h("div", {});
  const item = h("details", { class: "earlier", dataset: { round: record.number } },
    h("summary", {}, `Round ${record.number}: ${resultText(record, name, m.family === "poker_dice")}`), body);
  item.addEventListener("toggle", async () => {
    if (item.open && !body.childElementCount) replace(body, (await roundDetails(m, record, name)).lastChild);
  });
  return h("li", {}, item);
}
