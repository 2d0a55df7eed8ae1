"""The pip-only launcher: parsing, substitutions, errors that name the problem, teardown."""

import sys
import textwrap
import time

import pytest

from biped_stack.launcher import (LaunchError, NodeSpec, ProcessGroup, package_share,
                                  parse_launch_file, parse_overrides, substitute)

SHARE = package_share("biped_stack")


def test_sim_launch_file_resolves_args_params_and_includes():
    nodes = parse_launch_file(SHARE / "launch" / "sim.launch.xml", {"robot": "biped", "timing_mode": "realtime"})
    by_name = {n.name: n for n in nodes}
    # The default layout: the walking nodes composed in two processes, which keep their nodes' names.
    assert set(by_name) == {"sim_bridge", "stack_monitor", "walking_planning", "walking_control", "tf_publisher"}
    assert ("mode", "walk") in by_name["walking_control"].params
    assert ("style", "neutral") in by_name["walking_planning"].params
    assert "__node:=walking_control" not in " ".join(by_name["walking_control"].ros_args())
    separate = {n.name: n for n in parse_launch_file(SHARE / "launch" / "sim.launch.xml", {"composed": "false"})}
    assert set(separate) == {"sim_bridge", "stack_monitor", "gait_planner", "state_estimator", "mpc", "wbc", "tf_publisher"}
    assert ("mode", "walk") in separate["wbc"].params and ("style", "neutral") in separate["gait_planner"].params
    standing = {n.name: n for n in parse_launch_file(SHARE / "launch" / "sim.launch.xml", {"walk": "false"})}
    assert set(standing) == {"sim_bridge", "stack_monitor", "wbc", "tf_publisher"} and ("mode", "stand") in standing["wbc"].params
    without_tf = {n.name for n in parse_launch_file(SHARE / "launch" / "sim.launch.xml", {"tf": "false"})}
    assert without_tf == set(by_name) - {"tf_publisher"}
    assert by_name["tf_publisher"].params == (("robot", "biped"), ("use_sim_time", "false"))  # real time: the wall clock
    bridge = by_name["sim_bridge"]
    assert ("robot", "biped") in bridge.params and ("timing_mode", "realtime") in bridge.params
    assert bridge.param_files == (str(SHARE / "config" / "sim.yaml"),)
    assert ("use_sim_time", "false") in by_name["walking_control"].params  # real time: the wall clock
    assert ("robot", "biped") in by_name["walking_control"].params
    args = bridge.ros_args()
    assert args[:3] == ["--ros-args", "-r", "__node:=sim_bridge"]
    assert args.index("--params-file") < args.index("-p")  # single parameters override the file


def test_unknown_argument_and_unsupported_tags_are_named(tmp_path):
    with pytest.raises(LaunchError, match=r"unknown launch argument\(s\) \['robt'\]"):
        parse_launch_file(SHARE / "launch" / "sim.launch.xml", {"robt": "biped"})
    bad = tmp_path / "bad.launch.xml"
    bad.write_text('<launch><executable cmd="ls"/></launch>')
    with pytest.raises(LaunchError, match="<executable> is not supported"):
        parse_launch_file(bad)
    bad.write_text("<launch><node pkg='x'")
    with pytest.raises(LaunchError, match="cannot read launch file"):
        parse_launch_file(bad)
    with pytest.raises(LaunchError, match=r"\$\(var nope\): no such launch argument"):
        substitute("$(var nope)", {"robot": "x"})
    with pytest.raises(LaunchError, match="name:=value"):
        parse_overrides(["robot=biped"])


@pytest.mark.parametrize("text, expected", [
    ("$(equals $(var mode) lockstep)", "true"), ("$(equals $(var mode) realtime)", "false"),
    ("$(equals 1 true)", "true"), ("$(equals 250 250.0)", "true"), ("$(equals a A)", "false")])
def test_equals_compares_as_ros2_launch_does(text, expected):
    assert substitute(text, {"mode": "lockstep"}) == expected


def test_the_sim_launch_runs_the_controllers_on_sim_time_only_in_lockstep():
    for mode, sim_time in (("lockstep", "true"), ("realtime", "false")):
        nodes = parse_launch_file(SHARE / "launch" / "sim.launch.xml", {"timing_mode": mode})
        controllers = [n for n in nodes if n.executable in ("walking_control", "walking_planning")]
        assert controllers and all(("use_sim_time", sim_time) in n.params for n in controllers), mode


