"""The pip-only launcher: runs a standard ROS 2 XML launch file without ``ros2 launch``.

Supported subset of the ROS 2 XML launch format (what biped_stack's launch files use):
``<launch>``, ``<arg name default description>``, ``<let name value>``, ``<group>`` (scopes
args), ``<include file>`` with ``<arg name value>``, ``<node pkg exec name namespace output args
on_exit respawn respawn_delay respawn_max_retries>`` with ``<param name value>``, ``<param from="file.yaml">`` and ``<remap from to>``;
``if`` and ``unless`` on nodes, includes and groups; substitutions ``$(var NAME)``,
``$(find-pkg-share PKG)``, ``$(env NAME [DEFAULT])``, ``$(equals A B)`` (``true``/``false``, booleans and
numbers compared as ``ros2 launch`` does). Anything else is an error naming it, so a
launch file never half-runs.

Each node runs in its own process, found as ``ros2 launch`` finds it (``<prefix>/lib/<pkg>/<exec>``
of the package's ament index prefix: a colcon install or a ROS 2 distribution), else — a pip
install, whose console scripts are in ``bin/`` — by running the package's console entry point with
this interpreter; ``--ros-args`` follow, and its output is prefixed with ``[name]``.

Exits follow ``ros2 launch``: a node that ends is reported and the others keep running, unless it
is marked ``on_exit="shutdown"`` — then every node is stopped (SIGINT, then SIGTERM, then SIGKILL)
and the launch ends — or ``respawn="true"`` — then it is started again after ``respawn_delay``
seconds (at most ``respawn_max_retries`` times, when given). The launch also ends when every node has ended, on Ctrl-C and on SIGTERM.
One difference: ``ros2 launch`` exits 0 after a shutdown caused by a node; this launcher exits
with that node's code, so scripts and tests see the failure.
"""

from __future__ import annotations

import math
import os
import re
import signal
import subprocess
import sys
import threading
import time
import xml.etree.ElementTree as ET
from collections import deque
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path

from biped_common import resources
from biped_common.errors import BipedStackError

ON_EXIT_ACTIONS = ("shutdown",)  # what ros2 launch's XML front end accepts for on_exit
LAST_LINES_ON_FAILURE = 6        # a failed node's output repeated when it ends the launch


class LaunchError(BipedStackError):
    """A launch file or argument the launcher cannot run."""


@dataclass(frozen=True)
class NodeSpec:
    """One node to start: its executable and its ``--ros-args``."""

    package: str
    executable: str
    name: str                         # the node's name; the executable's when no name is given
    namespace: str = ""
    param_files: tuple[str, ...] = ()
    params: tuple[tuple[str, str], ...] = ()
    remaps: tuple[tuple[str, str], ...] = ()
    extra_args: tuple[str, ...] = ()
    on_exit: str = ""                 # "shutdown": this node's end ends the launch
    respawn: bool = False             # start it again when it ends (ros2 launch's respawn)
    respawn_delay_s: float = 0.0
    respawn_max_retries: int = -1     # negative: no limit
    renamed: bool = True              # name given: remap the node's name (ros2 launch does the same)

    def ros_args(self) -> list[str]:
        """The ``--ros-args`` of this node (files first, then single parameters: later wins)."""
        # Without a name the nodes keep their own: a process that composes several nodes must not
        # have them all renamed to one (``__node:=`` applies to every node in the process).
        args = ["--ros-args"] + (["-r", f"__node:={self.name}"] if self.renamed else [])
        if self.namespace:
            args += ["-r", f"__ns:={self.namespace if self.namespace.startswith('/') else '/' + self.namespace}"]
        for path in self.param_files:
            args += ["--params-file", path]
        for name, value in self.params:
            args += ["-p", f"{name}:={value}"]
        for src, dst in self.remaps:
            args += ["-r", f"{src}:={dst}"]
        return list(self.extra_args) + args


def package_share(package: str) -> Path:
    """Share directory of a package (``$(find-pkg-share …)``); LaunchError when not found."""
    try:
        return resources.package_share(package)
    except resources.ResourceNotFoundError as exc:
        raise LaunchError(str(exc)) from exc


_SUBSTITUTION = re.compile(r"\$\(([a-z-]+)((?:\s+[^()\s]+)*)\s*\)")  # no ( ) in arguments: innermost first


