// Telling a player their turn has come when they are not looking: the tab's title and
// icon mark the matches waiting for them; a sound and a browser notification, each off
// until the player turns it on (the choice kept in localStorage); a live region that
// announces whose turn it is, and the clock running low, to screen readers.

import { h } from "./dom.js";

const PREFS_KEY = "liarsdice.notices";
export const LOW_TIME_SECONDS = 15;
const BASE_TITLE = document.title;
const iconLink = document.querySelector("link[rel=icon]");
const BASE_ICON = iconLink?.getAttribute("href");
// The page's icon with a gold mark in its corner: a data: URL (the page's policy allows
// images from data:, never from elsewhere).
const TURN_ICON = `data:image/svg+xml,${encodeURIComponent(
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64"><rect x="4" y="4" width="56" height="56" rx="12" fill="#7a1f1f"/>' +
    '<g fill="#fff"><circle cx="20" cy="20" r="6"/><circle cx="32" cy="32" r="6"/><circle cx="44" cy="44" r="6"/></g>' +
    '<circle cx="50" cy="14" r="13" fill="#f5b301" stroke="#fff" stroke-width="3"/></svg>',
)}`;

// --- the player's choices ------------------------------------------------------------

function readPrefs() {
  try {
    const saved = JSON.parse(localStorage.getItem(PREFS_KEY) || "{}");
    return { sound: saved.sound === true, notify: saved.notify === true };
  } catch {
    return { sound: false, notify: false };
  }
}

const prefs = readPrefs();
const savePrefs = () => localStorage.setItem(PREFS_KEY, JSON.stringify(prefs));

// --- the live regions ----------------------------------------------------------------

const polite = h("div", { class: "sr-only", role: "status", "aria-live": "polite", testid: "announcer" });
const urgent = h("div", { class: "sr-only", role: "alert", "aria-live": "assertive", testid: "alarm" });
document.body.append(polite, urgent);

// The same sentence twice in a row is announced twice: the region is emptied first.
function say(region, text) {
  region.textContent = "";
  setTimeout(() => (region.textContent = text), 50);
}

export const announce = (text) => say(polite, text);

// --- sound and notification ------------------------------------------------------------

let audio = null;

// Two short rising tones, made here (no sound file to fetch).
function chime(high = false) {
  if (!prefs.sound) return;
  try {
    audio ??= new AudioContext();
    const start = audio.currentTime + 0.01;
    [high ? 880 : 660, high ? 1175 : 880].forEach((frequency, i) => {
      const tone = audio.createOscillator();
      const gain = audio.createGain();
      tone.frequency.value = frequency;
      gain.gain.setValueAtTime(0.15, start + i * 0.16);
      gain.gain.exponentialRampToValueAtTime(0.001, start + i * 0.16 + 0.15);
      tone.connect(gain).connect(audio.destination);
      tone.start(start + i * 0.16);
      tone.stop(start + i * 0.16 + 0.16);
    });
  } catch {
    // No audio on this device: the title and the announcement still tell.
  }
}

function notify(matchId) {
  if (!prefs.notify || !("Notification" in window) || Notification.permission !== "granted") return;
  if (!document.hidden) return; // the page in view already shows it
  const note = new Notification("Liar's Dice: your turn", {
    body: `Match #${matchId} is waiting for your move.`, tag: `turn-${matchId}`, icon: TURN_ICON,
  });
  note.onclick = () => {
    window.focus();
    location.hash = `#/match/${matchId}`;
    note.close();
  };
}

// --- turns waiting: title, icon, and a notice for each new one -------------------------

let waitingBefore = new Set();

// `waiting`: the ids of the matches where it is the player's turn now.
export function markTurns(waiting) {
  const ids = new Set(waiting);
  document.title = ids.size ? `(${ids.size}) Your turn · ${BASE_TITLE}` : BASE_TITLE;
  if (iconLink && BASE_ICON) iconLink.setAttribute("href", ids.size ? TURN_ICON : BASE_ICON);
  const fresh = [...ids].filter((id) => !waitingBefore.has(id));
  waitingBefore = ids;
  for (const id of fresh) {
    chime();
    notify(id);
    // At that match's table the table's own announcement says it.
    if (location.hash !== `#/match/${id}`) announce(`Your turn in match #${id}.`);
  }
}

// --- at a table: who plays now, and the clock --------------------------------------------

let tableKey = null;
let lowTimeKey = null;

// Announces whose turn it is when it changes, and the end. `name(seat)` says "you" for
// the viewer; `lastAction` is the sentence for the move that passed the turn, if any.
export function announceTable(m, name, lastAction) {
  const round = m.round;
  const key = `${m.id}:${m.status}:${round?.number ?? ""}:${round?.turn_seat ?? ""}:${round?.actions.length ?? ""}`;
  if (key === tableKey) return;
  tableKey = key;
  if (m.status !== "active" || !round) return;
  const before = lastAction ? `${lastAction}. ` : "";
  const mine = m.legal_actions.length > 0;
  announce(mine ? `${before}Your turn.` : `${before}${name(round.turn_seat)}'s turn.`);
}

// The turn bar's clock: under LOW_TIME_SECONDS on the player's own turn, a visible
// warning and, once per turn, an urgent announcement (and the chime, if on).
export function lowTimeWarning(indicator, m, secondsLeft) {
  const mine = m.status === "active" && m.legal_actions.length > 0;
  const low = mine && secondsLeft !== null && secondsLeft < LOW_TIME_SECONDS;
  let badge = indicator.querySelector(".low-time");
  if (!low) return badge?.remove();
  if (!badge) {
    badge = h("span", { class: "low-time", testid: "low-time" }, "Hurry: time is running out");
    indicator.append(" ", badge);
  }
  const key = `${m.id}:${m.round.number}:${m.round.actions.length}`;
  if (lowTimeKey === key) return;
  lowTimeKey = key;
  say(urgent, `Less than ${LOW_TIME_SECONDS} seconds left for your move.`);
  chime(true);
}

// --- the controls ----------------------------------------------------------------------

// The two switches, off by default. Turning notifications on asks the browser's
// permission then (once: the browser remembers the answer); refused, the switch goes off.
export function noticeSettings() {
  const status = h("small", { class: "muted", "aria-live": "polite" });
  const sound = h("input", { type: "checkbox", testid: "notice-sound", checked: prefs.sound, onchange: () => {
    prefs.sound = sound.checked;
    savePrefs();
    if (prefs.sound) chime();
  } });
  const supported = "Notification" in window;
  const notifyBox = h("input", {
    type: "checkbox", testid: "notice-notify", checked: prefs.notify && supported,
    disabled: !supported || (supported && Notification.permission === "denied"),
    onchange: async () => {
      prefs.notify = notifyBox.checked;
      if (prefs.notify && Notification.permission !== "granted") {
        const answer = await Notification.requestPermission();
        if (answer !== "granted") {
          prefs.notify = false;
          notifyBox.checked = false;
          notifyBox.disabled = answer === "denied";
          status.textContent = "The browser does not allow notifications for this page.";
        }
      }
      savePrefs();
    },
  });
  if (supported && Notification.permission === "denied") status.textContent = "Notifications are blocked in this browser's settings.";
  return h("fieldset", { class: "notices", testid: "notice-settings" },
    h("legend", {}, "When it is your turn"),
    h("label", {}, sound, " play a sound"),
    h("label", {}, notifyBox, " show a notification (while this tab is hidden)"),
    status);
}
