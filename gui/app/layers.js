// The layer view: the levels side by side as grids of cells, their marks, and what the mouse,
// the keyboard and drag and drop do on them (the palette's drags included).
// It imports only downward (the model, the lines, the DOM helpers): what a click, a key or a
// drop does to the game is the controller's (main.js), handed in by setLayerActions().
import { $, setData } from "./dom.js";
import { boardLines } from "./lines.js";
import { state, cellIndex, cellName, coords, describe, fileName, index, ownPiece } from "./model.js";
import { figure, LETTERS } from "./pieces.js";
import { levelName, lettersOf } from "./variants.js";

/** The controller's handlers: an edit of a cell, a move, a redraw, a placed piece, a click in
 * Play, and an action deferred until a pasted board has loaded. */
const actions = {
  editCell: () => {}, moveTo: () => {}, paint: () => {}, place: () => {}, playClick: () => {}, whenLoaded: (f) => f(),
};
export function setLayerActions(handlers) { Object.assign(actions, handlers); }
const editCell = (...a) => actions.editCell(...a), moveTo = (...a) => actions.moveTo(...a);
const paint = () => actions.paint(), place = (...a) => actions.place(...a);
const playClick = (...a) => actions.playClick(...a), whenLoaded = (f) => actions.whenLoaded(f);

export function cellSize(size) {
  // Sizes chosen so that three layers fit in a row next to the panel at 1400 px.
  const base = { 2: 72, 3: 62, 4: 50, 5: 44, 6: 38, 7: 32, 8: 28, 9: 26, 10: 24 }[size]
    || (size <= 16 ? 20 : 14);
  return Math.max(8, Math.round(base * Number($("zoom").value) / 100));
}

export function applyZoom() {
  document.documentElement.style.setProperty("--cell", `${cellSize(state.n)}px`);
  $("zoom-value").textContent = `${$("zoom").value}%`;
}

export const glyphSpan = figure;

export function buildBoards() {
  const root = $("boards");
  root.replaceChildren();
  root.style.setProperty("--n", state.n);
  applyZoom();
  for (let z = state.n - 1; z >= 0; z--) {
    const layer = document.createElement("div");
    layer.className = "layer";
    const title = document.createElement("h2");
    title.textContent = `Level ${levelName(state.variant, z)}`;
    if (z === state.n - 1 || z === 0) {
      const note = document.createElement("small");
      note.textContent = z === state.n - 1 ? "top" : "bottom";
      title.append(note);
    }
    const grid = document.createElement("div");
    grid.className = "grid";
    grid.setAttribute("role", "grid");
    grid.setAttribute("aria-label", `level ${levelName(state.variant, z)}`);
    for (let y = state.n - 1; y >= 0; y--) {
      const row = document.createElement("div");
      row.setAttribute("role", "row");
      const rank = document.createElement("div");
      rank.className = "rank";
      rank.setAttribute("role", "rowheader");
      rank.textContent = String(y + 1);
      row.append(rank);
      for (let x = 0; x < state.n; x++) {
        const i = index(x, y, z);
        const cell = document.createElement("div");
        cell.className = `cell ${(x + y + z) % 2 === 0 ? "d" : "l"}`;
        cell.dataset.cell = cellName(i);
        cell.dataset.index = String(i);
        cell.setAttribute("role", "gridcell");
        cell.tabIndex = -1;
        row.append(cell);
      }
      grid.append(row);
    }
    grid.append(document.createElement("div"));
    for (let x = 0; x < state.n; x++) {
      const file = document.createElement("div");
      file.className = "file";
      file.textContent = fileName(x);
      grid.append(file);
    }
    layer.append(title, grid);
    root.append(layer);
  }
}