def substitute(text: str, args: dict[str, str]) -> str:
    """Resolve ``$(var …)``, ``$(find-pkg-share …)``, ``$(env …)`` and ``$(equals …)`` in ``text``
    (innermost first, so ``$(equals $(var a) b)`` works)."""
    def one(match: re.Match) -> str:
        kind, params = match.group(1), match.group(2).split()
        if kind == "var":
            if len(params) != 1 or params[0] not in args:
                raise LaunchError(f"$(var {' '.join(params)}): no such launch argument "
                                  f"(declared: {', '.join(sorted(args)) or 'none'})")
            return args[params[0]]
        if kind == "find-pkg-share" and len(params) == 1:
            return str(package_share(params[0]))
        if kind == "env" and len(params) in (1, 2):
            value = os.environ.get(params[0], params[1] if len(params) == 2 else None)
            if value is None:
                raise LaunchError(f"$(env {params[0]}): environment variable not set")
            return value
        if kind == "equals" and len(params) == 2:
            return "true" if _equal(*params) else "false"
        raise LaunchError(f"unsupported substitution $({kind}{match.group(2)})")
    previous = None
    while previous != text:  # substitutions may produce substitutions
        previous, text = text, _SUBSTITUTION.sub(one, text)
    return text


def _equal(left: str, right: str) -> bool:
    """``$(equals left right)`` as launch's EqualsSubstitution: booleans by truth, numbers within
    ``math.isclose``, anything else as strings."""
    booleans = ("true", "false", "1", "0")
    if left.lower() in booleans and right.lower() in booleans:
        return (left.lower() in ("true", "1")) == (right.lower() in ("true", "1"))
    try:
        return math.isclose(float(left), float(right))
    except ValueError:
        return left == right


def _truthy(value: str, where: str) -> bool:
    lowered = value.strip().lower()
    if lowered in ("true", "1"):
        return True
    if lowered in ("false", "0"):
        return False
    raise LaunchError(f"{where}: expected true or false, got {value!r}")


@dataclass
class _Scope:
    args: dict[str, str]
    file: Path
    nodes: list[NodeSpec] = field(default_factory=list)


def parse_launch_file(path: str | Path, overrides: dict[str, str] | None = None) -> list[NodeSpec]:
    """Nodes a launch file starts with the given ``name:=value`` argument overrides."""
    path = Path(path).resolve()
    overrides = dict(overrides or {})
    try:
        root = ET.parse(path).getroot()
    except (OSError, ET.ParseError) as exc:
        raise LaunchError(f"{path}: cannot read launch file: {exc}") from exc
    if root.tag != "launch":
        raise LaunchError(f"{path}: root element must be <launch>, got <{root.tag}>")
    declared = {e.get("name") for e in root.iter("arg") if e.get("default") is not None or e.get("value") is None}
    unknown = sorted(set(overrides) - declared)
    if unknown:
        raise LaunchError(f"{path.name}: unknown launch argument(s) {unknown} "
                          f"(declared: {', '.join(sorted(a for a in declared if a))})")
    scope = _Scope(args={}, file=path)
    _walk(root, scope, overrides)
    return scope.nodes


def _condition_holds(element: ET.Element, args: dict[str, str], where: str) -> bool:
    if element.get("if") is not None and not _truthy(substitute(element.get("if"), args), where):
        return False
    if element.get("unless") is not None and _truthy(substitute(element.get("unless"), args), where):
        return False
    return True


