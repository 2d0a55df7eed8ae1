"""The editor's local web server (issue #17): the page (shipped under ``web/editor``, no CDN) and
a small JSON API over one :class:`~biped_stack.editor.document.StyleDocument` (ROS-free).

Bound to 127.0.0.1 only. API (JSON in and out):

- ``GET /api/state``: the document (source, style name, the nine samples and their velocities,
  undo/redo availability, the default save path, the robot);
- ``GET /api/sample?key=K``: sample K's editable fields — spec (bounds, unit), value, whether the
  sample sets it itself, and each curve sampled at 101 phases as the planner evaluates it;
- ``POST /api/edit`` ``{"sample": K, "changes": {path: value}}``: one undoable edit;
  ``{"ok": false, "errors": [{"field", "message"}]}`` when refused (the document unchanged);
- ``POST /api/undo``, ``POST /api/redo``;
- ``POST /api/preview`` ``{"velocity": [ẋ, ẏ, ω]}``: :func:`biped_stack.editor.preview.preview`;
- ``GET /api/robot``: the robot's geoms for the 3D view (:func:`biped_stack.editor.poses.robot_geometry`);
- ``POST /api/motion`` ``{"velocity": [ẋ, ẏ, ω]}``: the robot posed on the reference over two
  cycles (:func:`biped_stack.editor.poses.planned_motion`);
- ``POST /api/import`` ``{"sample": K, "csv": text, "name": file name}``: sample K fitted to a
  keyframe file (:func:`biped_stack.editor.keyframes.fit_sample`, ~20 s), applied as one undoable
  edit; a malformed file is refused naming its row or column;
- ``GET /api/measured`` (attached only): the running robot's latest measured pose, from
  ``/joint_states`` and ``/odom`` (null until both arrived);
- ``POST /api/load`` ``{"path": P}``: another style file (or shipped name) replaces the document;
  an unreadable or invalid one is refused with every error and the document kept;
- ``POST /api/save`` ``{"path": P}``: writes the file (it is valid: every edit was checked);
- ``GET /api/yaml``: the file's text;
- ``POST /api/apply_live`` ``{"sample": K}`` (attached only): the shadow check
  (:mod:`biped_stack.editor.shadow`) walks the style after the edit of sample K (default: the
  last edited) in MuJoCo; passed, the style goes to the running planner
  (:class:`biped_stack.editor.ros_live.LivePlanner`); refused, the reason, and the robot keeps its style.

The document is read and changed under one lock, held only for that: previews, poses and the
shadow check (seconds) run on a snapshot of the style outside it, so the page stays responsive
while a check runs (one shadow check at a time).
"""

from __future__ import annotations

import json
import math
import mimetypes
import threading
import traceback
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, urlparse

from biped_common.errors import ConfigError
from biped_common.resources import share_file
from biped_stack.editor.document import EditError, StyleDocument
from biped_stack.editor.poses import measured_pose, planned_motion, robot_geometry
from biped_stack.editor.preview import preview
from biped_common.robot_model import RobotModel, load_robot
from gait_planner_node.planner import PlannerConfig
from gait_planner_node.style import SAMPLE_KEYS, StyleError

HOST = "127.0.0.1"
MAX_BODY_BYTES = 1 << 20


def _errors_json(errors: list[ConfigError]) -> list[dict]:
    out = []
    for error in errors:
        text = str(error)
        message = text.split(": ", 1)[1] if text.startswith(f"{error.field}: ") else text
        out.append({"field": error.field, "message": message})
    return out


