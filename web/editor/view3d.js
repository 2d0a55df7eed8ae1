// The editor's 3D view (issue #17): the robot's own geoms (GET /api/robot) posed on the planner's
// reference at the joystick's velocity (POST /api/motion: legs by IK, CoM on the MPC's plan, no
// physics), its footprints and its sole and pelvis paths; play / pause / scrub over the two cycles.
// Attached to a running stack, the measured robot (GET /api/measured, from /joint_states and
// /odom) walks beside it. World frame z up, metres, as the server sends it.
import * as THREE from "three";
import { OrbitControls } from "./vendor/three/OrbitControls.js";

const $ = (id) => document.getElementById(id);
const BESIDE_M = 0.7;               // the measured robot is drawn this far to the reference's left
const MEASURED_POLL_MS = 200;
const SIDE_COLOURS = { left: 0x1e88e5, right: 0xfb8c00 };

const view = {
  geometry: null,   // GET /api/robot
  motion: null,     // POST /api/motion
  time_s: 0.0,
  playing: true,
  reference: null,  // THREE.Group per body, the reference robot
  measured: null,   // the measured robot's bodies (attached only)
  measuredPose: null,
  request: 0,
};

const canvas = $("view3d");
const renderer = new THREE.WebGLRenderer({ canvas, antialias: true, preserveDrawingBuffer: true });
renderer.setPixelRatio(window.devicePixelRatio || 1);
const scene = new THREE.Scene();
scene.background = new THREE.Color(0xf4f6f8);
const camera = new THREE.PerspectiveCamera(40, canvas.width / canvas.height, 0.05, 50);
camera.up.set(0, 0, 1);
camera.position.set(1.0, -1.5, 1.1);
const controls = new OrbitControls(camera, canvas);
controls.target.set(0, 0, 0.45);
controls.update();
scene.add(new THREE.HemisphereLight(0xffffff, 0x667788, 2.2));
const sun = new THREE.DirectionalLight(0xffffff, 1.6);
sun.position.set(2, -3, 5);
scene.add(sun);
scene.add(groundGrid(6.0, 0.25));
// The ground: lines every ``spacing_m`` over ±``half_m`` in the world's x-y plane, every metre
// darker; each line cut into cell-long segments (a software renderer drops a whole line that
// crosses the camera's plane, which left the ground near the robot bare).
function groundGrid(half_m, spacing_m) {
  const fine = [], metre = [], cells = Math.round(half_m / spacing_m);
  for (let k = -cells; k <= cells; k++) {
    const c = k * spacing_m, into = Math.abs(c - Math.round(c)) < 1e-9 ? metre : fine;
    for (let j = -cells; j < cells; j++) {
      const a = j * spacing_m, b = a + spacing_m;
      into.push(a, c, 0, b, c, 0, c, a, 0, c, b, 0);
    }
  }
  const group = new THREE.Group();
  for (const [points, colour] of [[fine, 0xc5ced4], [metre, 0x90a4ae]]) {
    const geometry = new THREE.BufferGeometry();
    geometry.setAttribute("position", new THREE.Float32BufferAttribute(points, 3));
    group.add(new THREE.LineSegments(geometry, new THREE.LineBasicMaterial({ color: colour })));
  }
  return group;
}

const overlays = new THREE.Group();  // footprints and paths, rebuilt per motion
scene.add(overlays);

// -- the robot: one group per MuJoCo body, its geoms in the body frame -------------------------
function geomMesh(g, material) {
  const [a, b, c] = g.size;
  let shape;
  if (g.type === "sphere") shape = new THREE.SphereGeometry(a, 20, 14);
  else if (g.type === "ellipsoid") shape = new THREE.SphereGeometry(1, 20, 14).scale(a, b, c);
  else if (g.type === "box") shape = new THREE.BoxGeometry(2 * a, 2 * b, 2 * c);
  // MuJoCo's capsules and cylinders lie along their z axis, three.js's along y.
  else if (g.type === "capsule") shape = new THREE.CapsuleGeometry(a, 2 * b, 6, 16).rotateX(Math.PI / 2);
  else if (g.type === "cylinder") shape = new THREE.CylinderGeometry(a, a, 2 * b, 20).rotateX(Math.PI / 2);
  else return null;
  const mesh = new THREE.Mesh(shape, material(g.rgba));
  mesh.position.set(...g.pos);
  mesh.quaternion.set(g.quat[1], g.quat[2], g.quat[3], g.quat[0]);
  return mesh;
}