def test_conditions_groups_and_env(tmp_path, monkeypatch):
    monkeypatch.setenv("BIPED_TEST_NS", "left")
    file = tmp_path / "c.launch.xml"
    file.write_text(textwrap.dedent("""
        <launch>
          <arg name="mock" default="false"/>
          <let name="ns" value="$(env BIPED_TEST_NS)"/>
          <node pkg="biped_stack" exec="wbc_node" name="a" if="$(var mock)"/>
          <group unless="$(var mock)">
            <node pkg="biped_stack" exec="wbc_node" name="b" namespace="$(var ns)">
              <remap from="imu" to="/robot/imu"/>
            </node>
          </group>
        </launch>"""))
    nodes = parse_launch_file(file)
    assert [n.name for n in nodes] == ["b"]
    assert nodes[0].namespace == "left" and nodes[0].remaps == (("imu", "/robot/imu"),)
    assert [n.name for n in parse_launch_file(file, {"mock": "true"})] == ["a"]


def _fake_nodes(monkeypatch, commands: dict[str, list[str]]) -> None:
    import biped_stack.launcher as launcher
    monkeypatch.setattr(launcher, "executable_command", lambda pkg, exe: commands[exe])
    monkeypatch.setattr(NodeSpec, "ros_args", lambda self: [])


STUBBORN = [sys.executable, "-c", textwrap.dedent("""
    import signal, time
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    print('ready', flush=True)
    time.sleep(120)""")]
QUITS = [sys.executable, "-c", "import time; time.sleep(0.5); print('bye'); raise SystemExit(3)"]


def test_a_shutdown_node_that_ends_stops_everything_even_a_node_ignoring_signals(monkeypatch, capsys):
    _fake_nodes(monkeypatch, {"quits": QUITS, "stubborn": STUBBORN})
    group = ProcessGroup([NodeSpec("p", "quits", "quits", on_exit="shutdown"), NodeSpec("p", "stubborn", "stubborn")],
                         out=sys.stdout)
    started = time.monotonic()
    group.start()
    assert group.wait(timeout_s=30) == 3
    assert all(p.poll() is not None for _, p in group.processes)
    assert time.monotonic() - started < 15
    out = capsys.readouterr().out
    assert "[quits   ] bye" in out and "quits exited with code 3 (on_exit=shutdown); stopping every node" in out


def test_without_on_exit_the_other_nodes_keep_running_as_under_ros2_launch(monkeypatch, capsys):
    sleeper = [sys.executable, "-c", "import time; time.sleep(120)"]
    _fake_nodes(monkeypatch, {"quits": QUITS, "sleeper": sleeper})
    group = ProcessGroup([NodeSpec("p", "quits", "quits"), NodeSpec("p", "sleeper", "sleeper")], out=sys.stdout)
    group.start()
    assert group.wait(timeout_s=3.0) == 3  # the launch ran on to its timeout; the failure is its code
    out = capsys.readouterr().out
    assert "quits exited with code 3; 1 other node(s) keep running" in out
    assert "sleeper exited" not in out  # it was still running when the timeout stopped the launch
    assert all(p.poll() is not None for _, p in group.processes)


def test_the_launch_ends_when_every_node_has_ended(monkeypatch, capsys):
    _fake_nodes(monkeypatch, {"quits": QUITS, "ok": [sys.executable, "-c", "pass"]})
    group = ProcessGroup([NodeSpec("p", "ok", "ok"), NodeSpec("p", "quits", "quits")], out=sys.stdout)
    group.start()
    started = time.monotonic()
    assert group.wait(timeout_s=30) == 3
    assert time.monotonic() - started < 10
    assert "every node has ended" in capsys.readouterr().out


def test_on_exit_is_parsed_and_checked(tmp_path):
    bad = tmp_path / "bad.launch.xml"
    bad.write_text('<launch><node pkg="biped_stack" exec="wbc_node" on_exit="restart"/></launch>')
    with pytest.raises(LaunchError, match="on_exit must be one of"):
        parse_launch_file(bad)


