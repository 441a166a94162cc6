// The settings a new match takes, shared by the create form, the challenge form and quick
// play: the preset, its rule options, the turn time and the stakes. Presentation only:
// the server checks every value.

import { api } from "./api.js";
import { field, h, replace, select } from "./dom.js";
import {
  anteNote, knowPresets, loadRulesHelp, optionLabel, presetTitle, rulesHelpButton, valueLabel, valueText,
} from "./rules-help.js";

// Choices of the enumerated rule options (docs/RULES.md sections 1-3).
const OPTION_CHOICES = {
  ones_bids: ["half", "face", "forbidden", "perudo"],
  loss: ["difference", "one"],
  exact_outcome: ["others_lose_one", "challenger_loses_one"],
  first_opener: ["random", "creator", "roll_off"],
  next_opener: ["challenge_winner", "round_loser", "challenger"],
  show_and_reroll: ["off", "after_reroll", "before_raise"],
};
const OPTION_RANGES = { dice_per_player: [1, 10], lives: [1, 10] };
export const TURN_TIMES = [
  [30, "30 seconds"], [60, "1 minute"], [120, "2 minutes"], [300, "5 minutes"],
  [900, "15 minutes"], [3600, "1 hour"], [86400, "1 day"], [259200, "3 days"],
];
export const DEFAULT_RULESET = "milton_bradley";

let rulesets = null;

export async function loadRulesets() {
  const [list] = await Promise.all([rulesets ?? api("rulesets/"), loadRulesHelp()]);
  rulesets = list;
  knowPresets(rulesets);
  return rulesets;
}

export const rulesetName = presetTitle;

export function rulesetSelect(attrs) {
  return select(attrs, rulesets.map((r) => [r.name, presetTitle(r.name)]), DEFAULT_RULESET);
}

// The preset's options as controls in a fieldset, re-drawn when the preset changes.
// `read()` gives only the options changed from the preset's defaults.
export function optionControls(rulesetControl) {
  const box = h("fieldset", { class: "options" });
  let controls = {};
  const preset = () => rulesets.find((r) => r.name === rulesetControl.value);
  const draw = () => {
    controls = {};
    const rows = Object.entries(preset().options).map(([name, value]) => {
      const label = optionLabel(name);
      // A value changed from the preset's, in words under its control (the help button
      // explains every option).
      const hint = h("small", { class: "option-hint muted" });
      let control;
      if (typeof value === "boolean") {
        control = h("input", { type: "checkbox", name, checked: value });
        controls[name] = () => control.checked;
      } else if (OPTION_CHOICES[name]) {
        control = select({ name }, OPTION_CHOICES[name].map((c) => [c, valueLabel(name, c)]), value);
        controls[name] = () => control.value;
      } else {
        const [min, max] = OPTION_RANGES[name] || [0, 100];
        control = h("input", { type: "number", name, min, max, value, required: true });
        controls[name] = () => Number(control.value);
      }
      const explain = () => {
        const now = controls[name]();
        hint.textContent = now === value ? "" : valueText(name, now);
      };
      control.addEventListener("change", explain);
      explain();
      if (typeof value === "boolean") {
        return h("div", { class: "field check-hint" }, h("label", {}, control, ` ${label}`), hint);
      }
      return field(label, control, hint);
    });
    const helpButton = rulesHelpButton("How these rules play", () => ({
      ruleset: preset().name, family: preset().family, options: { ...preset().options, ...read() },
    }));
    replace(box, h("legend", {}, "Rule options"), h("div", { class: "options-help" }, helpButton), rows);
  };
  rulesetControl.addEventListener("change", draw);
  draw();
  const read = () => {
    const defaults = preset().options;
    const options = {};
    for (const [name, value] of Object.entries(controls)) if (value() !== defaults[name]) options[name] = value();
    return options;
  };
  return { box, read };
}

// Turn time and stakes as labelled fields: {turn, buyIn, ante, read()}, where read()
// gives {turn_seconds, buy_in, ante}.
export function turnAndStakes({ testid = "" } = {}) {
  const id = (name) => (testid ? `${testid}-${name}` : undefined);
  const turn = select({ name: "turn_seconds", testid: id("turn") }, TURN_TIMES, 120);
  const buyIn = h("input", { type: "number", name: "buy_in", min: 0, value: 0, required: true, testid: id("buy-in") });
  const ante = h("input", { type: "number", name: "ante", min: 0, value: 0, required: true, testid: id("ante") });
  const turnField = field("Turn time", turn);
  turnField.classList.add("turn-time");
  // The ante is paid twice a round (round pot and game pot): say what it really costs.
  const anteHint = h("small", { testid: id("ante-cost") ?? "ante-cost" });
  // Shown once there are chips at stake.
  const showCost = () => {
    anteHint.textContent = Number(buyIn.value) > 0 ? anteNote(Number(buyIn.value), Number(ante.value)) : "";
  };
  buyIn.addEventListener("input", showCost);
  ante.addEventListener("input", showCost);
  showCost();
  return {
    turn: turnField,
    buyIn: field("Buy-in (chips)", buyIn),
    ante: field("Ante per round", ante, anteHint),
    read: () => ({ turn_seconds: Number(turn.value), buy_in: Number(buyIn.value), ante: Number(ante.value) }),
  };
}