function buildRobot(geometry, material) {
  const root = new THREE.Group();
  const bodies = geometry.bodies.map(() => new THREE.Group());
  bodies.forEach((body) => root.add(body));
  for (const g of geometry.geoms) {
    const mesh = geomMesh(g, material);
    if (mesh) bodies[g.body].add(mesh);
  }
  scene.add(root);
  return { root, bodies };
}

function poseBodies(robot, positions, quats) {
  robot.bodies.forEach((body, i) => {
    body.position.set(...positions[i]);
    const q = quats[i];
    body.quaternion.set(q[1], q[2], q[3], q[0]);
  });
}

// The pose at time t [s] of the motion: positions interpolated linearly, orientations by slerp
// between the two frames around t (the server sends 25 frames a second).
function poseAt(motion, t) {
  const times = motion.time_s, n = times.length;
  const period = times[n - 1] - times[0];
  // Playback loops over the frames; a time inside them (scrubbing: the last frame too) is itself.
  const u = t >= times[0] && t <= times[n - 1] ? t : times[0] + ((((t - times[0]) % period) + period) % period);
  let k = 0;
  while (k < n - 2 && times[k + 1] <= u) k++;
  const s = Math.min(Math.max((u - times[k]) / (times[k + 1] - times[k]), 0), 1);
  const positions = motion.body_pos_m[k].map((p, i) => p.map((x, j) => x + s * (motion.body_pos_m[k + 1][i][j] - x)));
  const quats = motion.body_quat_wxyz[k].map((q, i) => {
    const a = new THREE.Quaternion(q[1], q[2], q[3], q[0]);
    const r = motion.body_quat_wxyz[k + 1][i];
    a.slerp(new THREE.Quaternion(r[1], r[2], r[3], r[0]), s);
    return [a.w, a.x, a.y, a.z];
  });
  return { frame: s < 0.5 ? k : k + 1, time_s: u, positions, quats };
}

// -- footprints and paths -----------------------------------------------------------------------
function line(points, colour, dashed = false) {
  const geometry = new THREE.BufferGeometry().setFromPoints(points.map((p) => new THREE.Vector3(...p)));
  const material = dashed ? new THREE.LineDashedMaterial({ color: colour, dashSize: 0.02, gapSize: 0.015 })
                          : new THREE.LineBasicMaterial({ color: colour });
  const object = new THREE.Line(geometry, material);
  if (dashed) object.computeLineDistances();
  return object;
}

function buildOverlays(motion) {
  overlays.clear();
  const o = motion.foot_outline_m;
  for (const [side, x, y, yaw] of motion.footprints) {
    const shape = new THREE.PlaneGeometry(o.toe_x - o.heel_x, 2 * o.half_width);
    const print = new THREE.Mesh(shape, new THREE.MeshBasicMaterial({ color: SIDE_COLOURS[side], transparent: true, opacity: 0.35 }));
    const mid = 0.5 * (o.toe_x + o.heel_x);
    print.position.set(x + mid * Math.cos(yaw), y + mid * Math.sin(yaw), 0.001);
    print.rotation.z = yaw;
    overlays.add(print);
  }
  for (const side of ["left", "right"]) overlays.add(line(motion.sole_m[side], SIDE_COLOURS[side]));
  const base = view.geometry.base_body;
  overlays.add(line(motion.body_pos_m.map((frame) => frame[base]), 0x455a64, true));
}

// -- the measured robot, walking beside the reference -------------------------------------------
function placeMeasured(referencePelvis) {
  const m = view.measuredPose;
  view.measured.root.visible = m !== null;
  if (m === null) return;
  poseBodies(view.measured, m.body_pos_m, m.body_quat_wxyz);
  // Its heading turned to +x and its pelvis put beside the reference's: the two walk side by side
  // wherever the odometry has the robot.
  const pelvis = m.body_pos_m[view.geometry.base_body];
  const q = m.body_quat_wxyz[view.geometry.base_body];
  const yaw = Math.atan2(2 * (q[0] * q[3] + q[1] * q[2]), 1 - 2 * (q[2] * q[2] + q[3] * q[3]));
  const root = view.measured.root;
  root.rotation.set(0, 0, -yaw);
  const turned = new THREE.Vector3(pelvis[0], pelvis[1], 0).applyAxisAngle(new THREE.Vector3(0, 0, 1), -yaw);
  root.position.set(referencePelvis[0] - turned.x, referencePelvis[1] + BESIDE_M - turned.y, 0);
}