def _walk(element: ET.Element, scope: _Scope, overrides: dict[str, str]) -> None:
    for child in element:
        where = f"{scope.file.name}: <{child.tag}>"
        if child.tag is ET.Comment:
            continue
        if child.tag == "arg":
            name = child.get("name")
            if not name:
                raise LaunchError(f"{where} needs a name")
            if name in overrides:
                scope.args[name] = overrides[name]
            elif child.get("default") is not None:
                scope.args[name] = substitute(child.get("default"), scope.args)
            elif name not in scope.args:
                raise LaunchError(f"{scope.file.name}: launch argument {name!r} has no default; "
                                  f"pass {name}:=VALUE")
        elif child.tag == "let":
            scope.args[child.get("name")] = substitute(child.get("value", ""), scope.args)
        elif child.tag == "group":
            if _condition_holds(child, scope.args, where):
                inner = _Scope(dict(scope.args), scope.file)
                _walk(child, inner, {})
                scope.nodes += inner.nodes
        elif child.tag == "include":
            if not _condition_holds(child, scope.args, where):
                continue
            file = Path(substitute(child.get("file", ""), scope.args))
            if not file.is_absolute():
                file = scope.file.parent / file
            include_args = {}
            for a in child:
                if a.tag != "arg":
                    raise LaunchError(f"{where}: only <arg> may appear inside <include>, got <{a.tag}>")
                include_args[a.get("name")] = substitute(a.get("value", ""), scope.args)
            scope.nodes += parse_launch_file(file, include_args)
        elif child.tag == "node":
            if _condition_holds(child, scope.args, where):
                scope.nodes.append(_node(child, scope, where))
        else:
            raise LaunchError(f"{where} is not supported by the pip-only launcher "
                              "(supported: arg, let, group, include, node)")


def _node(element: ET.Element, scope: _Scope, where: str) -> NodeSpec:
    s = lambda text: substitute(text, scope.args)  # noqa: E731
    pkg, exe = element.get("pkg"), element.get("exec")
    if not pkg or not exe:
        raise LaunchError(f"{where} needs pkg and exec")
    files, params, remaps = [], [], []
    for item in element:
        if item.tag is ET.Comment:
            continue
        if item.tag == "param":
            if item.get("from") is not None:
                file = Path(s(item.get("from")))
                if not file.exists():
                    raise LaunchError(f"{where}: parameter file {file} does not exist")
                files.append(str(file))
            elif item.get("name") is not None and item.get("value") is not None:
                params.append((item.get("name"), s(item.get("value"))))
            else:
                raise LaunchError(f"{where}: <param> needs name and value, or from")
        elif item.tag == "remap":
            remaps.append((s(item.get("from", "")), s(item.get("to", ""))))
        else:
            raise LaunchError(f"{where}: <{item.tag}> is not supported inside <node>")
    on_exit = element.get("on_exit", "")
    if on_exit and on_exit not in ON_EXIT_ACTIONS:
        raise LaunchError(f"{where}: on_exit must be one of {ON_EXIT_ACTIONS} (as in ros2 launch), "
                          f"got {on_exit!r}")
    respawn = _truthy(s(element.get("respawn", "false")), f"{where} respawn")
    try:
        delay = float(s(element.get("respawn_delay", "0")))
        retries = int(s(element.get("respawn_max_retries", "-1")))
    except ValueError as exc:
        raise LaunchError(f"{where}: respawn_delay must be a number and respawn_max_retries an integer") from exc
    if not 0.0 <= delay <= 3600.0:
        raise LaunchError(f"{where}: respawn_delay must be in [0, 3600] s, got {delay}")
    return NodeSpec(pkg, exe, s(element.get("name", exe)), s(element.get("namespace", "")),
                    tuple(files), tuple(params), tuple(remaps),
                    tuple(s(element.get("args", "")).split()), on_exit, respawn, delay, retries,
                    renamed=element.get("name") is not None)


def executable_command(package: str, executable: str) -> list[str]:
    """Command line that runs ``executable`` of ``package``.

    ``<prefix>/lib/<package>/<executable>`` from the ament index when it is there (what
    ``ros2 launch`` runs: a colcon install space or a ROS 2 distribution); else the console entry
    point of the installed Python distribution, run with this interpreter (a pip install puts
    the scripts in ``bin/``, where ``ros2 launch`` would not look).
    """
    installed = resources.executable(package, executable)
    if installed is not None:
        return [str(installed)]
    try:
        points = metadata.distribution(package).entry_points
    except metadata.PackageNotFoundError as exc:
        raise LaunchError(f"package {package!r} is not installed (pip install -e .)") from exc
    for point in points:
        if point.group == "console_scripts" and point.name == executable:
            module, func = point.value.split(":")
            return [sys.executable, "-c",
                    f"import sys; sys.argv[0] = {executable!r}; from {module} import {func}; sys.exit({func}())"]
    names = sorted(p.name for p in points if p.group == "console_scripts")
    raise LaunchError(f"package {package!r} has no executable {executable!r} (has: {', '.join(names)})")


