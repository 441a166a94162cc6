// The rules in plain words, as `GET /rulesets/help/` gives them (games/rules_help.py, the
// same texts as docs/RULES.md section 5): plain labels for every option, the help of a
// preset (the rules page and the create form) and of one table ("How this table plays":
// the options in force and the stakes), and poker dice's hands. Presentation only.

import { api } from "./api.js";
import { h, replace } from "./dom.js";

let help = null;
let loading = null;

// Loaded once; a page without it still works, with the API's own names.
export async function loadRulesHelp() {
  loading ??= api("rulesets/help/").then((answer) => (help = answer)).catch(() => (loading = null));
  await loading;
  return help;
}

const familyHelp = (family) => help?.families.find((f) => f.family === family);
const presetHelp = (name) => help?.presets.find((p) => p.name === name);
const optionHelp = (name) => help?.families.flatMap((f) => f.options).find((o) => o.name === name);
const valueHelp = (name, value) => optionHelp(name)?.values.find((v) => v.value === value);

export const presetTitle = (name) => presetHelp(name)?.title ?? name.replaceAll("_", " ");
export const optionLabel = (name) => optionHelp(name)?.label ?? name.replaceAll("_", " ");
export const valueLabel = (name, value) => valueHelp(name, value)?.label ?? String(value).replaceAll("_", " ");
export const valueText = (name, value) => valueHelp(name, value)?.text ?? "";

// What an ante really costs: it is paid twice a round (RULES 1.8).
export function anteNote(buyIn, ante) {
  if (!buyIn) return "No buy-in: no chips and no ante.";
  if (!ante) return "No ante: the rounds cost nothing.";
  return `Costs ${2 * ante} chips a round: ${ante} to the round pot, ${ante} to the game pot.`;
}

export function handsList() {
  const poker = familyHelp("poker_dice");
  if (!poker) return null;
  return h("div", { class: "hands-help" },
    h("ol", { class: "hands", testid: "hands-help" }, poker.hands.map((hand) =>
      h("li", {}, h("strong", {}, hand.name), ": ", hand.text))),
    h("p", {}, poker.kickers));
}

// One ruleset in plain words: `options` are the ones in force (a preset's own, or a
// table's with its overrides); `stakes` ({buyIn, ante}) only for a table or a form.
export function rulesHelpPanel({ ruleset, family, options, stakes = null, heading = "h2" }) {
  const preset = presetHelp(ruleset);
  const fam = familyHelp(family ?? preset?.family);
  if (!fam) return h("p", { class: "muted" }, "The rules help could not be loaded.");
  const changed = Object.entries(options).filter(([name, value]) => presetDefaults(ruleset)?.[name] !== value);
  const optionRows = fam.options.filter((o) => o.name in options).map((o) => {
    const value = options[o.name];
    const chosen = o.values.find((v) => v.value === value);
    return h("div", { class: "rule-option", dataset: { option: o.name } },
      h("dt", {}, o.label, changed.some(([n]) => n === o.name) ? h("span", { class: "tag" }, "changed") : null),
      h("dd", {}, h("strong", {}, chosen ? chosen.label : String(value)), " · ", chosen ? chosen.text : o.text));
  });
  let chips = fam.chips;
  if (stakes) {
    chips = stakes.buyIn
      ? [`This table: buy-in ${stakes.buyIn} chips, ante ${stakes.ante}. ${anteNote(stakes.buyIn, stakes.ante)}`, ...fam.chips]
      : ["This table plays without chips."];
  }
  const sub = heading === "h2" ? "h3" : "h4";
  const round = [h(sub, {}, "A round"), h("ol", {}, fam.basics.map((step) => h("li", {}, step))),
    fam.hands.length ? [h(sub, {}, "Hands, high to low"), handsList()] : null];
  const rules = [h(sub, {}, stakes ? "The rules at this table" : "The rules"),
    h("dl", { class: "rule-options" }, optionRows),
    h(sub, {}, "Chips"), chips.map((text) => h("p", {}, text))];
  // At a table what is in force comes first; on the rules page, how a round goes.
  return h("article", { class: "rules-help", testid: "rules-help", dataset: { ruleset } },
    h(heading, {}, preset ? preset.title : presetTitle(ruleset)),
    preset ? h("p", { class: "summary" }, preset.summary) : null,
    stakes ? [rules, round] : [round, rules],
    preset?.examples.length ? [h(sub, {}, "Examples from the rule sheet"),
      h("ul", { class: "examples" }, preset.examples.map((e) => h("li", {}, e)))] : null,
  );
}

// The presets' own options, when the rules form has loaded them (rules-form.js).
let presetOptions = {};
export function knowPresets(rulesets) {
  presetOptions = Object.fromEntries(rulesets.map((r) => [r.name, r.options]));
}
const presetDefaults = (name) => presetOptions[name];

// The help in a modal dialog over the page (the table or a form stays as it was).
export function openRulesHelp(panelArgs) {
  const close = h("button", { type: "button", class: "small", testid: "rules-help-close" }, "Close");
  const dialog = h("dialog", { class: "rules-dialog", "aria-label": "How this plays" },
    h("div", { class: "dialog-bar" }, close), rulesHelpPanel(panelArgs));
  close.addEventListener("click", () => dialog.close());
  dialog.addEventListener("close", () => dialog.remove());
  // A click on the backdrop (outside the box) closes it too.
  dialog.addEventListener("click", (event) => event.target === dialog && dialog.close());
  document.body.append(dialog);
  dialog.showModal();
  return dialog;
}

export function rulesHelpButton(text, panelArgs, testid = "rules-help-open") {
  return h("button", { type: "button", class: "small help", testid, onclick: () => openRulesHelp(panelArgs()) }, text);
}

// --- the rules page, #/rules and #/rules/<preset> -----------------------------------------

// `rulesets`: GET /rulesets/ (every preset with its options).
export async function renderRulesPage(root, name, rulesets) {
  await loadRulesHelp();
  if (!help) return replace(root, h("p", { class: "error" }, "The rules help could not be loaded."));
  const current = rulesets.find((r) => r.name === name) ?? rulesets[0];
  replace(root,
    h("h1", {}, "How to play"),
    h("nav", { class: "preset-tabs", "aria-label": "Rule sets" }, rulesets.map((r) =>
      h("a", { href: `#/rules/${r.name}`, class: r.name === current.name ? "current" : null,
        "aria-current": r.name === current.name ? "page" : null, testid: `rules-tab-${r.name}` }, presetTitle(r.name)))),
    h("section", { class: "card" }, rulesHelpPanel({ ruleset: current.name, family: current.family, options: current.options })),
    h("p", {}, h("a", { href: "#/" }, "Back to the lobby")));
}

// The lobby's way in: each preset, one click from its rules.
export function rulesCard() {
  return h("section", { class: "card rules-card" }, h("h2", {}, "How to play"),
    h("ul", { class: "plain preset-links" }, (help?.presets ?? []).map((p) =>
      h("li", {}, h("a", { href: `#/rules/${p.name}`, testid: `rules-link-${p.name}` }, p.title), " ",
        h("span", { class: "muted" }, p.summary)))));
}
