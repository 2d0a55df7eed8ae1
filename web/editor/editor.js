// biped_stack style editor (issue #17): edits one style through the server's JSON API
// (biped_stack/editor/server.py). The server validates every edit with the style loader and
// evaluates the curves and the planner's preview; this page draws and sends edits, nothing more.
"use strict";

const SVG_NS = "http://www.w3.org/2000/svg";
const $ = (id) => document.getElementById(id);

const editor = {
  state: null,        // GET /api/state
  sampleKey: "forward_slow",
  sample: null,       // GET /api/sample
  velocity: [0.3, 0.0, 0.0],
  preview: null,      // POST /api/preview
};
window.editor = editor;

// -- API: every request counts in body[data-pending], so a test can wait for the page to settle.
async function api(method, path, body) {
  const pending = () => Number(document.body.dataset.pending);
  document.body.dataset.pending = String(pending() + 1);
  try {
    const response = await fetch(path, {
      method, headers: { "Content-Type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const type = response.headers.get("Content-Type") || "";
    if (type.includes("json")) return await response.json();
    const text = await response.text();
    return response.ok ? text : { ok: false, errors: [{ field: "server", message: `${response.status}: ${text}` }] };
  } catch (error) {
    // The server stopped or restarted: say so, and let the next action try again.
    editor.offline = true;
    const failure = { ok: false, errors: [{ field: "server", message:
      `the editor server is not reachable (${error.message}); start it again — the page retries on your next action` }] };
    status(failure.errors[0].message, true);
    throw new ServerUnreachable(failure);
  } finally {
    document.body.dataset.pending = String(pending() - 1);
  }
}

window.editorApi = api;  // the 3D view (view3d.js, a module) asks the same server the same way

class ServerUnreachable extends Error {
  constructor(failure) { super(failure.errors[0].message); this.failure = failure; }
}

// Every user action runs through here: an unreachable server ends it with the message shown
// (never an uncaught error); the first action that reaches the server again reloads the page's state.
function action(handler) {
  return async (...args) => {
    try {
      if (editor.offline) {
        await loadState();
        await loadSample();
        editor.offline = false;
        status("the editor server is back: the document shown is the server's");
      }
      await handler(...args);
    } catch (error) {
      if (!(error instanceof ServerUnreachable)) status(`error in the page: ${error.message}`, true);
    }
  };
}

function status(text, isError = false) {
  const el = $("status");
  el.textContent = text;
  el.classList.toggle("error", isError);
}

function svg(tag, attrs = {}, parent = null, text = null) {
  const el = document.createElementNS(SVG_NS, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, v);
  if (text !== null) el.textContent = text;
  if (parent) parent.appendChild(el);
  return el;
}

function fmt(x, digits = 4) { return Number(x).toFixed(digits); }

// A typed field's text: a finite number when it is one, else the text (the server refuses it by field).
function parseTyped(text) {
  const trimmed = text.trim();
  const x = Number(trimmed);
  return trimmed !== "" && Number.isFinite(x) ? x : trimmed;
}

// A linear map from [d0, d1] to [r0, r1] and back.
function scale(d0, d1, r0, r1) {
  const f = (x) => r0 + (x - d0) * (r1 - r0) / (d1 - d0);
  f.invert = (y) => d0 + (y - r0) * (d1 - d0) / (r1 - r0);
  return f;
}

function pointerIn(svgEl, event) {
  const rect = svgEl.getBoundingClientRect();
  return [event.clientX - rect.left, event.clientY - rect.top];
}

// Drag with pointer capture: onMove(x, y) while dragging, onEnd(x, y) on release.
function draggable(el, svgEl, onMove, onEnd) {
  el.addEventListener("pointerdown", (event) => {
    event.preventDefault();
    el.setPointerCapture(event.pointerId);
    const move = (e) => onMove(...pointerIn(svgEl, e), e);
    const up = (e) => {
      el.releasePointerCapture(event.pointerId);
      el.removeEventListener("pointermove", move);
      el.removeEventListener("pointerup", up);
      onEnd(...pointerIn(svgEl, e), e);
    };
    el.addEventListener("pointermove", move);
    el.addEventListener("pointerup", up);
  });
}

// -- the document ------------------------------------------------------------------------------
async function loadState() {
  editor.state = await api("GET", "/api/state");
  const s = editor.state;
  $("style-name").textContent = `${s.name} on ${s.robot}`;
  $("style-source").textContent = s.source;
  if (!$("save-path").value) $("save-path").value = s.save_path;
  $("undo").disabled = !s.can_undo;
  $("redo").disabled = !s.can_redo;
  $("apply-live").hidden = !s.attached;
  $("live-log").hidden = !s.attached;
  $("live-log").textContent = s.live_log.length ? `robot: ${s.live_log[s.live_log.length - 1]}` : "robot: nothing sent yet";
  renderSamples();
}

function renderSamples() {
  const nav = $("samples");
  nav.replaceChildren();
  for (const { key, velocity } of editor.state.samples) {
    const button = document.createElement("button");
    button.dataset.sample = key;
    button.classList.toggle("selected", key === editor.sampleKey);
    button.innerHTML = `${key}<small>[${velocity.map((v) => fmt(v, 2)).join(", ")}]</small>`;
    button.addEventListener("click", action(() => selectSample(key)));
    nav.appendChild(button);
  }
}

async function selectSample(key) {
  editor.sampleKey = key;
  renderSamples();
  await loadSample();
  const v = editor.state.samples.find((s) => s.key === key).velocity;
  await setVelocity(v);
}

async function loadSample() {
  editor.sample = await api("GET", `/api/sample?key=${editor.sampleKey}`);
  $("sample-title").textContent = `${editor.sampleKey} — key velocity [${editor.sample.velocity.join(", ")}]`;
  renderTiming();
  renderAttributes();
  renderCurves();
}

function fieldsOf(prefix) { return editor.sample.fields.filter((f) => f.path.startsWith(prefix)); }

function showErrors(where, errors) {
  const box = document.querySelector(`[data-error-for="${where}"]`);
  if (box) box.textContent = errors.map((e) => `${e.field}: ${e.message}`).join("\n");
}

function clearErrors() {
  for (const box of document.querySelectorAll(".field-error")) box.textContent = "";
}

// One edit of the selected sample: refused edits leave the document unchanged and show why
// beside the field (``where``).
async function commit(changes, where) {
  const result = await api("POST", "/api/edit", { sample: editor.sampleKey, changes });
  if (!result.ok) {
    await loadSample();
    showErrors(where, result.errors);
    status(`refused: ${result.errors.map((e) => e.message).join("; ")}`, true);
    return false;
  }
  await afterChange(`edited ${Object.keys(changes).join(", ")} of ${editor.sampleKey}`);
  return true;
}

async function afterChange(message) {
  clearErrors();
  await loadState();
  await loadSample();
  await refreshPreview();
  status(message);
}

// -- timing: the cycle's five events on a timeline ---------------------------------------------
const TIMING_NAMES = ["double_support_after_right_s", "left_swing_s", "double_support_after_left_s", "right_swing_s"];
const EVENT_NAMES = ["right touch-down", "left lift-off", "left touch-down", "right lift-off", "right touch-down"];

function renderTiming() {
  const box = $("timing");
  box.replaceChildren();
  const specs = TIMING_NAMES.map((n) => editor.sample.fields.find((f) => f.path === `timing.${n}`));
  const intervals = specs.map((f) => f.value);
  const width = 560, height = 62;
  const root = svg("svg", { width, height, id: "timing-svg" }, box);
  const total = intervals.reduce((a, b) => a + b, 0);
  const x = scale(0, Math.max(total * 1.3, 0.5), 20, width - 20);
  const events = [0];
  for (const d of intervals) events.push(events[events.length - 1] + d);
  const bars = svg("g", {}, root);
  const handles = svg("g", {}, root);
  const draw = (ev) => {
    bars.replaceChildren();
    for (let i = 0; i < 4; i++) {
      const d = ev[i + 1] - ev[i];
      const out = d < specs[i].low - 1e-9 || d > specs[i].high + 1e-9;
      const cls = i === 1 ? "left" : i === 3 ? "right" : "";
      svg("rect", { x: x(ev[i]), y: 18, width: Math.max(1, x(ev[i + 1]) - x(ev[i])), height: 14,
                    class: cls, opacity: cls ? 0.5 : 0.15, fill: cls ? undefined : "#555" }, bars);
      svg("text", { x: (x(ev[i]) + x(ev[i + 1])) / 2, y: 48, "text-anchor": "middle",
                    class: out ? "knot-label out" : "", "data-interval": TIMING_NAMES[i] },
          bars, `${fmt(d, 3)} s${out ? ` (≥ ${specs[i].low})` : ""}`);
    }
    svg("text", { x: x(ev[4]) + 6, y: 29 }, bars, `cycle ${fmt(ev[4], 3)} s`);
  };
  draw(events);
  events.forEach((t, i) => {
    if (i === 0) return;
    const handle = svg("rect", { x: x(t) - 4, y: 12, width: 8, height: 26, class: "event",
                                 "data-event": i }, handles);
    svg("title", {}, handle, EVENT_NAMES[i]);
    let current = events.slice();
    draggable(handle, root, (px) => {
      current = events.slice();
      const shift = Math.round(x.invert(px) * 1000) / 1000 - events[i];
      // Moving an event moves the later ones with it when it is the cycle's end, else only the
      // two intervals beside it change.
      if (i === 4) current[4] += shift; else current[i] += shift;
      handle.setAttribute("x", x(current[i]) - 4);
      draw(current);
    }, () => {
      const changes = {};
      for (let k = 0; k < 4; k++) {
        const d = Math.round((current[k + 1] - current[k]) * 1000) / 1000;
        if (Math.abs(d - intervals[k]) > 1e-9) changes[`timing.${TIMING_NAMES[k]}`] = d;
      }
      if (Object.keys(changes).length) action(() => commit(changes, "timing"))();
    });
  });
}

// -- attributes: sliders within their bounds ----------------------------------------------------
function renderAttributes() {
  const box = $("attributes");
  box.replaceChildren();
  for (const f of fieldsOf("attributes.")) {
    const row = document.createElement("div");
    row.className = `attribute${f.own ? "" : " inherited"}`;
    const name = f.path.split(".")[1];
    const step = (f.high - f.low) / 400;
    row.innerHTML = `<label title="${f.doc}${f.own ? "" : " (inherited from defaults)"}">${name}</label>
      <span><input type="range" min="${f.low}" max="${f.high}" step="${step}" value="${f.value}" data-path="${f.path}">
      <span class="bounds">${+f.low.toPrecision(3)} … ${+f.high.toPrecision(3)} ${f.unit}</span></span>
      <input type="text" class="number" size="8" value="${fmt(f.value)}" data-path="${f.path}" aria-label="${name}">`;
    const input = row.querySelector("input[type=range]");
    const typed = row.querySelector("input.number");
    input.addEventListener("input", () => { typed.value = fmt(input.value); });
    input.addEventListener("change", action(() => commit({ [f.path]: Math.round(Number(input.value) * 1e5) / 1e5 }, f.path)));
    // Typed text goes to the server as typed (a number, or the text itself): it says what is wrong.
    typed.addEventListener("change", action(() => commit({ [f.path]: parseTyped(typed.value) }, f.path)));
    box.appendChild(row);
    const error = document.createElement("div");
    error.className = "field-error";
    error.dataset.errorFor = f.path;
    box.appendChild(error);
  }
}

// -- curves: knots dragged within the chart; the bounds drawn, refused beyond them --------------
function renderCurves() {
  const box = $("curves");
  box.replaceChildren();
  for (const f of editor.sample.fields.filter((g) => g.kind === "curve")) box.appendChild(curveChart(f));
}

function curveChart(f) {
  const width = 320, height = 130, pad = 26;
  const div = document.createElement("div");
  div.className = `curve${f.own ? "" : " inherited"}`;
  div.dataset.path = f.path;
  div.innerHTML = `<div class="title"><span>${f.path} [${f.unit}]</span><span class="muted">${f.own ? "own" : "from defaults"}</span></div>`;
  const margin = 0.15 * (f.high - f.low);
  const x = scale(0, 1, pad, width - 8);
  const y = scale(f.low - margin, f.high + margin, height - 14, 8);
  const root = svg("svg", { width, height }, div);
  svg("line", { x1: x(0), x2: x(1), y1: y(0), y2: y(0), class: "axis" }, root);
  for (const bound of [f.low, f.high]) {
    svg("line", { x1: x(0), x2: x(1), y1: y(bound), y2: y(bound), class: "bound" }, root);
    svg("text", { x: 2, y: y(bound) + 3 }, root, String(bound));
  }
  const line = (phases, values, cls = "curve-line") =>
    svg("polyline", { class: cls, points: phases.map((p, i) => `${x(p)},${y(values[i])}`).join(" ") }, root);
  line(f.curve.phase, f.curve.value);
  const knots = f.value.map((k) => k.slice());
  const provisional = line([], [], "curve-line provisional");
  const label = svg("text", { x: width - 10, y: 18, "text-anchor": "end", class: "knot-label" }, root, "");
  const error = document.createElement("div");
  error.className = "field-error";
  error.dataset.errorFor = f.path;

  const send = action((next) => commit({ [f.path]: next.map(([p, v]) => [Math.round(p * 1e4) / 1e4, Math.round(v * 1e5) / 1e5]) }, f.path));
  knots.forEach(([phase, value], i) => {
    const knot = svg("circle", { cx: x(phase), cy: y(value), r: 6, class: "knot", "data-index": i,
                                 "data-value": value, "data-phase": phase }, root);
    svg("title", {}, knot, `knot ${i}: phase ${phase}, value ${value}`);
    let moved = [phase, value];
    draggable(knot, root, (px, py, e) => {
      const lo = i > 0 ? knots[i - 1][0] + 0.01 : 0.0, hi = i < knots.length - 1 ? knots[i + 1][0] - 0.01 : 1.0;
      const p = e.shiftKey ? phase : Math.min(hi, Math.max(lo, x.invert(px)));
      const v = y.invert(py);
      moved = [p, v];
      const out = v < f.low || v > f.high;
      knot.setAttribute("cx", x(p));
      knot.setAttribute("cy", y(v));
      knot.classList.toggle("out", out);
      label.classList.toggle("out", out);
      label.textContent = `${fmt(v)} ${f.unit}${out ? ` — beyond [${f.low}, ${f.high}]` : ""}`;
      const next = knots.map((k, j) => (j === i ? moved : k));
      const ends = f.path.startsWith("upper_body") || f.path.startsWith("pelvis") ? [] : [[0, 0], [1, 0]];
      const shown = [ends[0], ...next, ends[1]].filter(Boolean);
      provisional.setAttribute("points", shown.map(([a, b]) => `${x(a)},${y(b)}`).join(" "));
    }, () => {
      if (moved[0] !== phase || moved[1] !== value) send(knots.map((k, j) => (j === i ? moved : k)));
    });
    knot.addEventListener("dblclick", (e) => { e.stopPropagation(); send(knots.filter((_, j) => j !== i)); });
  });
  root.addEventListener("dblclick", (e) => {
    const [px, py] = pointerIn(root, e);
    const added = [...knots, [x.invert(px), y.invert(py)]].sort((a, b) => a[0] - b[0]);
    send(added);
  });
  div.appendChild(error);
  return div;
}

// -- the preview ---------------------------------------------------------------------------------
function renderJoystick() {
  const root = $("joystick");
  root.replaceChildren();
  const size = 170, r = 75, c = size / 2;
  const samples = editor.state.samples;
  const vmax = Math.max(...samples.map((s) => Math.abs(s.velocity[0])), ...samples.map((s) => Math.abs(s.velocity[1])), 0.1);
  const toPx = ([vx, vy]) => [c - (vy / vmax) * r, c - (vx / vmax) * r];
  svg("circle", { cx: c, cy: c, r, fill: "none", stroke: "#ccc" }, root);
  svg("line", { x1: c - r, x2: c + r, y1: c, y2: c, class: "axis" }, root);
  svg("line", { x1: c, x2: c, y1: c - r, y2: c + r, class: "axis" }, root);
  for (const s of samples) {
    if (s.velocity[2] !== 0) continue;
    const [px, py] = toPx(s.velocity);
    svg("circle", { cx: px, cy: py, r: 3, fill: "#90a4ae" }, root);
  }
  const [kx, ky] = toPx(editor.velocity);
  const stick = svg("circle", { cx: kx, cy: ky, r: 9, fill: "#1e88e5", id: "joystick-knob", cursor: "grab" }, root);
  let v = editor.velocity.slice();
  draggable(stick, root, (px, py) => {
    v = [Math.round(((c - py) / r) * vmax * 100) / 100, Math.round(((c - px) / r) * vmax * 100) / 100, Number($("yaw-rate").value)];
    stick.setAttribute("cx", px);
    stick.setAttribute("cy", py);
    $("velocity-label").textContent = `v = [${v.map((a) => fmt(a, 2)).join(", ")}]`;
  }, action(() => setVelocity(v)));
}

async function setVelocity(v) {
  editor.velocity = v.slice();
  $("yaw-rate").value = v[2];
  await refreshPreview();
}

async function refreshPreview() {
  const p = await api("POST", "/api/preview", { velocity: editor.velocity });
  if (p.ok === false) { status(p.errors.map((e) => e.message).join("; "), true); return; }
  editor.preview = p;
  renderJoystick();
  $("velocity-label").textContent = `walked v = [${p.velocity.map((a) => fmt(a, 2)).join(", ")}]`;
  $("weights").textContent = "blend: " + Object.entries(p.weights).map(([k, w]) => `${k} ${fmt(w, 2)}`).join(", ");
  for (const side of ["left", "right"]) {
    $(`apex-${side}`).textContent = fmt(p.apex_m[side]);
    $(`apex-${side}`).dataset.value = p.apex_m[side];
  }
  $("cycle-label").textContent = `cycle ${fmt(p.timing.cycle_s, 3)} s`;
  plotSeries($("plot-height"), p.time_s, { left: p.sole_m.left.map((q) => q[2]), right: p.sole_m.right.map((q) => q[2]) },
             "sole height [m]");
  plotSeries($("plot-pelvis"), p.time_s, { pelvis: p.pelvis_height_m }, "pelvis height [m]");
  plotGait($("plot-gait"), p);
  plotTop($("plot-top"), p);
  document.dispatchEvent(new CustomEvent("biped:preview", { detail: { velocity: p.velocity } }));
}

function plotSeries(root, t, series, title) {
  root.replaceChildren();
  const w = Number(root.getAttribute("width")), h = Number(root.getAttribute("height"));
  const all = Object.values(series).flat();
  let lo = Math.min(...all), hi = Math.max(...all);
  if (hi - lo < 1e-3) { lo -= 0.01; hi += 0.01; }
  const x = scale(t[0], t[t.length - 1], 40, w - 8), y = scale(lo, hi, h - 16, 14);
  svg("text", { x: 40, y: 10 }, root, title);
  for (const v of [lo, hi]) svg("text", { x: 2, y: y(v) + 3 }, root, fmt(v, 3));
  svg("text", { x: w - 8, y: h - 3, "text-anchor": "end" }, root, `${fmt(t[t.length - 1], 2)} s`);
  for (const [name, values] of Object.entries(series)) {
    svg("polyline", { class: name === "pelvis" ? "" : name, fill: "none", stroke: name === "pelvis" ? "#333" : undefined,
                      "stroke-width": 1.5, points: values.map((v, i) => `${x(t[i])},${y(v)}`).join(" ") }, root);
  }
}

function plotGait(root, p) {
  root.replaceChildren();
  const w = Number(root.getAttribute("width"));
  const t = p.time_s, x = scale(t[0], t[t.length - 1], 40, w - 8);
  svg("text", { x: 40, y: 10 }, root, "stance (gait diagram)");
  ["left", "right"].forEach((side, row) => {
    svg("text", { x: 2, y: 26 + row * 22 }, root, side);
    const stance = p.in_stance[side];
    let start = null;
    for (let i = 0; i <= stance.length; i++) {
      const on = i < stance.length && stance[i];
      if (on && start === null) start = i;
      if (!on && start !== null) {
        svg("rect", { x: x(t[start]), y: 16 + row * 22, width: Math.max(1, x(t[i - 1]) - x(t[start])), height: 14, class: side }, root);
        start = null;
      }
    }
  });
}

function plotTop(root, p) {
  root.replaceChildren();
  const w = Number(root.getAttribute("width")), h = Number(root.getAttribute("height"));
  const reach = Math.max(Math.abs(p.foot_outline_m.heel_x), Math.abs(p.foot_outline_m.toe_x), p.foot_outline_m.half_width);
  const points = [...p.sole_m.left, ...p.sole_m.right, ...p.footprints.map((f) => [f[1], f[2]])];
  const xs = points.flatMap((q) => [q[0] - reach, q[0] + reach]);
  const ys = points.flatMap((q) => [q[1] - reach, q[1] + reach]);
  const cx = (Math.min(...xs) + Math.max(...xs)) / 2, cy = (Math.min(...ys) + Math.max(...ys)) / 2;
  const span = Math.max(Math.max(...xs) - Math.min(...xs), (Math.max(...ys) - Math.min(...ys)) * w / h, 0.4) * 1.05;
  // Forward (world x) to the right, left (world y) up.
  const X = scale(cx - span / 2, cx + span / 2, 0, w), Y = scale(cy - span * h / w / 2, cy + span * h / w / 2, h, 0);
  svg("text", { x: 4, y: 12 }, root, "top view: footprints, sole and body paths (x forward →)");
  const o = p.foot_outline_m;
  for (const [side, fx, fy, yaw] of p.footprints) {
    const c = Math.cos(yaw), s = Math.sin(yaw);
    const corners = [[o.heel_x, -o.half_width], [o.toe_x, -o.half_width], [o.toe_x, o.half_width], [o.heel_x, o.half_width]]
      .map(([a, b]) => `${X(fx + c * a - s * b)},${Y(fy + s * a + c * b)}`).join(" ");
    svg("polygon", { points: corners, class: side, opacity: 0.35 }, root);
  }
  for (const side of ["left", "right"]) {
    svg("polyline", { class: side, fill: "none", "stroke-width": 1,
                      points: p.sole_m[side].map((q) => `${X(q[0])},${Y(q[1])}`).join(" ") }, root);
  }
  svg("polyline", { fill: "none", stroke: "#333", "stroke-dasharray": "2 2",
                    points: p.body_m.map((q) => `${X(q[0])},${Y(q[1])}`).join(" ") }, root);
}

// -- undo, redo, save --------------------------------------------------------------------------
async function undoRedo(which) {
  const result = await api("POST", `/api/${which}`);
  if (result.ok) await afterChange(which === "undo" ? "undone" : "redone");
  else status(`nothing to ${which}`);
}

async function save() {
  const result = await api("POST", "/api/save", { path: $("save-path").value });
  if (result.ok) status(`saved ${result.path}: ${result.summary}`);
  else status(`not saved: ${result.errors.map((e) => e.message).join("; ")}`, true);
}

async function load() {
  const result = await api("POST", "/api/load", { path: $("load-path").value });
  if (!result.ok) {
    status(`not loaded, the document is unchanged: ${result.errors.map((e) => `${e.field}: ${e.message}`).join("; ")}`, true);
    return;
  }
  $("save-path").value = result.save_path;
  await afterChange(`loaded ${result.source}`);
}

// A keyframe CSV fitted into the selected sample by the server (one undoable edit).
async function importKeyframes() {
  const input = $("import-file");
  const file = input.files[0];
  if (!file) return;
  const key = editor.sampleKey;
  clearErrors();
  status(`fitting ${key} to ${file.name} by least squares (about 20 s) …`);
  input.disabled = true;
  try {
    const result = await api("POST", "/api/import", { sample: key, csv: await file.text(), name: file.name });
    if (!result.ok) {
      showErrors("import", result.errors);
      status(`not imported, the document is unchanged: ${result.errors.map((e) => `${e.field}: ${e.message}`).join("; ")}`, true);
      return;
    }
    await afterChange(result.message);
  } finally {
    input.disabled = false;
    input.value = "";  // the same file can be imported again
  }
}

$("import-file").addEventListener("change", action(importKeyframes));
$("undo").addEventListener("click", action(() => undoRedo("undo")));
$("redo").addEventListener("click", action(() => undoRedo("redo")));
$("save").addEventListener("click", action(save));
$("load").addEventListener("click", action(load));
$("apply-live").addEventListener("click", action(async () => {
  status("shadow check: walking the edited style in MuJoCo at up to three velocities (a few seconds) …");
  $("apply-live").disabled = true;
  try {
    const result = await api("POST", "/api/apply_live", { sample: editor.sampleKey });
    if (result.ok) status(result.message);
    else status(`not applied: ${result.errors.map((e) => `${e.field}: ${e.message}`).join("; ")}`, true);
    await loadState();
  } finally {
    $("apply-live").disabled = false;
  }
}));
$("yaw-rate").addEventListener("change", action(() => setVelocity([editor.velocity[0], editor.velocity[1], Number($("yaw-rate").value)])));
document.addEventListener("keydown", (e) => {
  if ((e.ctrlKey || e.metaKey) && e.key.toLowerCase() === "z") {
    e.preventDefault();
    action(() => undoRedo(e.shiftKey ? "redo" : "undo"))();
  }
});

action(async () => {
  await loadState();
  await selectSample(editor.sampleKey);
  status("ready: drag knots, events and sliders; each edit is checked against the style's bounds");
})();
