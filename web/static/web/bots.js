// The server's bots a person picks from: the levels of GET /bots/, weakest first, each
// shown with what it plays like. `random` and `cautious` stay API names (cautious plays
// as medium), so the picker leaves them out.

import { api } from "./api.js";
import { h, select } from "./dom.js";

export const DEFAULT_LEVEL = "medium";

let levels = null;

export async function loadBotLevels() {
  levels ??= (await api("bots/")).filter((bot) => bot.level !== null);
  return levels;
}

const levelName = (strategy) => `${strategy[0].toUpperCase()}${strategy.slice(1)} bot`;
let pickerCounter = 0;

// A level select and a line under it saying what the chosen level plays like (which
// screen readers read with the select). `staked(yes)` says whether the table has a
// buy-in: there only the levels the house stakes (`plays_for_chips`) may be picked, the
// others shown disabled, and a disabled choice moves to the first staked level.
export function botLevelPicker({ staked = false } = {}) {
  const noteId = `bot-note-${++pickerCounter}`;
  const choice = select({ class: "bot-level", testid: "bot-level", "aria-label": "Bot level", "aria-describedby": noteId },
    levels.map((bot) => [bot.strategy, levelName(bot.strategy)]), DEFAULT_LEVEL);
  const note = h("small", { class: "bot-note muted", testid: "bot-level-note", id: noteId });
  const describe = () => { note.textContent = levels.find((bot) => bot.strategy === choice.value).description; };
  const setStaked = (yes) => {
    for (const option of choice.options) {
      const bot = levels.find((b) => b.strategy === option.value);
      option.disabled = yes && !bot.plays_for_chips;
      option.textContent = levelName(bot.strategy) + (option.disabled ? " (free tables only)" : "");
    }
    if (choice.selectedOptions[0]?.disabled) {
      choice.value = levels.find((bot) => bot.plays_for_chips)?.strategy ?? choice.value;
    }
    describe();
  };
  choice.addEventListener("change", describe);
  setStaked(staked);
  return { choice, note, staked: setStaked };
}