class ProcessGroup:
    """Node processes started together and stopped together."""

    def __init__(self, nodes: list[NodeSpec], out=None):
        self.nodes = nodes
        self.out = out or sys.stdout
        self.processes: list[tuple[NodeSpec, subprocess.Popen]] = []
        self._lock = threading.Lock()
        self._last_lines: dict[int, deque[str]] = {}  # pid → the process's last output lines

    def _say(self, text: str) -> None:
        with self._lock:
            self.out.write(text + "\n")
            self.out.flush()

    def start(self) -> None:
        for node in self.nodes:
            self.processes.append((node, self._spawn(node)))

    def _spawn(self, node: NodeSpec) -> subprocess.Popen:
        env = dict(os.environ)
        env.setdefault("AMENT_PREFIX_PATH", sys.prefix)
        env.setdefault("RMW_IMPLEMENTATION", "rmw_fastrtps_cpp")
        env["PYTHONUNBUFFERED"] = "1"
        width = max(len(n.name) for n in self.nodes)
        command = executable_command(node.package, node.executable) + node.ros_args()
        process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                   stdin=subprocess.DEVNULL, env=env, start_new_session=True,
                                   text=True, bufsize=1)
        self._say(f"[launch] started {node.name} (pid {process.pid}): {command[0]}")
        self._last_lines[process.pid] = deque(maxlen=LAST_LINES_ON_FAILURE)
        threading.Thread(target=self._pump, args=(node.name.ljust(width), process), daemon=True).start()
        return process

    def _pump(self, prefix: str, process: subprocess.Popen) -> None:
        for line in process.stdout:
            self._last_lines[process.pid].append(line.rstrip())
            self._say(f"[{prefix}] {line.rstrip()}")

    def wait(self, timeout_s: float | None = None) -> int:
        """Serve the nodes until an ``on_exit="shutdown"`` node ends, every node has ended (and
        none is due to respawn), Ctrl-C or ``timeout_s``; then stop all. A node marked
        ``respawn`` is started again ``respawn_delay_s`` after it ends (up to
        ``respawn_max_retries`` times). The exit code: the shutdown node's, else the first
        non-zero code of an ended node, else 0."""
        deadline = None if timeout_s is None else time.monotonic() + timeout_s
        reported: set[int] = set()
        respawn_at: dict[int, float] = {}   # index in self.processes → when to start it again
        retries = [0] * len(self.processes)
        code = 0
        failed: tuple[NodeSpec, subprocess.Popen] | None = None
        try:
            while deadline is None or time.monotonic() < deadline:
                for i, (node, process) in enumerate(self.processes):
                    if process.pid in reported or process.poll() is None:
                        continue
                    reported.add(process.pid)
                    if node.on_exit == "shutdown":
                        self._say(f"[launch] {node.name} exited with code {process.returncode} "
                                  "(on_exit=shutdown); stopping every node")
                        failed = (node, process) if process.returncode != 0 else None
                        return process.returncode
                    if node.respawn and (node.respawn_max_retries < 0 or retries[i] < node.respawn_max_retries):
                        retries[i] += 1
                        respawn_at[i] = time.monotonic() + node.respawn_delay_s
                        self._say(f"[launch] {node.name} exited with code {process.returncode}; respawning in "
                                  f"{node.respawn_delay_s:g} s (respawn {retries[i]})")
                        continue
                    running = sum(p.poll() is None for _, p in self.processes)
                    self._say(f"[launch] {node.name} exited with code {process.returncode}"
                              + (f"; {running} other node(s) keep running" if running else ""))
                    code = code or process.returncode
                for i, when in list(respawn_at.items()):
                    if time.monotonic() >= when:
                        del respawn_at[i]
                        self.processes[i] = (self.processes[i][0], self._spawn(self.processes[i][0]))
                if not respawn_at and all(p.pid in reported for _, p in self.processes):
                    self._say("[launch] every node has ended")
                    break
                time.sleep(0.05)
        except KeyboardInterrupt:
            self._say("[launch] interrupted; stopping all nodes")
        finally:
            self.stop()
            if failed is not None:
                self._repeat_last_words(*failed)
        return code

    def _repeat_last_words(self, node: NodeSpec, process: subprocess.Popen) -> None:
        """The failed node's last lines again, after the other nodes' shutdown messages."""
        time.sleep(0.1)  # let the output thread drain the pipe
        lines = "\n".join(f"  {line}" for line in self._last_lines.get(process.pid, ()))
        self._say(f"[launch] the launch ended because {node.name} exited with code {process.returncode}; "
                  f"its last output:\n{lines or '  (none)'}")

    def stop(self, grace_s: float = 5.0) -> None:
        """SIGINT every node, then SIGTERM, then SIGKILL what is still alive."""
        for sig, wait_s in ((signal.SIGINT, grace_s), (signal.SIGTERM, 2.0), (signal.SIGKILL, 2.0)):
            alive = [p for _, p in self.processes if p.poll() is None]
            if not alive:
                return
            for process in alive:
                try:
                    os.killpg(process.pid, sig)
                except ProcessLookupError:
                    pass
            deadline = time.monotonic() + wait_s
            while time.monotonic() < deadline and any(p.poll() is None for p in alive):
                time.sleep(0.05)