export function paintLayers(marks) {
  // Draw the model on the layers: each cell's piece, its marks and its screen-reader label.
  const { status, checkers, targets, keyFrom, keyTo, kingLetter, last, hint } = marks;
  const lines = boardLines(marks);
  const keyNumbers = new Map();
  for (const key of lines.keys) {
    for (const end of [key.from, key.to]) keyNumbers.set(end, [...(keyNumbers.get(end) || []), key.number]);
  }
  for (const el of document.querySelectorAll("#boards .cell")) {
    const i = Number(el.dataset.index);
    const p = state.cells[i];
    if (el.dataset.piece !== p) {
      el.dataset.piece = p;
      el.replaceChildren(...(p ? [glyphSpan(p)] : []));
      el.draggable = p !== "";
    }
    const notes = [];
    if (i === state.selected) notes.push("selected");
    if (targets.has(i)) notes.push(targets.get(i) ? "legal capture" : "legal move");
    if (checkers.has(i)) notes.push("gives check");
    if (keyFrom.has(i) || keyTo.has(i)) notes.push("mating key");
    const lastEnd = last ? (i === last.from ? "from" : i === last.to ? "to" : "") : "";
    const hintEnd = hint ? (i === hint.from ? "from" : i === hint.to ? "to" : "") : "";
    if (lastEnd) notes.push(`last move ${lastEnd} here`);
    if (hintEnd) notes.push(`hint: move ${hintEnd} here`);
    setData(el, "lastMove", lastEnd);
    setData(el, "hint", hintEnd);
    const label = [`${el.dataset.cell}, ${describe(p)}`, ...notes].join(", ");
    if (el.getAttribute("aria-label") !== label) { el.setAttribute("aria-label", label); el.title = label; }
    el.tabIndex = i === state.cursor ? 0 : -1;
    el.classList.toggle("sel", i === state.selected);
    const isKing = p === kingLetter && state.analysis !== null;
    el.classList.toggle("king", isKing);
    el.classList.toggle("in-check", isKing && status === "check");
    el.classList.toggle("mated", isKing && status === "checkmate");
    el.classList.toggle("stalemated", isKing && status === "stalemate");
    el.classList.toggle("checker", checkers.has(i));
    el.classList.toggle("target", targets.has(i));
    el.classList.toggle("capture", targets.get(i) === true);
    el.classList.toggle("key-from", keyFrom.has(i));
    el.classList.toggle("key-to", keyTo.has(i));
    el.classList.toggle("reach", lines.reach.has(i));
    el.classList.toggle("column", lines.column.includes(i));
    el.classList.toggle("check-line", lines.checkCells.has(i));
    setData(el, "keys", keyNumbers.has(i) ? keyNumbers.get(i).join(" ") : "");
  }
}

export function cellElement(i) {
  return document.querySelector(`#boards .cell[data-index="${i}"]`);
}

export function cellFromEvent(ev) {
  const el = ev.target.closest && ev.target.closest("#boards .cell");
  return el ? Number(el.dataset.index) : -1;
}

export function clickCell(i) {
  state.cursor = i;
  if (state.mode === "play") whenLoaded(() => playClick(i));
  else editCell(cellName(i), "cycle");
}

$("boards").addEventListener("click", (ev) => {
  const i = cellFromEvent(ev);
  if (i >= 0) clickCell(i);
});

$("boards").addEventListener("contextmenu", (ev) => {
  const i = cellFromEvent(ev);
  if (i < 0) return;
  ev.preventDefault();
  state.selected = state.selected === i ? -1 : i;
  paint();
});

export function focusCell(i) {
  state.cursor = i;
  paint();
  const el = cellElement(i);
  if (el) el.focus();
}

$("boards").addEventListener("keydown", (ev) => {
  const i = cellFromEvent(ev);
  if (i < 0 || ev.ctrlKey || ev.metaKey || ev.altKey) return;
  const [x, y, z] = coords(i);
  const step = { ArrowLeft: [-1, 0, 0], ArrowRight: [1, 0, 0], ArrowUp: [0, 1, 0], ArrowDown: [0, -1, 0],
    PageUp: [0, 0, 1], PageDown: [0, 0, -1] }[ev.key];
  if (step) {
    const [nx, ny, nz] = [x + step[0], y + step[1], z + step[2]];
    if (nx >= 0 && nx < state.n && ny >= 0 && ny < state.n && nz >= 0 && nz < state.n) focusCell(index(nx, ny, nz));
    ev.preventDefault();
  } else if (ev.key === "Home" || ev.key === "End") {
    focusCell(index(ev.key === "Home" ? 0 : state.n - 1, y, z));
    ev.preventDefault();
  } else if (ev.key === "Enter" || ev.key === " ") {
    clickCell(i);
    ev.preventDefault();
  } else if (state.mode === "edit" && ev.key.length === 1 && lettersOf(state.variant).includes(ev.key)) {
    state.cursor = i;
    editCell(cellName(i), ev.key);
    ev.preventDefault();
  } else if (state.mode === "edit" && ["Delete", "Backspace", "#", "."].includes(ev.key)) {
    state.cursor = i;
    editCell(cellName(i), "");
    ev.preventDefault();
  }
});

// The lines across the levels follow the pointer: a piece's lines, the column under it.
$("boards").addEventListener("mouseover", (ev) => {
  const i = cellFromEvent(ev);
  if (i !== state.hover) { state.hover = i; paint(); }
});
$("boards").addEventListener("mouseleave", () => {
  if (state.hover >= 0) { state.hover = -1; paint(); }
});
$("boards").addEventListener("focusin", (ev) => {
  const i = cellFromEvent(ev);
  if (i >= 0 && i !== state.cursor) { state.cursor = i; paint(); }
});

