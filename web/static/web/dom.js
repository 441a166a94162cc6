// A tiny element builder. Text always goes in as text nodes (never parsed as HTML), so names,
// chat and anything else from the API cannot inject markup or script.

export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key === "testid") el.dataset.testid = value;
    else if (key === "class") el.className = value;
    else if (key.startsWith("on")) el.addEventListener(key.slice(2), value);
    else if (key === "value" || key === "checked" || key === "disabled" || key === "selected")
      el[key] = value;
    else if (key === "dataset") Object.assign(el.dataset, value);
    else el.setAttribute(key, value === true ? "" : String(value));
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

export function replace(el, ...children) {
  el.replaceChildren();
  append(el, children);
  return el;
}

// A labelled form field: <label for=id>text</label> + control.
let fieldCounter = 0;
export function field(labelText, control, hint) {
  if (!control.id) control.id = `f${++fieldCounter}`;
  return h(
    "div",
    { class: "field" },
    h("label", { for: control.id }, labelText),
    control,
    hint ? h("small", {}, hint) : null,
  );
}

export function select(attrs, options, current) {
  return h(
    "select",
    attrs,
    options.map(([value, label]) =>
      h("option", { value: String(value), selected: String(value) === String(current) }, label),
    ),
  );
}
