// The 3D view: the levels stacked in three.js, translucent, under a camera that orbits, zooms and
// pans (three's OrbitControls: mouse and touch; the keys turn it, zoom it and choose presets).
// It draws the model the layer view draws, with the same marks and the lines across the levels,
// and hands a click on a cell to the controller's handler. It draws only when something changed
// (a camera move, a new position, a glide), never in a loop.
//
// What is seen is what is clicked: one function, pick(), names the cell under a pixel for the
// hover highlight and for the click alike. The figures are drawn after every level, nearest last
// and without depth test, so that no translucent level tints or hides them; pick() follows that
// order (the nearest figure whose opaque pixels lie under the pointer wins), then the squares. A
// click again on the same spot picks the next figure under it, and the hover shows that first.
import * as THREE from "three";
import { OrbitControls } from "/three/OrbitControls.js";
import { state, coords, isWhite, cellName, cellIndex, fileName } from "./model.js";
import { pieceOf } from "./pieces.js";
import { levelName } from "./variants.js";
import { boardLines } from "./lines.js";

const COLORS = {
  light: 0xf0dcb8, dark: 0xb98a5e, selected: 0x2f6feb, target: 0x6fa3ff, capture: 0x3d7bf5,
  king: 0x7fd18f, check: 0xf6a04d, mated: 0xe5534b, stalemated: 0x9aa4ad, checker: 0xf08c8c,
  keyFrom: 0xb79cf2, keyTo: 0x9a72ec, last: 0xc3dc5c, hint: 0x6fcf85, reach: 0xf7e27c,
  column: 0xd8e6f7, frame: 0x57606a, hover: 0xd1242f,
};
const KEY_COLORS = [0x8250df, 0x1f883d, 0xbf3989, 0x0969da, 0x9a6700, 0xcf222e, 0x1b7c83, 0x6e7781];
const TURN = Math.PI / 12;      // a camera key turns it by 15°
const ZOOM = 1.2;               // + and − change the distance by this factor
// No multisampling: in software WebGL it cost a third of each frame (docs/gui.md).
const ANTIALIAS = false;
// The resolution while a drag turns the camera, a share of the full one (docs/gui.md, "Speed").
const MOVING_RATIO = 0.6;
// Draw order: the levels, then the marks and coordinates, then the figures, then the hover ring.
const ORDER = { squares: 0, marks: 1, figures: 2, hover: 3 };
const FIGURE_SIZE = 0.86;       // a figure's sprite, in cells
const FIGURE_LIFT = 0.42;       // its centre above its square
const ALPHA_CUT = 0.2;          // a figure's texel counts (drawn, picked) above this opacity
const GLIDE_MS = 320;           // a move's glide
// A click this close (CSS pixels) to the previous one, nothing else changed, picks the next
// figure under it: a hand's jitter between two clicks, well inside a figure (≥ 20 px across);
// a finger's taps land farther apart.
const CYCLE_PX = 4;
const CYCLE_TOUCH_PX = 10;

// The presets: [theta (around the vertical, 0 = from rank 1), phi (from straight above)].
const PRESETS = {
  white: [0.35, 1.05], black: [Math.PI + 0.35, 1.05], top: [0, 0.3], side: [Math.PI / 2 + 0.35, 1.2],
};

/** A texture of a piece's glyph (or a key's number, a level's name): drawn once on a canvas,
 * reused, with its texels' opacity kept for picking and the points of its fill for the hook.
 * `wide` draws on a canvas twice as wide (a name like "V (E)"); `mirror` turns the glyph about
 * and `horn` adds a horn, as the pieces' table says (the unicorn). */
const textures = new Map();
function glyphTexture(text, fill, stroke, { wide = false, mirror = false, horn = false, keep = false } = {}) {
  const key = `${text}|${fill}|${stroke}|${wide}|${mirror}|${horn}`;
  if (textures.has(key)) return textures.get(key);
  const size = 128;
  const canvas = document.createElement("canvas");
  canvas.width = wide ? 2 * size : size;
  canvas.height = size;
  const g = canvas.getContext("2d", { willReadFrequently: keep });
  g.font = `${size * (wide ? 0.6 : 0.8)}px "DejaVu Sans", "Segoe UI Symbol", "Noto Sans Symbols2", serif`;
  g.textAlign = "center";
  g.textBaseline = "middle";
  g.lineJoin = "round";
  g.lineWidth = size * 0.06;
  if (mirror) { g.translate(canvas.width, 0); g.scale(-1, 1); }
  if (horn) {
    // On the unturned glyph's forehead (it faces left), pointing up and forwards.
    g.save();
    g.translate(size * 0.32, size * 0.25);
    g.rotate(-0.66);
    g.beginPath();
    g.moveTo(-size * 0.06, 0);
    g.lineTo(0, -size * 0.3);
    g.lineTo(size * 0.06, 0);
    g.closePath();
    g.fillStyle = "#d29b12";
    g.strokeStyle = "#1b1b1b";
    g.lineWidth = size * 0.025;
    g.fill();
    g.stroke();
    g.restore();
  }
  g.strokeStyle = stroke;
  g.strokeText(text, canvas.width / 2, size * 0.54);
  g.fillStyle = fill;
  g.fillText(text, canvas.width / 2, size * 0.54);
  const texture = new THREE.CanvasTexture(canvas);
  texture.colorSpace = THREE.SRGBColorSpace;
  if (keep) texture.userData = shapeOf(g.getImageData(0, 0, canvas.width, canvas.height), fill);
  textures.set(key, texture);
  return texture;
}