def test_executables_are_found_as_ros2_launch_finds_them(tmp_path, monkeypatch):
    """An ament prefix with lib/<pkg>/<exec> (a colcon install) wins over the pip entry point."""
    from biped_stack.launcher import executable_command
    prefix = tmp_path / "install" / "biped_stack"
    (prefix / "share" / "ament_index" / "resource_index" / "packages").mkdir(parents=True)
    (prefix / "share" / "ament_index" / "resource_index" / "packages" / "biped_stack").write_text("")
    script = prefix / "lib" / "biped_stack" / "wbc_node"
    script.parent.mkdir(parents=True)
    script.write_text("#!/bin/sh\n")
    script.chmod(0o755)
    monkeypatch.setenv("AMENT_PREFIX_PATH", str(prefix))
    assert executable_command("biped_stack", "wbc_node") == [str(script)]
    monkeypatch.setenv("AMENT_PREFIX_PATH", str(tmp_path / "nowhere"))
    pip_route = executable_command("biped_stack", "wbc_node")
    assert pip_route[0] == sys.executable and "from wbc_node.node import main" in pip_route[2]
    with pytest.raises(LaunchError, match="has no executable 'nope'"):
        executable_command("biped_stack", "nope")


def test_a_respawning_node_is_started_again_up_to_its_retries(monkeypatch, capsys):
    _fake_nodes(monkeypatch, {"quits": QUITS})
    group = ProcessGroup([NodeSpec("p", "quits", "quits", respawn=True, respawn_delay_s=0.2, respawn_max_retries=2)],
                         out=sys.stdout)
    group.start()
    assert group.wait(timeout_s=30) == 3
    out = capsys.readouterr().out
    assert out.count("started quits") == 3 and "respawning in 0.2 s (respawn 2)" in out
    assert "every node has ended" in out


def test_respawn_attributes_are_parsed_as_ros2_launch_does(tmp_path):
    nodes = {n.name: n for n in parse_launch_file(SHARE / "launch" / "sim.launch.xml")}
    assert nodes["sim_bridge"].on_exit == "shutdown" and not nodes["sim_bridge"].respawn
    assert nodes["stack_monitor"].on_exit == "shutdown"
    separate = {n.name: n for n in parse_launch_file(SHARE / "launch" / "sim.launch.xml", {"composed": "false"})}
    for spec in [nodes["walking_planning"], nodes["walking_control"]] + [separate[name] for name in (
            "gait_planner", "state_estimator", "mpc", "wbc")]:
        assert spec.respawn and spec.respawn_delay_s == 1.0 and not spec.on_exit
    bad = tmp_path / "bad.launch.xml"
    bad.write_text('<launch><node pkg="biped_stack" exec="wbc_node" respawn="true" respawn_delay="-1"/></launch>')
    with pytest.raises(LaunchError, match="respawn_delay must be in"):
        parse_launch_file(bad)


LAUNCH_DRIVER = textwrap.dedent("""
    import sys
    import biped_stack.launcher as launcher
    launcher.executable_command = lambda pkg, exe: [sys.executable, "-c", "import time; print('up', flush=True); time.sleep(120)"]
    launcher.NodeSpec.ros_args = lambda self: []
    sys.exit(launcher.launch(sys.argv[1], {}))""")


def test_a_launcher_that_inherited_sigint_ignored_still_stops_its_nodes_on_sigint(tmp_path):
    """A process started in the background by a non-interactive shell (``cmd &``) inherits SIGINT
    ignored; the launcher re-arms it, so a supervisor's SIGINT stops the nodes (before: nothing
    happened, the supervisor's SIGKILL then orphaned every node, each in its own session)."""
    import os
    import re
    import signal
    import subprocess
    from biped_stack.launcher import stop_process_group
    file = tmp_path / "one.launch.xml"
    file.write_text('<launch><node pkg="biped_stack" exec="sim_bridge" name="sleeper"/></launch>')
    log = tmp_path / "launch.log"
    with open(log, "w") as out:
        process = subprocess.Popen([sys.executable, "-c", LAUNCH_DRIVER, str(file)], stdout=out, stderr=subprocess.STDOUT,
                                   start_new_session=True,
                                   preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN))
    try:
        deadline = time.monotonic() + 30
        while "] up" not in log.read_text() and time.monotonic() < deadline:
            time.sleep(0.05)
        node_pid = int(re.search(r"started sleeper \(pid (\d+)\)", log.read_text()).group(1))
        started = time.monotonic()
        stop_process_group(process, grace_s=10.0)
        assert time.monotonic() - started < 10.0, "SIGINT did not stop it: it took SIGTERM or SIGKILL"
        assert "interrupted; stopping all nodes" in log.read_text()
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline:
            try:
                os.kill(node_pid, 0)
            except ProcessLookupError:
                break
            time.sleep(0.05)
        else:
            raise AssertionError(f"the node (pid {node_pid}) outlived its launcher")
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