async function pollMeasured() {
  try {
    const response = await fetch("/api/measured");
    const answer = await response.json();
    view.measuredPose = answer.ok ? answer.measured : null;
    $("view3d-measured").textContent = answer.measured ? `measured robot at t = ${answer.measured.stamp_s.toFixed(2)} s (left of the reference)`
      : (answer.problem || "no /joint_states and /odom yet");
  } catch (error) {
    view.measuredPose = null;  // the server is away: editor.js says so on the next action
  }
  setTimeout(pollMeasured, MEASURED_POLL_MS);
}

// -- drawing and controls -----------------------------------------------------------------------
function draw() {
  const motion = view.motion;
  if (motion && view.reference) {
    const pose = poseAt(motion, view.time_s);
    poseBodies(view.reference, pose.positions, pose.quats);
    const pelvis = pose.positions[view.geometry.base_body];
    if (view.measured) placeMeasured(pelvis);
    // The camera follows the pelvis along the path (the user's orbit kept).
    const shift = new THREE.Vector3(pelvis[0], pelvis[1], 0.45).sub(controls.target);
    controls.target.add(shift);
    camera.position.add(shift);
    controls.update();
    const scrub = $("view3d-scrub");
    scrub.value = String(pose.frame);
    $("view3d-time").textContent = `t = ${pose.time_s.toFixed(2)} s of ${motionSpan().toFixed(2)} s`;
    document.body.dataset.view3dFrame = String(pose.frame);
  }
  renderer.render(scene, camera);
}

function motionSpan() {
  const t = view.motion.time_s;
  return t[t.length - 1] - t[0];
}

let last = performance.now();
function tick(now) {
  if (view.playing && view.motion) view.time_s += (now - last) / 1000;
  last = now;
  draw();
  requestAnimationFrame(tick);
}

async function refreshMotion(velocity) {
  const request = ++view.request;
  document.body.dataset.view3d = "loading";
  let motion;
  try {
    motion = await window.editorApi("POST", "/api/motion", { velocity });
  } catch (error) {  // the server is away: editor.js has said so
    document.body.dataset.view3d = "error";
    return;
  }
  if (request !== view.request) return;  // a newer velocity or edit is on its way
  if (motion.ok === false) {
    $("view3d-measured").textContent = motion.errors.map((e) => e.message).join("; ");
    document.body.dataset.view3d = "error";
    return;
  }
  view.motion = motion;
  buildOverlays(motion);
  $("view3d-scrub").max = String(motion.time_s.length - 1);
  draw();
  document.body.dataset.view3d = "ready";
}

$("view3d-play").addEventListener("click", () => {
  view.playing = !view.playing;
  $("view3d-play").textContent = view.playing ? "Pause" : "Play";
});
$("view3d-scrub").addEventListener("input", () => {
  view.playing = false;
  $("view3d-play").textContent = "Play";
  view.time_s = view.motion.time_s[Number($("view3d-scrub").value)];
  draw();
});

// What a test reads back: the drawn bodies' world positions (the page's own scene graph).
window.view3d = {
  view,
  bodyWorldPosition(name, which = "reference") {
    const robot = which === "reference" ? view.reference : view.measured;
    const index = view.geometry.bodies.indexOf(name);
    if (!robot || index < 0) return null;
    robot.root.updateMatrixWorld(true);
    const p = new THREE.Vector3();
    robot.bodies[index].getWorldPosition(p);
    return [p.x, p.y, p.z];
  },
  showFrame(frame) {
    view.playing = false;
    view.time_s = view.motion.time_s[frame];
    draw();
  },
};

(async () => {
  view.geometry = await window.editorApi("GET", "/api/robot");
  view.reference = buildRobot(view.geometry, (rgba) => new THREE.MeshStandardMaterial({ color: new THREE.Color(...rgba.slice(0, 3)) }));
  const state = await window.editorApi("GET", "/api/state");
  if (state.attached) {
    view.measured = buildRobot(view.geometry, () => new THREE.MeshStandardMaterial({ color: 0x43a047, transparent: true, opacity: 0.7 }));
    view.measured.root.visible = false;
    pollMeasured();
  }
  document.addEventListener("biped:preview", (event) => refreshMotion(event.detail.velocity));
  if (window.editor.preview) refreshMotion(window.editor.velocity);
  requestAnimationFrame(tick);
})();
