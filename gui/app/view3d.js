// The 3D view: the levels stacked in three.js, translucent, under a camera that orbits, zooms and
// pans (three's OrbitControls: mouse and touch; the arrow keys turn it, + and − zoom, 0 resets).
// It draws the model the layer view draws, with the same marks and the lines across the levels,
// and a click on a cell goes to the same handler as a click on the layers. It draws only when
// something changed (a camera move, a new position), never in a loop.
import * as THREE from "three";
import { OrbitControls } from "/three/OrbitControls.js";
import { state, coords, isWhite, cellName, cellIndex } from "./model.js";
import { pieceOf } from "./pieces.js";
import { levelName } from "./variants.js";
import { boardLines } from "./lines.js";

const COLORS = {
  light: 0xf0dcb8, dark: 0xb98a5e, selected: 0x5b8def, target: 0x9cc0ff, capture: 0x6f9cf5,
  king: 0x7fd18f, check: 0xf6a04d, mated: 0xe5534b, stalemated: 0x9aa4ad, checker: 0xf08c8c,
  keyFrom: 0xb79cf2, keyTo: 0x9a72ec, last: 0xc3dc5c, hint: 0x6fcf85, reach: 0xf7e27c,
  column: 0xd8e6f7, frame: 0x57606a,
};
const KEY_COLORS = [0x8250df, 0x1f883d, 0xbf3989, 0x0969da, 0x9a6700, 0xcf222e, 0x1b7c83, 0x6e7781];
const TURN = Math.PI / 12;      // an arrow key turns the camera by 15°
const ZOOM = 1.2;               // + and − change the distance by this factor
// No multisampling: in software WebGL it cost a third of each frame (docs/gui.md).
const ANTIALIAS = false;

/** A texture of a piece's glyph (or a key's number, a level's name): drawn once on a canvas,
 * reused. `wide` draws on a canvas twice as wide (a name like "V (E)"); `mirror` turns the
 * glyph about and `horn` adds a horn, as the pieces' table says (the unicorn). */
const textures = new Map();
function glyphTexture(text, fill, stroke, { wide = false, mirror = false, horn = false } = {}) {
  const key = `${text}|${fill}|${stroke}|${wide}|${mirror}|${horn}`;
  if (textures.has(key)) return textures.get(key);
  const size = 128;
  const canvas = document.createElement("canvas");
  canvas.width = wide ? 2 * size : size;
  canvas.height = size;
  const g = canvas.getContext("2d");
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
  textures.set(key, texture);
  return texture;
}
function pieceTexture(letter) {
  const piece = pieceOf(letter);
  const glyph = piece.glyph + "\uFE0E";
  const shape = { mirror: Boolean(piece.mirror), horn: Boolean(piece.horn) };
  return isWhite(letter) ? glyphTexture(glyph, "#fffdf8", "#1b1b1b", shape) : glyphTexture(glyph, "#161616", "#f6f8fa", shape);
}