/** A figure's shape for picking: each texel's opacity, and the texels deep inside its fill
 * (fill-coloured with a fill-coloured ring around them), nearest the fill's middle first. */
function shapeOf(image, fill) {
  const { width, height, data } = image;
  const rgb = [1, 3, 5].map((k) => parseInt(fill.slice(k, k + 2), 16)); // "#rrggbb", as drawn
  const alpha = new Uint8Array(width * height);
  const isFill = new Uint8Array(width * height);
  for (let k = 0; k < width * height; k++) {
    alpha[k] = data[4 * k + 3];
    const near = Math.abs(data[4 * k] - rgb[0]) + Math.abs(data[4 * k + 1] - rgb[1]) + Math.abs(data[4 * k + 2] - rgb[2]);
    isFill[k] = alpha[k] === 255 && near < 24 ? 1 : 0;
  }
  // How deep inside the fill a texel lies: the largest ring (every 2 texels, up to 16) around
  // it that is all fill. The deepest texels come first: mipmapping blurs a small figure's edge
  // into its outline, never its middle.
  const fillAt = (x, y) => x >= 0 && y >= 0 && x < width && y < height && isFill[y * width + x] === 1;
  const core = [];
  for (let y = 2; y < height - 2; y += 2) {
    for (let x = 2; x < width - 2; x += 2) {
      let depth = 0;
      for (let r = 2; r <= 16 && fillAt(x, y); r += 2) {
        let all = true;
        for (let d = -r; all && d <= r; d += 2) {
          all = fillAt(x + d, y - r) && fillAt(x + d, y + r) && fillAt(x - r, y + d) && fillAt(x + r, y + d);
        }
        if (!all) break;
        depth = r;
      }
      // Texture coordinates: u to the right, v upwards (the canvas is flipped onto the sprite).
      if (depth >= 2) core.push([(x + 0.5) / width, 1 - (y + 0.5) / height, depth]);
    }
  }
  const mid = core.reduce((m, [u, v]) => [m[0] + u / core.length, m[1] + v / core.length], [0, 0]);
  const away = (p) => Math.hypot(p[0] - mid[0], p[1] - mid[1]);
  core.sort((a, b) => b[2] - a[2] || away(a) - away(b));
  return { width, height, alpha, core };
}

/** The shared material of a piece's figure: white ones light with a dark outline, black ones
 * dark with a light one; drawn after the levels without depth test (their order by distance
 * decides which of two overlapping figures shows). */
const figureMaterials = new Map();
function figureMaterial(letter) {
  if (figureMaterials.has(letter)) return figureMaterials.get(letter);
  const piece = pieceOf(letter);
  const glyph = piece.glyph + "\uFE0E";
  const shape = { mirror: Boolean(piece.mirror), horn: Boolean(piece.horn), keep: true };
  const map = isWhite(letter) ? glyphTexture(glyph, "#fffdf8", "#1b1b1b", shape) : glyphTexture(glyph, "#161616", "#f6f8fa", shape);
  const material = new THREE.SpriteMaterial({ map, alphaTest: ALPHA_CUT, transparent: true, depthTest: false, depthWrite: false });
  figureMaterials.set(letter, material);
  return material;
}