// Drag and drop: a board cell or a palette chip is the source, a board cell the target.
$("boards").addEventListener("dragstart", (ev) => {
  const i = cellFromEvent(ev);
  if (i < 0 || !state.cells[i] || (state.mode === "play" && !ownPiece(state.cells[i]))) { ev.preventDefault(); return; }
  state.drag = { from: i };
  ev.dataTransfer.setData("text/plain", state.cells[i]);
  ev.dataTransfer.effectAllowed = "move";
  state.selected = i; // show where the piece may legally go while it is carried
  paint();
});

$("boards").addEventListener("dragover", (ev) => {
  const i = cellFromEvent(ev);
  if (i < 0 || !state.drag) return;
  ev.preventDefault();
  ev.dataTransfer.dropEffect = state.drag.piece !== undefined ? "copy" : "move";
  for (const el of document.querySelectorAll(".cell.over")) if (Number(el.dataset.index) !== i) el.classList.remove("over");
  ev.target.closest(".cell").classList.add("over");
});

$("boards").addEventListener("dragleave", (ev) => {
  const el = ev.target.closest && ev.target.closest(".cell");
  if (el) el.classList.remove("over");
});

$("boards").addEventListener("drop", (ev) => {
  const i = cellFromEvent(ev);
  for (const el of document.querySelectorAll(".cell.over")) el.classList.remove("over");
  if (i < 0 || !state.drag) return;
  ev.preventDefault();
  const source = state.drag;
  state.drag = null;
  if (state.mode === "play") {
    if (source.from !== undefined && source.from !== i) moveTo(source.from, i);
    return;
  }
  if (source.piece !== undefined) { editCell(cellName(i), source.piece); return; }
  if (source.from === i) return;
  const from = cellName(source.from), to = cellName(i);
  whenLoaded(() => {
    const a = cellIndex(from), b = cellIndex(to);
    if (a < 0 || b < 0) return;
    state.cells[b] = state.cells[a];
    state.cells[a] = "";
    place(b, state.cells[b]);
  });
});

document.addEventListener("dragend", () => {
  state.drag = null;
  for (const el of document.querySelectorAll(".cell.over")) el.classList.remove("over");
});

export function renderPalette() {
  // The palette offers the pieces of the rules played (Raumschach's U and P only there).
  const offered = lettersOf(state.variant);
  for (const chip of document.querySelectorAll("#palette .chip")) {
    chip.hidden = chip.dataset.palette !== "" && !offered.includes(chip.dataset.palette);
  }
}

export function buildPalette() {
  const pal = $("palette");
  for (const p of [...LETTERS, ""]) {
    const chip = document.createElement("button");
    chip.type = "button";
    chip.className = p ? "chip" : "chip erase";
    chip.draggable = true;
    chip.dataset.palette = p;
    const label = p ? `${describe(p)} (${p})` : "eraser";
    chip.title = p ? `${label}: click to pick, then click cells; or drag onto a cell` : "eraser: click to pick, then click pieces to remove";
    chip.setAttribute("aria-label", label);
    chip.setAttribute("aria-pressed", "false");
    if (p) chip.append(glyphSpan(p)); else chip.textContent = "\u2715";
    chip.addEventListener("click", () => arm(state.armed === p ? null : p));
    chip.addEventListener("dragstart", (ev) => {
      state.drag = { piece: p };
      ev.dataTransfer.setData("text/plain", p || "#");
      ev.dataTransfer.effectAllowed = "copy";
    });
    pal.append(chip);
  }
  // Dropping a board piece back on the palette removes it.
  pal.addEventListener("dragover", (ev) => { if (state.drag && state.drag.from !== undefined && state.mode === "edit") ev.preventDefault(); });
  pal.addEventListener("drop", (ev) => {
    if (!state.drag || state.drag.from === undefined || state.mode !== "edit") return;
    ev.preventDefault();
    const from = state.drag.from;
    state.drag = null;
    place(from, "");
  });
}

/** The palette's tool: a piece letter, "" (the eraser) or null (a click cycles). */
export function arm(tool) {
  state.armed = tool;
  for (const chip of document.querySelectorAll("#palette .chip")) {
    chip.setAttribute("aria-pressed", String(tool !== null && chip.dataset.palette === tool));
  }
  $("pieces-hint").textContent = tool === null
    ? "Pick a piece, then click cells to place it (click the piece again to stop). "
      + `Without one, a click cycles ${[...lettersOf(state.variant)].join(" ")} and empty.`
    : tool === ""
      ? "Eraser: click a cell to empty it. Esc or ✕ again puts it away."
      : `Click a cell to place a ${describe(tool)} (click it again to remove). Esc puts it away.`;
}