export function createView3d({ canvas, onCell, onHover, settings, saveSettings }) {
  const renderer = new THREE.WebGLRenderer({ canvas, antialias: ANTIALIAS });
  renderer.setPixelRatio(Math.min(window.devicePixelRatio || 1, 2));
  renderer.setClearColor(0xeef1f4);
  const scene = new THREE.Scene();
  const camera = new THREE.PerspectiveCamera(40, 1, 0.1, 500);
  const controls = new OrbitControls(camera, canvas);
  controls.enableDamping = false; // no animation loop: a frame is drawn per change
  controls.listenToKeyEvents = undefined;
  const board = new THREE.Group();
  const marks3d = new THREE.Group();
  scene.add(board, marks3d);
  let squares = null, pieces = [], built = "", frameTimes = [], frames = 0, labels = [];
  let firstPicture = 0, pending = false, lastMarks = null;
  const color = new THREE.Color();
  const matrix = new THREE.Matrix4();

  const spacing = () => Number(settings.spacing);
  /** Cell i's centre in the scene: files along x, ranks away from the viewer, levels upwards. */
  function centre(i) {
    const [x, y, z] = coords(i);
    const c = (state.n - 1) / 2;
    return new THREE.Vector3(x - c, (z - c) * spacing(), c - y);
  }
  function shown(z) {
    const from = Math.min(settings.from, state.n) - 1, to = Math.min(settings.to, state.n) - 1;
    if (settings.levels === "one") return z === from;
    if (settings.levels === "slab") return z >= Math.min(from, to) && z <= Math.max(from, to);
    return true;
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
    for (let i = 0; i < n * n * n; i++) {
      const [, , z] = coords(i);
      const at = centre(i);
      matrix.makeTranslation(at.x, at.y, at.z);
      if (!shown(z)) matrix.makeScale(0, 0, 0); // a hidden level is neither drawn nor hit
      squares.setMatrixAt(i, matrix);
      squares.setColorAt(i, color.set(COLORS.light));
    }
    board.add(squares);
    // A frame and a name for each level shown.
    for (let z = 0; z < n; z++) {
      if (!shown(z)) continue;
      const y = (z - (n - 1) / 2) * spacing();
      const h = n / 2;
      const outline = new THREE.BufferGeometry().setFromPoints([
        new THREE.Vector3(-h, y, -h), new THREE.Vector3(h, y, -h), new THREE.Vector3(h, y, h),
        new THREE.Vector3(-h, y, h), new THREE.Vector3(-h, y, -h),
      ]);
      board.add(new THREE.Line(outline, new THREE.LineBasicMaterial({ color: COLORS.frame })));
      const name = levelName(state.variant, z);
      labels.push(name);
      const wide = name.length > 4;
      const label = new THREE.Sprite(new THREE.SpriteMaterial({
        map: glyphTexture(name, "#24292f", "#eef1f4", { wide }), depthTest: false,
      }));
      label.position.set(-h - (wide ? 0.9 : 0.6), y, h + 0.3);
      label.scale.set(wide ? 1.4 : 0.7, 0.7, 1);
      board.add(label);
    }
    built = `${n} ${state.variant}`;
  }

  function resetCamera() {
    const n = state.n;
    const height = (n - 1) * spacing();
    controls.target.set(0, 0, 0);
    const radius = 1.5 * Math.max(n, height) + 3;
    camera.position.setFromSpherical(new THREE.Spherical(radius, 1.05, 0.35));
    controls.update();
  }

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

  function render() {
    // One frame, timed to when the GPU (here the software rasteriser) has finished it.
    pending = false;
    resize();
    const t0 = performance.now();
    renderer.render(scene, camera);
    const gl = renderer.getContext();
    gl.readPixels(0, 0, 1, 1, gl.RGBA, gl.UNSIGNED_BYTE, new Uint8Array(4));
    const ms = performance.now() - t0;
    frameTimes.push(ms);
    if (frameTimes.length > 240) frameTimes.shift();
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
    requestAnimationFrame(render);
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
    group.add(new THREE.Line(geometry, new THREE.LineBasicMaterial({ color: hex, depthTest: false })));
  }
  function arrow(from, to, hex, number, group) {
    // A key: an arrow from its piece to its target, with its number at the start.
    const a = centre(from).add(new THREE.Vector3(0, 0.25, 0)), b = centre(to).add(new THREE.Vector3(0, 0.25, 0));
    const dir = b.clone().sub(a);
    const length = dir.length();
    const helper = new THREE.ArrowHelper(dir.normalize(), a, length, hex, Math.min(0.5, length / 3), 0.25);
    helper.line.material.depthTest = false;
    helper.cone.material.depthTest = false;
    group.add(helper);
    if (number) {
      const label = new THREE.Sprite(new THREE.SpriteMaterial({
        map: glyphTexture(String(number), `#${hex.toString(16).padStart(6, "0")}`, "#ffffff"), depthTest: false,
      }));
      label.position.copy(a.clone().lerp(b, 0.5)).add(new THREE.Vector3(0, 0.35, 0));
      label.scale.setScalar(0.6);
      group.add(label);
    }
  }

  function paint(marks) {
    lastMarks = marks;
    if (built !== `${state.n} ${state.variant}`) {
      const resized = !built.startsWith(`${state.n} `);
      build();
      if (resized) resetCameraOrRestore();
    }
    const lines = boardLines(marks);
    for (let i = 0; i < state.cells.length; i++) squares.setColorAt(i, color.set(squareColor(i, marks, lines)));
    squares.instanceColor.needsUpdate = true;
    squares.material.opacity = Number(settings.opacity);
    for (const sprite of pieces) sprite.removeFromParent();
    pieces = [];
    state.cells.forEach((p, i) => {
      if (!p || !shown(coords(i)[2])) return;
      const sprite = new THREE.Sprite(new THREE.SpriteMaterial({ map: pieceTexture(p), alphaTest: 0.2 }));
      sprite.position.copy(centre(i)).add(new THREE.Vector3(0, 0.42, 0));
      sprite.scale.setScalar(0.86);
      sprite.userData.cell = i;
      board.add(sprite);
      pieces.push(sprite);
    });
    marks3d.clear();
    for (const [a, b] of lines.rays) segment(centre(a), centre(b), 0xb08800, marks3d);
    if (lines.column.length) {
      segment(centre(lines.column[0]).add(new THREE.Vector3(0, -0.3, 0)),
        centre(lines.column[lines.column.length - 1]).add(new THREE.Vector3(0, 0.3, 0)), 0x0969da, marks3d);
    }
    for (const check of lines.checks) arrow(check.from, check.to, 0xcf222e, 0, marks3d);
    for (const key of lines.keys) arrow(key.from, key.to, KEY_COLORS[(key.number - 1) % KEY_COLORS.length], key.number, marks3d);
    if (marks.hint) arrow(marks.hint.from, marks.hint.to, 0x1f883d, 0, marks3d);
    if (marks.last) arrow(marks.last.from, marks.last.to, 0x7a9a01, 0, marks3d);
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
  controls.addEventListener("change", requestRender);
  controls.addEventListener("end", saveCamera);

  function turn(dTheta, dPhi, scale = 1) {
    const offset = camera.position.clone().sub(controls.target);
    const s = new THREE.Spherical().setFromVector3(offset);
    s.theta += dTheta;
    s.phi = Math.min(Math.PI - 0.05, Math.max(0.05, s.phi + dPhi));
    s.radius = Math.min(controls.maxDistance, Math.max(0.5, s.radius * scale));
    camera.position.copy(controls.target).add(new THREE.Vector3().setFromSpherical(s));
    controls.update();
    saveCamera();
  }
  canvas.addEventListener("keydown", (ev) => {
    if (ev.ctrlKey || ev.metaKey || ev.altKey) return;
    const act = {
      ArrowLeft: () => turn(-TURN, 0), ArrowRight: () => turn(TURN, 0),
      ArrowUp: () => turn(0, -TURN), ArrowDown: () => turn(0, TURN),
      "+": () => turn(0, 0, 1 / ZOOM), "=": () => turn(0, 0, 1 / ZOOM), "-": () => turn(0, 0, ZOOM),
      0: () => { resetCamera(); saveCamera(); }, Home: () => { resetCamera(); saveCamera(); },
    }[ev.key];
    if (!act) return;
    act();
    ev.preventDefault();
  });

  // Picking: the nearest thing under the pointer, a piece's figure or a level's square,
  // whichever the ray from the camera meets first; hidden levels are not hit. While a piece is
  // selected, one of its legal targets anywhere along the ray wins over nearer cells, so that
  // a move to a lower level can be clicked through the levels above it.
  const raycaster = new THREE.Raycaster();
  function cellAt(clientX, clientY, prefer = null) {
    const rect = canvas.getBoundingClientRect();
    if (clientX < rect.left || clientX > rect.right || clientY < rect.top || clientY > rect.bottom) return -1;
    const pointer = new THREE.Vector2(
      ((clientX - rect.left) / rect.width) * 2 - 1, -((clientY - rect.top) / rect.height) * 2 + 1);
    raycaster.setFromCamera(pointer, camera);
    const hits = raycaster.intersectObjects([squares, ...pieces], false);
    const cells = hits.map((hit) => (hit.object === squares ? hit.instanceId : hit.object.userData.cell));
    if (prefer) {
      const target = cells.find((i) => prefer.has(i));
      if (target !== undefined) return target;
    }
    return cells.length ? cells[0] : -1;
  }
  function pixelOf(i) {
    // The point on screen (client coordinates) of cell i's square centre.
    const rect = canvas.getBoundingClientRect();
    const p = centre(i).project(camera);
    return { x: rect.left + (p.x + 1) / 2 * rect.width, y: rect.top + (1 - p.y) / 2 * rect.height };
  }
  let down = null;
  canvas.addEventListener("pointerdown", (ev) => { down = { x: ev.clientX, y: ev.clientY }; });
  canvas.addEventListener("pointerup", (ev) => {
    // A click, not the end of a drag that turned the camera.
    if (!down || Math.hypot(ev.clientX - down.x, ev.clientY - down.y) > 5) { down = null; return; }
    down = null;
    const i = cellAt(ev.clientX, ev.clientY, lastMarks ? lastMarks.targets : null);
    if (i >= 0) onCell(i);
  });
  let hoverQueued = false, hoverAt = null;
  canvas.addEventListener("pointermove", (ev) => {
    hoverAt = ev;
    if (hoverQueued || ev.buttons) return;
    hoverQueued = true;
    requestAnimationFrame(() => {
      hoverQueued = false;
      onHover(cellAt(hoverAt.clientX, hoverAt.clientY));
    });
  });
  canvas.addEventListener("pointerleave", () => onHover(-1));
  new ResizeObserver(() => requestRender()).observe(canvas);

  const view = {
    paint,
    /** Levels shown, spacing or translucency changed: build the board again. */
    rebuild() { built = ""; if (lastMarks) paint(lastMarks); },
    reset() { resetCamera(); saveCamera(); requestRender(); },
    cellAt,
    pixelOf,
    /** Turn the camera a step and draw at once: for measuring frames. */
    step(dTheta) { turn(dTheta, 0); render(); },
    frameTimes: () => [...frameTimes],
    camera: () => {
      const s = new THREE.Spherical().setFromVector3(camera.position.clone().sub(controls.target));
      return { theta: s.theta, phi: s.phi, radius: s.radius };
    },
  };
  // The tests' hook: which cell lies under a pixel, where a cell lies on screen, the camera.
  window.cubemate3d = {
    cellAt: (x, y) => {
      const i = cellAt(x, y, lastMarks ? lastMarks.targets : null);
      return i >= 0 ? cellName(i) : null;
    },
    pixelOf: (name) => { const i = cellIndex(name); return i >= 0 ? pixelOf(i) : null; },
    camera: view.camera,
    /** The level labels drawn, bottom first: ["I (A)", …] in Raumschach. */
    labels: () => [...labels],
    step: view.step,
    frameTimes: view.frameTimes,
  };
  return view;
}