def parse_overrides(items: list[str]) -> dict[str, str]:
    """``["robot:=biped", …]`` → ``{"robot": "biped"}``; LaunchError on anything else."""
    overrides = {}
    for item in items:
        if ":=" not in item:
            raise LaunchError(f"launch arguments are name:=value, got {item!r}")
        name, value = item.split(":=", 1)
        overrides[name] = value
    return overrides


def launch_target(words: list[str]) -> tuple[Path, dict[str, str]]:
    """The launch file and argument overrides in ``words``, taken as ``ros2 launch`` takes them:
    ``FILE [name:=value …]`` or ``PACKAGE FILE_NAME [name:=value …]`` (the file found in the
    package's share directory, as ``ros2 launch`` finds it)."""
    if not words:
        raise LaunchError("name a launch file: FILE, or PACKAGE FILE_NAME (e.g. biped_stack sim.launch.xml)")
    if len(words) >= 2 and ":=" not in words[1] and not Path(words[0]).is_file():
        share = package_share(words[0])
        conventional = share / "launch" / words[1]
        matches = [conventional] if conventional.is_file() else sorted(
            p for p in share.rglob(words[1]) if not any(part.startswith(".") for part in p.relative_to(share).parts))
        if not matches:
            raise LaunchError(f"no launch file {words[1]!r} in package {words[0]!r} ({share})")
        return matches[0], parse_overrides(words[2:])
    return Path(words[0]), parse_overrides(words[1:])


def launch(path: str | Path, overrides: dict[str, str], timeout_s: float | None = None) -> int:
    """Run a launch file until a node ends, Ctrl-C, SIGTERM or ``timeout_s``; the exit code."""
    nodes = parse_launch_file(path, overrides)
    if not nodes:
        raise LaunchError(f"{path}: starts no node")
    group = ProcessGroup(nodes)
    previous_term = signal.signal(signal.SIGTERM, lambda *_: (_ for _ in ()).throw(KeyboardInterrupt()))
    # Interruptible whatever it inherited: a process started in the background by a
    # non-interactive shell (`cmd &`, as CI scripts do) inherits SIGINT ignored, and Python then
    # installs no KeyboardInterrupt handler — Ctrl-C or a supervisor's SIGINT did nothing, the
    # supervisor's SIGKILL then left every node running (seen: three stacks orphaned in one test run).
    previous_int = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        group.start()
        return group.wait(timeout_s)
    finally:
        signal.signal(signal.SIGTERM, previous_term)
        signal.signal(signal.SIGINT, previous_int)


def stop_process_group(process: subprocess.Popen, grace_s: float = 20.0) -> int | None:
    """End a launcher started in its own session (``start_new_session=True``) and with it its
    nodes: SIGINT (its nodes get SIGINT, SIGTERM, then SIGKILL from it), after ``grace_s`` SIGTERM
    (the same), and only after 5 s more SIGKILL of its process group — a launcher killed outright
    leaves its nodes, each in a session of its own, running. The exit code (None if it would not die)."""
    for sig, wait_s in ((signal.SIGINT, grace_s), (signal.SIGTERM, 5.0), (signal.SIGKILL, 5.0)):
        if process.poll() is not None:
            break
        try:
            os.killpg(process.pid, sig)
        except ProcessLookupError:
            break
        try:
            process.wait(wait_s)
        except subprocess.TimeoutExpired:
            continue
    return process.poll()