export function createView3d({ canvas, nameBox, onCell, onHover, settings, saveSettings, playerSide }) {
  const renderer = new THREE.WebGLRenderer({ canvas, antialias: ANTIALIAS });
  const pixelRatio = Math.min(window.devicePixelRatio || 1, 2);
  renderer.setPixelRatio(pixelRatio);
  renderer.setClearColor(0xeef1f4);
  const scene = new THREE.Scene();
  const camera = new THREE.PerspectiveCamera(40, 1, 0.1, 500);
  const controls = new OrbitControls(camera, canvas);
  controls.enableDamping = false; // no animation loop: a frame is drawn per change
  controls.listenToKeyEvents = undefined;
  const board = new THREE.Group();
  const marks3d = new THREE.Group();
  const figures = new THREE.Group();
  scene.add(board, marks3d, figures);
  let squares = null, built = "", frameTimes = [], frames = 0, labels = [];
  let firstPicture = 0, pending = false, lastMarks = null, hoverCell = -1, pointer = null;
  const sprites = new Map(); // cell → its figure's sprite
  let glide = null;           // {sprite, from, to, start} while a moved figure glides
  let glided = null;          // the last move whose glide was begun
  let figuresVersion = 0;     // counts changes of the figures drawn (added, removed, moved)
  let cycle = null;           // {x, y, reach, view, figures, cell} of the last click that picked a figure
  let hoverQueued = false;    // a hover waits for the next frame
  const color = new THREE.Color();
  const matrix = new THREE.Matrix4();

  const spacing = () => Number(settings.spacing);
  /** Cell i's centre in the scene: files along x, ranks away from the viewer, levels upwards. */
  function centre(i) {
    const [x, y, z] = coords(i);
    const c = (state.n - 1) / 2;
    return new THREE.Vector3(x - c, (z - c) * spacing(), c - y);
  }
  const figureCentre = (i) => centre(i).add(new THREE.Vector3(0, FIGURE_LIFT, 0));
  function shown(z) {
    const from = Math.min(settings.from, state.n) - 1, to = Math.min(settings.to, state.n) - 1;
    if (settings.levels === "one") return z === from;
    if (settings.levels === "slab") return z >= Math.min(from, to) && z <= Math.max(from, to);
    return true;
  }
  function shownLevels() {
    const out = [];
    for (let z = 0; z < state.n; z++) if (shown(z)) out.push(z);
    return out;
  }

  function textSprite(text, fill, stroke, at, height, order = ORDER.marks) {
    const wide = text.length > 2;
    const sprite = new THREE.Sprite(new THREE.SpriteMaterial({
      map: glyphTexture(text, fill, stroke, { wide }), depthTest: false, transparent: true,
    }));
    sprite.position.copy(at);
    sprite.scale.set(wide ? 2 * height : height, height, 1);
    sprite.renderOrder = order;
    return sprite;
  }

  function build() {
    // The board's cells as one instanced mesh (one draw call for up to 16³ squares).
    board.clear();
    labels = [];
    const n = state.n;
    const geometry = new THREE.PlaneGeometry(0.94, 0.94).rotateX(-Math.PI / 2);
    const material = new THREE.MeshBasicMaterial({
      transparent: true, opacity: Number(settings.opacity), depthWrite: false, side: THREE.DoubleSide,
    });
    squares = new THREE.InstancedMesh(geometry, material, n * n * n);
    squares.renderOrder = ORDER.squares;
    for (let i = 0; i < n * n * n; i++) {
      const [, , z] = coords(i);
      const at = centre(i);
      matrix.makeTranslation(at.x, at.y, at.z);
      if (!shown(z)) matrix.makeScale(0, 0, 0); // a hidden level is neither drawn nor hit
      squares.setMatrixAt(i, matrix);
      squares.setColorAt(i, color.set(COLORS.light));
    }
    board.add(squares);
    // A frame and a name for each level shown; the files and ranks along the lowest one's edges.
    const levels = shownLevels();
    const h = n / 2;
    for (const z of levels) {
      const y = (z - (n - 1) / 2) * spacing();
      const outline = new THREE.BufferGeometry().setFromPoints([
        new THREE.Vector3(-h, y, -h), new THREE.Vector3(h, y, -h), new THREE.Vector3(h, y, h),
        new THREE.Vector3(-h, y, h), new THREE.Vector3(-h, y, -h),
      ]);
      board.add(new THREE.Line(outline, new THREE.LineBasicMaterial({ color: COLORS.frame })));
      const name = levelName(state.variant, z);
      labels.push(name);
      // Beside its own rank along the left edge (level I by rank 1): from above the names
      // run up the edge instead of piling on one corner.
      const along = n <= 16 ? (n - 1) / 2 - z : h;
      board.add(textSprite(name, "#24292f", "#eef1f4", new THREE.Vector3(-h - 0.9, y, along), 0.6));
    }
    if (levels.length && n <= 26) {
      const y = (levels[0] - (n - 1) / 2) * spacing() - 0.05;
      const c = (n - 1) / 2;
      for (let k = 0; k < n; k++) {
        board.add(textSprite(fileName(k), "#24292f", "#eef1f4", new THREE.Vector3(k - c, y, h + 0.45), 0.45));
        board.add(textSprite(String(k + 1), "#24292f", "#eef1f4", new THREE.Vector3(h + 0.45, y, c - k), 0.45));
      }
    }
    built = `${n} ${state.variant} ${levels.join(",")} ${spacing()}`;
  }

  // ------------------------------------------------------------------ the camera
  /** The camera looking from (theta, phi) at the levels shown, as close as lets all of them
   * (and their labels) fit the view with a margin. */
  function frame(theta, phi) {
    const n = state.n, levels = shownLevels();
    const lo = ((levels[0] ?? 0) - (n - 1) / 2) * spacing(), hi = ((levels[levels.length - 1] ?? 0) - (n - 1) / 2) * spacing();
    const h = n / 2;
    const centreY = (lo + hi) / 2 + 0.2;
    controls.target.set(0, centreY, 0);
    const corners = [];
    // The levels' names reach 1.5 left of the board, the ranks' numbers 0.8 right, the files'
    // letters 0.7 in front, the figures 0.9 above the top level.
    for (const x of [-h - 1.5, h + 0.8]) for (const y of [lo - 0.3, hi + 0.9]) for (const z of [-h, h + 0.7]) corners.push(new THREE.Vector3(x, y, z));
    const direction = new THREE.Vector3().setFromSpherical(new THREE.Spherical(1, phi, theta));
    resize();
    const fits = (radius) => {
      camera.position.copy(controls.target).addScaledVector(direction, radius);
      camera.lookAt(controls.target);
      camera.updateMatrixWorld();
      return corners.every((p) => {
        const q = p.clone().project(camera);
        return Math.abs(q.x) <= 0.94 && Math.abs(q.y) <= 0.92 && q.z < 1;
      });
    };
    let near = 1, far = 4 * n * Math.max(1, spacing()) + 20;
    for (let k = 0; k < 24; k++) { const mid = (near + far) / 2; if (fits(mid)) far = mid; else near = mid; }
    camera.position.copy(controls.target).addScaledVector(direction, far);
    controls.update();
  }
  function preset(name) {
    // White's and Black's views, from above and from the side; "player": the side the person plays.
    const side = name === "player" ? (playerSide() === "b" ? "black" : "white") : name;
    const [theta, phi] = PRESETS[side] || PRESETS.white;
    const flip = side === "top" && playerSide() === "b" ? Math.PI : 0;
    frame(theta + flip, phi);
  }
  const resetCamera = () => preset("player");

  function resize() {
    const width = canvas.clientWidth, height = canvas.clientHeight;
    if (!width || !height) return;
    if (canvas.width !== Math.round(width * renderer.getPixelRatio())
        || canvas.height !== Math.round(height * renderer.getPixelRatio())) {
      renderer.setSize(width, height, false);
      camera.aspect = width / height;
      camera.updateProjectionMatrix();
    }
  }

  function render(timed = false) {
    // One frame. A timed one (step(), gui.frames) waits until the GPU (here the software
    // rasteriser) has finished it; the others do not stall the pipeline for that.
    pending = false;
    resize();
    const now = performance.now();
    if (glide) {
      const t = Math.min(1, (now - glide.start) / GLIDE_MS);
      const ease = t * t * (3 - 2 * t);
      glide.sprite.position.lerpVectors(glide.from, glide.to, ease);
      glide.sprite.position.y += Math.sin(Math.PI * t) * 0.6; // it climbs over what lies between
      if (t < 1) requestRender();
      else { glide.sprite.position.copy(glide.to); glide = null; canvas.dataset.gliding = "0"; }
    }
    const t0 = performance.now();
    renderer.render(scene, camera);
    if (timed) {
      const gl = renderer.getContext();
      gl.readPixels(0, 0, 1, 1, gl.RGBA, gl.UNSIGNED_BYTE, new Uint8Array(4));
      frameTimes.push(performance.now() - t0);
      if (frameTimes.length > 240) frameTimes.shift();
    }
    frames += 1;
    canvas.dataset.frames = String(frames);
    if (!firstPicture) {
      firstPicture = performance.now();
      document.body.dataset.firstPicture = firstPicture.toFixed(0);
    }
  }
  function requestRender() {
    if (pending) return;
    pending = true;
    requestAnimationFrame(() => render());
  }

  function squareColor(i, marks, lines) {
    const { status, checkers, targets, keyFrom, keyTo, king, last, hint } = marks;
    if (i === king) {
      return { checkmate: COLORS.mated, check: COLORS.check, stalemate: COLORS.stalemated }[status] || COLORS.king;
    }
    if (checkers.has(i)) return COLORS.checker;
    if (i === state.selected) return COLORS.selected;
    if (targets.has(i)) return targets.get(i) ? COLORS.capture : COLORS.target;
    if (keyTo.has(i)) return COLORS.keyTo;
    if (keyFrom.has(i)) return COLORS.keyFrom;
    if (hint && (i === hint.from || i === hint.to)) return COLORS.hint;
    if (last && (i === last.from || i === last.to)) return COLORS.last;
    if (lines.reach.has(i) || lines.checkCells.has(i)) return COLORS.reach;
    const [x, y, z] = coords(i);
    if (lines.column.includes(i)) return COLORS.column;
    return (x + y + z) % 2 === 0 ? COLORS.dark : COLORS.light;
  }

  function segment(a, b, hex, group) {
    const geometry = new THREE.BufferGeometry().setFromPoints([a, b]);
    const line = new THREE.Line(geometry, new THREE.LineBasicMaterial({ color: hex, depthTest: false, transparent: true }));
    line.renderOrder = ORDER.marks;
    group.add(line);
  }
  function arrow(from, to, hex, number, group) {
    // A key: an arrow from its piece to its target, with its number at the start.
    const a = centre(from).add(new THREE.Vector3(0, 0.25, 0)), b = centre(to).add(new THREE.Vector3(0, 0.25, 0));
    const dir = b.clone().sub(a);
    const length = dir.length();
    const helper = new THREE.ArrowHelper(dir.normalize(), a, length, hex, Math.min(0.5, length / 3), 0.25);
    for (const part of [helper.line, helper.cone]) {
      part.material.depthTest = false;
      part.material.transparent = true;
      part.renderOrder = ORDER.marks;
    }
    group.add(helper);
    if (number) {
      const at = a.clone().lerp(b, 0.5).add(new THREE.Vector3(0, 0.35, 0));
      group.add(textSprite(String(number), `#${hex.toString(16).padStart(6, "0")}`, "#ffffff", at, 0.6));
    }
  }
  function ring(i, hex, group, order = ORDER.hover) {
    // A square's outline drawn over everything: the cell under the pointer, the last move's ends.
    const at = centre(i);
    const r = 0.5;
    const points = [[-r, -r], [r, -r], [r, r], [-r, r], [-r, -r]].map(([dx, dz]) => new THREE.Vector3(at.x + dx, at.y + 0.01, at.z + dz));
    const line = new THREE.Line(new THREE.BufferGeometry().setFromPoints(points),
      new THREE.LineBasicMaterial({ color: hex, depthTest: false, transparent: true }));
    line.renderOrder = order;
    group.add(line);
  }

  function placeFigures(marks) {
    // One sprite per piece shown, kept from paint to paint; a moved piece glides to its cell.
    const last = marks.last;
    const moved = last && last !== glided && state.cells[last.to] && shown(coords(last.from)[2]) ? last : null;
    if (last) glided = last;
    const wanted = new Map();
    state.cells.forEach((p, i) => { if (p && shown(coords(i)[2])) wanted.set(i, p); });
    const before = figuresVersion;
    for (const [i, sprite] of sprites) {
      if (wanted.get(i) !== sprite.userData.letter) { sprite.removeFromParent(); sprites.delete(i); figuresVersion += 1; }
    }
    for (const [i, p] of wanted) {
      if (sprites.has(i)) continue;
      figuresVersion += 1;
      const sprite = new THREE.Sprite(figureMaterial(p));
      sprite.position.copy(figureCentre(i));
      sprite.scale.setScalar(FIGURE_SIZE);
      sprite.renderOrder = ORDER.figures;
      sprite.userData = { cell: i, letter: p };
      figures.add(sprite);
      sprites.set(i, sprite);
    }
    if (moved && sprites.has(moved.to)) {
      glide = { sprite: sprites.get(moved.to), from: figureCentre(moved.from), to: figureCentre(moved.to), start: performance.now() };
      glide.sprite.position.copy(glide.from);
      canvas.dataset.gliding = "1";
    }
    // Picked at once, before the next frame draws them.
    figures.updateMatrixWorld();
    return figuresVersion !== before;
  }

  function paint(marks) {
    lastMarks = marks;
    const key = `${state.n} ${state.variant} ${shownLevels().join(",")} ${spacing()}`;
    if (built !== key) {
      const resized = !built.startsWith(`${state.n} `), was = built;
      for (const sprite of sprites.values()) sprite.removeFromParent();
      sprites.clear();
      figuresVersion += 1;
      glided = marks.last; // a board drawn afresh has nothing to glide
      build();
      if (resized) resetCameraOrRestore();
      else if (was) { const s = cameraNow(); frame(s.theta, s.phi); saveCamera(); } // other levels or spacing: framed again
    }
    const lines = boardLines(marks);
    for (let i = 0; i < state.cells.length; i++) squares.setColorAt(i, color.set(squareColor(i, marks, lines)));
    squares.instanceColor.needsUpdate = true;
    squares.material.opacity = Number(settings.opacity);
    // Other figures under the pointer: a click there picks afresh (no cycle), and the hover
    // says so before the next click.
    const placed = placeFigures(marks);
    if (placed && pointer && !dragging) { cycle = null; queueHover(); }
    else if (placed && !pointer) dropCycle(); // a lifted finger's hint no longer holds
    marks3d.clear();
    for (const [a, b] of lines.rays) segment(centre(a), centre(b), 0xb08800, marks3d);
    if (lines.column.length) {
      segment(centre(lines.column[0]).add(new THREE.Vector3(0, -0.3, 0)),
        centre(lines.column[lines.column.length - 1]).add(new THREE.Vector3(0, 0.3, 0)), 0x0969da, marks3d);
    }
    for (const check of lines.checks) arrow(check.from, check.to, 0xcf222e, 0, marks3d);
    for (const k of lines.keys) arrow(k.from, k.to, KEY_COLORS[(k.number - 1) % KEY_COLORS.length], k.number, marks3d);
    if (marks.hint) arrow(marks.hint.from, marks.hint.to, 0x1f883d, 0, marks3d);
    if (marks.last) {
      arrow(marks.last.from, marks.last.to, 0x7a9a01, 0, marks3d);
      for (const end of [marks.last.from, marks.last.to]) if (shown(coords(end)[2])) ring(end, 0x7a9a01, marks3d, ORDER.marks);
    }
    if (hoverCell >= 0 && hoverCell < state.cells.length) ring(hoverCell, COLORS.hover, marks3d);
    if (state.cursor >= 0 && document.activeElement === canvas && state.cursor < state.cells.length) ring(state.cursor, 0x0b1320, marks3d);
    requestRender();
  }

  // The camera survives a reload: saved when a move of it ends.
  function saveCamera() {
    settings.camera = { n: state.n, position: camera.position.toArray(), target: controls.target.toArray() };
    saveSettings();
  }
  function resetCameraOrRestore() {
    const saved = settings.camera;
    if (saved && saved.n === state.n && saved.position && saved.target) {
      camera.position.fromArray(saved.position);
      controls.target.fromArray(saved.target);
      controls.update();
    } else {
      resetCamera();
    }
  }
  // While a drag turns the camera nothing is picked (the pointer is on the move); when it ends,
  // what now lies under the pointer is lit.
  // While it turns, the view is drawn at MOVING_RATIO of its resolution (half the pixels to
  // fill in software WebGL), and sharp again the moment it stops.
  // A click is a drag that never moved the camera: it keeps the resolution (a new drawing buffer
  // each way cost a click some 3 ms) and saves nothing.
  let dragging = false, moved = false, sharpTimer = 0;
  function turning(on) {
    clearTimeout(sharpTimer);
    const ratio = pixelRatio * (on ? MOVING_RATIO : 1);
    if (renderer.getPixelRatio() !== ratio) renderer.setPixelRatio(ratio); // a new buffer: only on a change
    if (!on) requestRender();
  }
  controls.addEventListener("start", () => { dragging = true; moved = false; });
  controls.addEventListener("change", () => {
    dropCycle(); // the figures lie elsewhere on screen: the next click picks afresh
    if (dragging && !moved) { moved = true; turning(true); }
    requestRender();
    if (pointer && !dragging) hoverAt(pointer);
  });
  controls.addEventListener("end", () => {
    dragging = false;
    if (moved) { moved = false; turning(false); saveCamera(); }
    if (pointer) hoverAt(pointer);
  });

  function turn(dTheta, dPhi, scale = 1) {
    const offset = camera.position.clone().sub(controls.target);
    const s = new THREE.Spherical().setFromVector3(offset);
    s.theta += dTheta;
    s.phi = Math.min(Math.PI - 0.05, Math.max(0.02, s.phi + dPhi));
    s.radius = Math.min(controls.maxDistance, Math.max(0.5, s.radius * scale));
    camera.position.copy(controls.target).add(new THREE.Vector3().setFromSpherical(s));
    controls.update();
    saveCamera();
  }

  // ------------------------------------------------------------------ picking
  const raycaster = new THREE.Raycaster();
  const ndc = new THREE.Vector3();
  function rayAt(clientX, clientY) {
    const rect = canvas.getBoundingClientRect();
    if (clientX < rect.left || clientX >= rect.right || clientY < rect.top || clientY >= rect.bottom) return false;
    camera.updateMatrixWorld();
    raycaster.setFromCamera(new THREE.Vector2(
      ((clientX - rect.left) / rect.width) * 2 - 1, -((clientY - rect.top) / rect.height) * 2 + 1), camera);
    return true;
  }
  function opaqueAt(sprite, uv) {
    const shape = sprite.material.map.userData;
    const x = Math.min(shape.width - 1, Math.floor(uv.x * shape.width));
    const y = Math.min(shape.height - 1, Math.floor((1 - uv.y) * shape.height));
    return shape.alpha[y * shape.width + x] > ALPHA_CUT * 255;
  }
  /** The figures whose opaque pixels lie under (clientX, clientY), front to back: the order they
   * are drawn in, reversed (nearest last; of two at the same depth, the later made on top). */
  function stackAt(clientX, clientY) {
    return squares && rayAt(clientX, clientY) ? stackOnRay() : [];
  }
  /** stackAt for the ray rayAt last set. */
  function stackOnRay() {
    const found = [];
    for (const hit of raycaster.intersectObjects(figures.children, false)) {
      if (!opaqueAt(hit.object, hit.uv)) continue;
      found.push({ sprite: hit.object, z: ndc.setFromMatrixPosition(hit.object.matrixWorld).project(camera).z });
    }
    found.sort((a, b) => a.z - b.z || b.sprite.id - a.sprite.id);
    return found.map((f) => f.sprite.userData.cell);
  }

  // The click that cycles: after a click that picked a figure, a click within its reach
  // (CYCLE_PX; CYCLE_TOUCH_PX for a finger), with the camera, the view's place on the page and
  // the figures unchanged, picks the figure behind the one it picked, and after the last the
  // front one again. The hover asks pick() too, so that it lights that next figure first.
  function viewNow() {
    const r = canvas.getBoundingClientRect();
    return `${camera.matrixWorld.elements.join()}|${camera.projectionMatrix.elements.join()}|${r.left},${r.top},${r.width},${r.height}`;
  }
  /** Start the round afresh; the hint a lifted finger kept (below) goes with it. */
  function dropCycle() {
    cycle = null;
    if (!pointer && hoverCell !== -1) clearHover();
  }
  /** Nothing lit, nothing named in the corner. */
  function clearHover() {
    nameBox.textContent = "";
    if (hoverCell !== -1) { hoverCell = -1; onHover(-1); }
  }
  function cycleAt(clientX, clientY) {
    return cycle && Math.hypot(clientX - cycle.x, clientY - cycle.y) <= cycle.reach
      && cycle.figures === figuresVersion && !glide && cycle.view === viewNow() ? cycle : null;
  }

  /** The cell a click at (clientX, clientY) picks, and what of it: {cell, kind, stack, index} or
   * null. A figure under the pointer (`stack`, front to back): the front one, or, on the spot
   * of the last click that picked a figure, the one behind that (`index` in the stack; figures
   * are drawn nearest last, over every level); else, while a piece is selected, the one of its
   * legal targets along the ray whose middle is nearest the pointer, so that a target is picked
   * through the levels above it; else the nearest square of a level shown. The hover highlight
   * and the click both ask this. */
  function pick(clientX, clientY) {
    if (!squares || !rayAt(clientX, clientY)) return null;
    const stack = stackOnRay();
    if (stack.length) {
      const again = cycleAt(clientX, clientY);
      const index = again ? (stack.indexOf(again.cell) + 1) % stack.length : 0;
      return { cell: stack[index], kind: "figure", stack, index };
    }
    const hits = raycaster.intersectObject(squares, false);
    const targets = lastMarks ? lastMarks.targets : new Map();
    // Of the targets along the ray, the one whose middle is nearest the point hit on it: where
    // targets of several levels overlap on screen, each keeps the part around its own middle.
    let target = -1, off = Infinity;
    for (const hit of hits) {
      if (!targets.has(hit.instanceId)) continue;
      const d = hit.point.distanceTo(centre(hit.instanceId));
      if (d < off - 1e-9) { target = hit.instanceId; off = d; }
    }
    if (target >= 0) return { cell: target, kind: "square" };
    return hits.length ? { cell: hits[0].instanceId, kind: "square" } : null;
  }
  const cellAt = (clientX, clientY) => { const p = pick(clientX, clientY); return p ? p.cell : -1; };

  function toClient(point, rect) {
    const p = point.clone().project(camera);
    return { x: rect.left + (p.x + 1) / 2 * rect.width, y: rect.top + (1 - p.y) / 2 * rect.height };
  }
  /** A point on screen (client coordinates) that picks cell i's figure (kind "figure") or its
   * square ("square"), nearest the figure's or the square's middle; null if none is visible.
   * Kind "stack": a point where the figure lies under the pointer, in front of others or behind
   * them (clicks there pick it within as many clicks as figures lie there), and under the pixels
   * 2 px around it, nearest the figure's middle. */
  function pixelOf(i, kind = "square") {
    if (!squares) return null;
    camera.updateMatrixWorld();
    const rect = canvas.getBoundingClientRect();
    const candidates = [];
    if (kind === "figure" || kind === "stack") {
      const sprite = sprites.get(i);
      if (!sprite) return null;
      const right = new THREE.Vector3().setFromMatrixColumn(camera.matrixWorld, 0);
      const up = new THREE.Vector3().setFromMatrixColumn(camera.matrixWorld, 1);
      const { core } = sprite.material.map.userData;
      const step = Math.max(1, Math.floor(core.length / 200));
      for (let k = 0; k < core.length; k += step) {
        const [u, v] = core[k];
        candidates.push(sprite.position.clone().addScaledVector(right, (u - 0.5) * sprite.scale.x)
          .addScaledVector(up, (v - 0.5) * sprite.scale.y));
      }
    } else {
      if (!shown(coords(i)[2])) return null;
      const at = centre(i), grid = [];
      for (let a = -4; a <= 4; a++) for (let b = -4; b <= 4; b++) grid.push([a * 0.1, b * 0.1]);
      grid.sort((p, q) => Math.hypot(...p) - Math.hypot(...q));
      for (const [dx, dz] of grid) candidates.push(new THREE.Vector3(at.x + dx, at.y, at.z + dz));
    }
    // Visible: inside the canvas and inside the window (a page scrolled shows part of it).
    const left = Math.max(rect.left, 0), top = Math.max(rect.top, 0);
    const right = Math.min(rect.right, window.innerWidth), bottom = Math.min(rect.bottom, window.innerHeight);
    for (const point of candidates) {
      const { x, y } = toClient(point, rect);
      if (x < left + 2 || x >= right - 2 || y < top + 2 || y >= bottom - 2) continue;
      if (kind === "stack") {
        const under = (dx, dy) => stackAt(x + dx, y + dy).includes(i);
        if (under(0, 0) && under(-2, -2) && under(2, -2) && under(-2, 2) && under(2, 2)) return { x, y };
        continue;
      }
      // The pixels around it pick the same: a point inside what is seen, not on its edge.
      const same = (dx, dy) => { const p = pick(x + dx, y + dy); return p && p.cell === i && p.kind === kind; };
      const r = kind === "figure" ? 2 : 1;
      if (same(0, 0) && same(-r, -r) && same(r, -r) && same(-r, r) && same(r, r)) return { x, y };
    }
    return null;
  }

  // ------------------------------------------------------------------ the pointer
  /** The cell's name and piece in the view's corner; on a stack of figures, which of them this
   * is and what a click again there picks: "c2(I) · white rook · 1 of 2 here, click again: c2(II)". */
  function describeCell(i, p) {
    const name = `${cellName(i)}${state.cells[i] ? ` · ${describePiece(state.cells[i])}` : ""}`;
    if (!p || p.kind !== "figure" || p.stack.length < 2) return name;
    const next = p.stack[(p.index + 1) % p.stack.length];
    return `${name} · ${p.index + 1} of ${p.stack.length} here, click again: ${cellName(next)}`;
  }
  function hoverAt(ev) {
    hoverQueued = false;
    // The pointer left the spot of the last click: a click back there picks afresh.
    if (cycle && Math.hypot(ev.clientX - cycle.x, ev.clientY - cycle.y) > cycle.reach) cycle = null;
    const p = pick(ev.clientX, ev.clientY);
    const i = p ? p.cell : -1;
    nameBox.textContent = i >= 0 ? describeCell(i, p) : "";
    if (i !== hoverCell) { hoverCell = i; onHover(i); }
    return p;
  }
  /** The hover at the pointer, at the next frame (a pointer move, other figures under it). */
  function queueHover() {
    if (hoverQueued) return;
    hoverQueued = true;
    requestAnimationFrame(() => { if (hoverQueued && pointer) hoverAt(pointer); hoverQueued = false; });
  }
  let down = null;
  canvas.addEventListener("pointerdown", (ev) => { down = { x: ev.clientX, y: ev.clientY }; });
  canvas.addEventListener("pointerup", (ev) => {
    // A click, not the end of a drag that turned the camera.
    if (!down || Math.hypot(ev.clientX - down.x, ev.clientY - down.y) > 5) { down = null; return; }
    down = null;
    pointer = { clientX: ev.clientX, clientY: ev.clientY };
    const p = hoverAt(pointer); // what is lit is what is played: the same pick, now
    if (hoverCell >= 0) onCell(hoverCell);
    // A figure picked: a click again here picks the one behind it, and the hover lights that now.
    const reach = ev.pointerType === "touch" ? CYCLE_TOUCH_PX : CYCLE_PX;
    cycle = p && p.kind === "figure" && !glide
      ? { x: ev.clientX, y: ev.clientY, reach, view: viewNow(), figures: figuresVersion, cell: p.cell } : null;
    hoverAt(pointer);
  });
  canvas.addEventListener("pointermove", (ev) => {
    pointer = { clientX: ev.clientX, clientY: ev.clientY };
    if (!ev.buttons) queueHover();
  });
  canvas.addEventListener("pointerleave", (ev) => {
    pointer = null;
    hoverQueued = false;
    // A finger leaves at every lift, and its next tap may come back. A phone has no hover, so
    // while a tap again there picks the figure behind, the cell lit and the corner stay,
    // saying which, until the round starts afresh (dropCycle).
    if (ev.pointerType === "touch" && cycle) return;
    cycle = null;
    clearHover();
  });
  new ResizeObserver(() => requestRender()).observe(canvas);

  // ------------------------------------------------------------------ the keyboard
  // Shift or not: the arrows turn the camera (with Shift: tilt and turn); W A S D move the
  // cursor across files and ranks, R and F up and down the levels; Enter or Space clicks it.
  canvas.addEventListener("keydown", (ev) => {
    if (ev.ctrlKey || ev.metaKey || ev.altKey) return;
    const n = state.n;
    const [x, y, z] = coords(Math.max(0, state.cursor));
    const flip = playerSide() === "b" ? -1 : 1; // the cursor's "forward" is away from the player
    const step = { w: [0, flip, 0], s: [0, -flip, 0], a: [-flip, 0, 0], d: [flip, 0, 0], r: [0, 0, 1], f: [0, 0, -1] }[ev.key.toLowerCase()];
    const act = {
      ArrowLeft: () => turn(-TURN, 0), ArrowRight: () => turn(TURN, 0),
      ArrowUp: () => turn(0, -TURN), ArrowDown: () => turn(0, TURN),
      "+": () => turn(0, 0, 1 / ZOOM), "=": () => turn(0, 0, 1 / ZOOM), "-": () => turn(0, 0, ZOOM),
      0: () => { resetCamera(); saveCamera(); }, Home: () => { resetCamera(); saveCamera(); },
      1: () => { preset("white"); saveCamera(); }, 2: () => { preset("black"); saveCamera(); },
      3: () => { preset("top"); saveCamera(); }, 4: () => { preset("side"); saveCamera(); },
      Enter: () => onCell(Math.max(0, state.cursor)), " ": () => onCell(Math.max(0, state.cursor)),
    }[ev.key];
    if (step) {
      const [a, b, c] = [x + step[0], y + step[1], z + step[2]];
      if ([a, b, c].every((v) => v >= 0 && v < n)) state.cursor = a + n * b + n * n * c;
      nameBox.textContent = `${cellName(state.cursor)}${state.cells[state.cursor] ? ` · ${describePiece(state.cells[state.cursor])}` : ""}`;
      if (lastMarks) paint(lastMarks);
    } else if (act) act();
    else return;
    ev.preventDefault();
  });
  canvas.addEventListener("focus", () => { if (lastMarks) paint(lastMarks); });
  canvas.addEventListener("blur", () => { if (lastMarks) paint(lastMarks); });

  function cameraNow() {
    const s = new THREE.Spherical().setFromVector3(camera.position.clone().sub(controls.target));
    return { theta: s.theta, phi: s.phi, radius: s.radius };
  }
  const view = {
    paint,
    /** Levels shown, spacing or translucency changed: build the board again and frame it. */
    rebuild() { if (lastMarks) paint(lastMarks); },
    reset() { resetCamera(); saveCamera(); requestRender(); },
    preset(name) { preset(name); saveCamera(); requestRender(); },
    /** Turn the camera a step and draw at once: for measuring frames. */
    step(dTheta) {
      turning(true);
      turn(dTheta, 0);
      render(true);
      sharpTimer = setTimeout(() => turning(false), 200); // as a drag's end would
    },
  };
  const name = (i) => (i >= 0 ? cellName(i) : null);
  // The tests' hook (docs/gui.md): what a pixel picks, a visible pixel that picks a cell's figure
  // or square, the cell lit under the pointer, the camera, the level labels drawn.
  window.cubemate3d = {
    cellAt: (x, y) => name(cellAt(x, y)),
    pixelOf: (cell, kind = "square") => { const i = cellIndex(cell); return i >= 0 ? pixelOf(i, kind) : null; },
    /** The cell lit under the pointer (a pointer move still waiting for its frame taken first). */
    hovered: () => { if (hoverQueued && pointer) hoverAt(pointer); return name(hoverCell); },
    /** The cells of the figures under that point, front to back. */
    figuresAt: (x, y) => stackAt(x, y).map(name),
    /** The camera (theta, phi, radius); given theta and phi (radians, as the presets), it is
     * first turned there and framed as a preset is. */
    camera: (theta, phi) => { if (theta !== undefined) { frame(theta, phi); saveCamera(); requestRender(); } return cameraNow(); },
    /** The level labels drawn, bottom first: ["I (A)", …] in Raumschach. */
    labels: () => [...labels],
    step: view.step,
    frameTimes: () => [...frameTimes],
    gliding: () => glide !== null,
  };
  return view;
}

function describePiece(p) {
  return `${isWhite(p) ? "white" : "black"} ${pieceOf(p).name}`;
}
