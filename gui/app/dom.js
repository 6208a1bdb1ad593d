// The page's smallest helpers, used by every view: an element by id, and writes that touch the
// document only when something changed (every write costs the page a style pass).

/** The element with this id. */
export const $ = (id) => document.getElementById(id);

/** Set a data attribute, or remove it when the value is empty. */
export function setData(el, name, value) {
  if (value) { if (el.dataset[name] !== value) el.dataset[name] = value; }
  else if (name in el.dataset) delete el.dataset[name];
}

/** Write an element's text only when it changed. */
export function setText(el, text) {
  if (el.textContent !== text) el.textContent = text;
}
