// Finding whom to challenge: as a name is typed in the challenge form, the players whose
// names start with it (GET players/?search=), each a button that completes the name.

import { api } from "./api.js";
import { app } from "./app.js";
import { h, replace } from "./dom.js";

const DEBOUNCE_MS = 250;
const SHOWN = 6;
// Names in the field are separated by commas or spaces; the last one is being typed.
const SEPARATOR = /[\s,]+/;

// Suggestions under `input` (a comma-separated list of usernames). Returns the element.
export function playerSuggestions(input) {
  const box = h("ul", { class: "plain suggestions", testid: "player-suggestions", "aria-label": "Matching players" });
  let timer = null;
  let asked = 0;
  const names = () => input.value.split(SEPARATOR).filter(Boolean);
  const typed = () => (SEPARATOR.test(input.value.slice(-1)) ? "" : names().at(-1) || "");

  const pick = (username) => {
    const kept = SEPARATOR.test(input.value.slice(-1)) ? names() : names().slice(0, -1);
    input.value = `${[...kept, username].join(", ")}, `;
    replace(box);
    input.focus();
  };
  const search = async () => {
    const prefix = typed();
    const ask = ++asked;
    if (!prefix) return replace(box);
    let found = [];
    try {
      found = await api(`players/?search=${encodeURIComponent(prefix)}&limit=${SHOWN + 1}`);
    } catch {
      found = []; // a name that cannot be one, or searching too fast: no suggestions
    }
    if (ask !== asked) return; // a later search answers instead
    // Names already in the field (but the one being typed) and the player's own are left out.
    const chosen = new Set(names().slice(0, -1).map((n) => n.toLowerCase()));
    const offered = found
      .filter((p) => p.id !== app.me?.id && !chosen.has(p.username.toLowerCase()))
      .slice(0, SHOWN);
    replace(box, offered.map((p) => h("li", {},
      h("button", { type: "button", class: "small suggestion", testid: "player-suggestion", "aria-label": `Challenge ${p.username}`, onclick: () => pick(p.username) },
        p.username, p.is_bot ? h("span", { class: "tag" }, "bot") : null))));
  };
  input.addEventListener("input", () => {
    clearTimeout(timer);
    timer = setTimeout(search, DEBOUNCE_MS);
  });
  return box;
}
