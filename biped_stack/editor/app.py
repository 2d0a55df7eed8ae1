"""``biped-stack editor``: serve the style editor on localhost and wait (issue #17)."""

from __future__ import annotations

import time
import webbrowser
from pathlib import Path

from biped_common.robot_model import load_robot
from biped_common.resources import styles_dir
from biped_stack.editor.document import StyleDocument
from biped_stack.editor.ros_live import PLANNER_NODE, LivePlanner
from biped_stack.editor.server import EditorApp, EditorServer
from gait_planner_node.planner import PlannerConfig
from gait_planner_node.style import StyleError


def default_save_path(document: StyleDocument) -> Path:
    """Where Save writes unless told: the file itself, except a shipped style (``./<name>.yaml``,
    so the shipped one stays as released)."""
    source = Path(document.source).resolve()
    if source.parent == styles_dir().resolve():
        return Path.cwd() / source.name
    return source


def make_app(style: str, robot: str = "humanoid", save_path: str | Path | None = None, attach: bool = False,
             planner_node: str = PLANNER_NODE) -> EditorApp:
    """The editor's state for ``style`` (a shipped name or a file) previewed on ``robot``;
    ``attach``: edits can go to the running gait planner ``planner_node`` (after the shadow check)."""
    document = StyleDocument.open(style)
    config = PlannerConfig.for_robot(load_robot(robot))
    live = LivePlanner(planner_node) if attach else None
    return EditorApp(document, config, robot, save_path or default_save_path(document), live=live)


def run_editor(style: str, robot: str = "humanoid", port: int = 8765, save_path: str | None = None,
               open_browser: bool = True, attach: bool = False, planner_node: str = PLANNER_NODE) -> int:
    """Serve until Ctrl-C; exit code 1 with every error when the style is invalid."""
    try:
        app = make_app(style, robot, save_path, attach=attach, planner_node=planner_node)
    except StyleError as exc:
        print(exc)
        return 1
    server = EditorServer(app, port=port).start()
    print(f"style editor for {app.document.source} on {robot}: {server.url}  (Ctrl-C to stop; "
          f"Save writes {app.save_path})", flush=True)
    if app.live is not None:
        found = app.live.connected(timeout_s=5.0)
        print(f"attached to {planner_node}: " + ("found" if found else "not found yet (Apply to robot retries)"), flush=True)
    if open_browser:
        webbrowser.open(server.url)
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        print("editor stopped")
    finally:
        server.stop()
        if app.live is not None:
            app.live.close()
    return 0