class EditorApp:
    """The API's logic over one document (thread-safe: one request at a time touches it)."""

    def __init__(self, document: StyleDocument, planner_config: PlannerConfig, robot_name: str,
                 save_path: str | Path, live=None, shadow=None):
        """``live``: a :class:`~biped_stack.editor.ros_live.LivePlanner` (None: not attached);
        ``shadow``: the check an edit passes before it is sent, (text, sample key, robot) →
        :class:`~biped_stack.editor.shadow.ShadowVerdict` (default :func:`~biped_stack.editor.shadow.shadow_check`)."""
        self.document = document
        self.live = live
        self.shadow = shadow
        self.last_edited = "forward_slow"
        self.live_log: list[str] = []
        self.planner_config = planner_config
        self.robot_name = robot_name
        self.save_path = str(save_path)
        self.lock = threading.Lock()          # the document and the fields above
        self._shadow_lock = threading.Lock()  # one shadow check (and send) at a time
        self._import_lock = threading.Lock()  # one keyframe fit at a time
        self._robot_lock = threading.Lock()   # the robot model's Pinocchio/MuJoCo data are not thread-safe
        self._robot: RobotModel | None = None

    @property
    def robot(self) -> RobotModel:
        """The robot model the 3D view poses (loaded on first use)."""
        if self._robot is None:
            self._robot = load_robot(self.robot_name)
        return self._robot

    def state(self) -> dict:
        doc = self.document
        return {"source": doc.source, "name": doc.style.name, "robot": self.robot_name,
                "samples": [{"key": k, "velocity": list(doc.style.samples[k].velocity)} for k in SAMPLE_KEYS],
                "can_undo": doc.can_undo, "can_redo": doc.can_redo, "save_path": self.save_path,
                "limited": list(doc.style.limited), "attached": self.live is not None,
                "live_log": self.live_log[-10:]}

    def sample(self, key: str) -> dict:
        doc = self.document
        out = []
        for spec in doc.sample_fields(key):
            item = {"path": spec.path, "kind": spec.kind, "low": spec.low, "high": spec.high, "unit": spec.unit,
                    "doc": spec.doc, "value": doc.value(key, spec.path), "own": doc.is_own(key, spec.path)}
            if spec.kind == "curve":
                phases, values = doc.curve_points(key, spec.path)
                item["curve"] = {"phase": phases.round(4).tolist(), "value": values.round(6).tolist()}
            out.append(item)
        return {"key": key, "velocity": list(doc.style.samples[key].velocity), "fields": out}

    def apply_live(self, key: str) -> dict:
        """The shadow check of the document after an edit of sample ``key``, then the style to the
        running planner: {"ok", "message"} or {"ok": false, "errors"} with the reason."""
        if self.live is None:
            raise EditError([ConfigError("attach", "not attached to a running stack (biped-stack editor --attach)")])
        if self.shadow is None:
            from biped_stack.editor.shadow import shadow_check
            self.shadow = shadow_check
        with self.lock:
            self.document.check_sample_key(key)
            text = self.document.text
        if not self._shadow_lock.acquire(blocking=False):
            raise EditError([ConfigError("shadow check", "another edit is being checked; apply again when it is done")])
        try:
            verdict = self.shadow(text, key, self.robot_name)
            if verdict.ok:
                accepted, reason = self.live.send(text)
        finally:
            self._shadow_lock.release()
        with self.lock:
            if not verdict.ok:
                self.live_log.append(f"refused by the shadow check: {verdict.reason}; the robot keeps its style")
                raise EditError([ConfigError("shadow check", f"{verdict.reason}; the robot keeps its style")])
            if not accepted:
                self.live_log.append(f"refused by the planner: {reason}")
                raise EditError([ConfigError("gait planner", reason or "refused")])
            walked = ", ".join(str(list(r.velocity)) for r in verdict.runs)
            message = f"sent to {self.live.planner_node} (shadow check walked {walked})"
            self.live_log.append(message)
            return {"ok": True, "message": message, **self.state()}

    def import_keyframes(self, key: str, text: str, name: str) -> dict:
        """Sample ``key`` fitted to the keyframe CSV ``text`` (from the file ``name``), applied as
        one edit: {"ok", "message", state} or EditError naming what is wrong with the file."""
        from biped_stack.editor.keyframes import fit_sample, parse_keyframes
        if not isinstance(text, str) or not text.strip():
            raise EditError([ConfigError("import", "no keyframe file content was sent")])
        keyframes = parse_keyframes(text, name or "keyframes")  # ConfigError: shown by field
        with self.lock:
            self.document.check_sample_key(key)
            snapshot = StyleDocument(self.document.text, self.document.source)
        if not self._import_lock.acquire(blocking=False):
            raise EditError([ConfigError("import", "another import is being fitted; import again when it is done")])
        try:
            changes = fit_sample(snapshot, key, keyframes, self.planner_config)
        finally:
            self._import_lock.release()
        with self.lock:
            if self.document.text != snapshot.text:  # edited or replaced during the fit
                raise EditError([ConfigError("import", "the document changed while the fit ran; import again")])
            self.document.apply(key, changes)
            self.last_edited = key
            curves = sum(not path.startswith("timing.") for path in changes)
            message = (f"imported {name or 'keyframes'} into {key}: timing and {curves} curves fitted "
                       f"(one edit: Undo restores the sample)")
            return {"ok": True, "message": message, **self.state()}

    def measured(self) -> dict | None:
        """The running robot's measured pose for the 3D view (:func:`~biped_stack.editor.poses.measured_pose`;
        None before ``/joint_states`` and ``/odom`` have both arrived)."""
        if self.live is None:
            raise EditError([ConfigError("attach", "not attached to a running stack (biped-stack editor --attach)")])
        latest = self.live.measured_state()
        if latest is None:
            return None
        base, names, positions = latest
        with self._robot_lock:
            return measured_pose(self.robot, base, names, positions)

    def handle(self, method: str, route: str, query: dict, body: dict) -> tuple[int, dict | str]:
        """(HTTP status, JSON object or text) of one API call."""
        if method == "POST" and route in ("/api/preview", "/api/motion"):
            velocity = _velocity(body)
            with self.lock:
                style = self.document.style  # frozen: safe to use after the lock
            if route == "/api/preview":
                return HTTPStatus.OK, preview(style, self.planner_config, velocity)
            with self._robot_lock:
                return HTTPStatus.OK, planned_motion(style, self.planner_config, self.robot, velocity)
        if method == "GET" and route == "/api/robot":
            with self._robot_lock:
                return HTTPStatus.OK, robot_geometry(self.robot)
        if method == "GET" and route == "/api/measured":
            try:
                return HTTPStatus.OK, {"ok": True, "measured": self.measured()}
            except ValueError as exc:  # a bad message from the robot: shown, not drawn
                return HTTPStatus.OK, {"ok": True, "measured": None, "problem": str(exc)}
        if method == "POST" and route == "/api/import":
            try:
                return HTTPStatus.OK, self.import_keyframes(str(body.get("sample", "")), body.get("csv"),
                                                            str(body.get("name") or ""))
            except ConfigError as exc:
                raise EditError([exc]) from exc
        if method == "POST" and route == "/api/apply_live":
            with self.lock:
                key = str(body.get("sample") or self.last_edited)
            return HTTPStatus.OK, self.apply_live(key)
        with self.lock:
            if method == "GET" and route == "/api/state":
                return HTTPStatus.OK, self.state()
            if method == "GET" and route == "/api/sample":
                key = (query.get("key") or [""])[0]
                return HTTPStatus.OK, self.sample(key)
            if method == "GET" and route == "/api/yaml":
                return HTTPStatus.OK, self.document.text
            if method == "POST" and route == "/api/edit":
                changes = body.get("changes")
                if not isinstance(changes, dict):
                    raise EditError([ConfigError("changes", "must be a mapping of field path → value")])
                self.document.apply(str(body.get("sample", "")), changes)
                self.last_edited = str(body["sample"])
                return HTTPStatus.OK, {"ok": True, **self.state()}
            if method == "POST" and route in ("/api/undo", "/api/redo"):
                done = self.document.undo() if route == "/api/undo" else self.document.redo()
                return HTTPStatus.OK, {"ok": done, **self.state()}
            if method == "POST" and route == "/api/load":
                path = body.get("path")
                if not isinstance(path, str) or not path:
                    raise EditError([ConfigError("path", "must name a style file or a shipped style")])
                try:
                    document = StyleDocument.open(path)
                except StyleError as exc:
                    raise EditError([ConfigError(f"{path}: {e.field}", str(e).split(": ", 1)[-1]) for e in exc.errors]) from exc
                self.document, self.last_edited = document, "forward_slow"
                return HTTPStatus.OK, {"ok": True, **self.state()}
            if method == "POST" and route == "/api/save":
                path = body.get("path") or self.save_path
                try:
                    saved = self.document.save(path)
                except OSError as exc:
                    raise EditError([ConfigError("path", f"cannot write {path}: {exc.strerror or exc}")]) from exc
                self.save_path = str(saved)
                return HTTPStatus.OK, {"ok": True, "path": str(saved), "summary": self.document.style.summary()}
        return HTTPStatus.NOT_FOUND, {"ok": False, "errors": [{"field": "route", "message": f"no {method} {route}"}]}


def _velocity(body: dict) -> list[float]:
    """The request's ``velocity`` [ẋ m/s, ẏ m/s, ω rad/s] (default standing), checked finite."""
    velocity = body.get("velocity", [0.0, 0.0, 0.0])
    if not (isinstance(velocity, list) and len(velocity) == 3
            and all(isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) for v in velocity)):
        raise EditError([ConfigError("velocity", f"must be [ẋ m/s, ẏ m/s, ω rad/s], got {velocity!r}")])
    return [float(v) for v in velocity]


def _handler(app: EditorApp, web_dir: Path, log):
    class Handler(BaseHTTPRequestHandler):
        server_version = "biped-stack-editor"

        def log_message(self, fmt, *args):  # quiet unless asked
            if log:
                log(f"editor: {self.address_string()} {fmt % args}")

        def _send(self, status: int, payload, content_type: str | None = None) -> None:
            data = payload if isinstance(payload, bytes) else (
                payload.encode() if isinstance(payload, str) else json.dumps(payload).encode())
            self.send_response(status)
            self.send_header("Content-Type", content_type or (
                "text/plain; charset=utf-8" if isinstance(payload, str) else "application/json"))
            self.send_header("Content-Length", str(len(data)))
            self.send_header("Cache-Control", "no-store")
            self.end_headers()
            self.wfile.write(data)

        def _dispatch(self, method: str) -> None:
            url = urlparse(self.path)
            if method == "GET" and not url.path.startswith("/api/"):
                self._static(url.path)
                return
            body = {}
            if method == "POST":
                length = int(self.headers.get("Content-Length") or 0)
                if length > MAX_BODY_BYTES:
                    self._send(HTTPStatus.REQUEST_ENTITY_TOO_LARGE, {"ok": False, "errors": [
                        {"field": "body", "message": f"larger than {MAX_BODY_BYTES} bytes"}]})
                    return
                try:
                    body = json.loads(self.rfile.read(length) or b"{}")
                except json.JSONDecodeError as exc:
                    self._send(HTTPStatus.BAD_REQUEST, {"ok": False, "errors": [
                        {"field": "body", "message": f"not JSON: {exc}"}]})
                    return
                if not isinstance(body, dict):
                    body = {}
            try:
                status, payload = app.handle(method, url.path, parse_qs(url.query), body)
            except EditError as exc:
                status, payload = HTTPStatus.OK, {"ok": False, "errors": _errors_json(exc.errors)}
            except Exception as exc:  # noqa: BLE001 — the page gets a message, the terminal the traceback
                traceback.print_exc()
                status, payload = HTTPStatus.INTERNAL_SERVER_ERROR, {"ok": False, "errors": [
                    {"field": "server", "message": f"{type(exc).__name__}: {exc} (details in the editor's terminal)"}]}
            self._send(status, payload)

        def _static(self, path: str) -> None:
            name = "index.html" if path in ("", "/") else path.lstrip("/")
            file = (web_dir / name).resolve()
            if web_dir.resolve() not in file.parents or not file.is_file():
                self._send(HTTPStatus.NOT_FOUND, f"not found: {path}")
                return
            self._send(HTTPStatus.OK, file.read_bytes(), mimetypes.guess_type(file.name)[0] or "application/octet-stream")

        def do_GET(self):
            self._dispatch("GET")

        def do_POST(self):
            self._dispatch("POST")

    return Handler


class EditorServer:
    """The editor served on 127.0.0.1:``port`` (0: any free port) in a background thread."""

    def __init__(self, app: EditorApp, port: int = 0, log=None):
        self.app = app
        self._server = ThreadingHTTPServer((HOST, port), _handler(app, share_file("web", "editor"), log))
        self._thread = threading.Thread(target=self._server.serve_forever, name="editor-http", daemon=True)

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}/"

    def start(self) -> "EditorServer":
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving and close the socket (again: nothing)."""
        if not self._thread.is_alive():
            self._server.server_close()
            return
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5.0)
