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
    assert set(by_name) == {"sim_bridge", "gait_planner", "state_estimator", "mpc", "wbc"}
    assert ("mode", "walk") in by_name["wbc"].params and ("style", "neutral") in by_name["gait_planner"].params
    standing = {n.name: n for n in parse_launch_file(SHARE / "launch" / "sim.launch.xml", {"walk": "false"})}
    assert set(standing) == {"sim_bridge", "wbc"} and ("mode", "stand") in standing["wbc"].params
    bridge = by_name["sim_bridge"]
    assert ("robot", "biped") in bridge.params and ("timing_mode", "realtime") in bridge.params
    assert bridge.param_files == (str(SHARE / "config" / "sim.yaml"),)
    assert ("use_sim_time", "true") in by_name["wbc"].params and ("robot", "biped") in by_name["wbc"].params
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


def test_group_stops_everything_when_one_node_ends_even_if_another_ignores_signals(monkeypatch, capsys):
    import biped_stack.launcher as launcher
    commands = {
        "quits": [sys.executable, "-c", "import time; time.sleep(0.5); print('bye'); raise SystemExit(3)"],
        "stubborn": [sys.executable, "-c", textwrap.dedent("""
            import signal, time
            signal.signal(signal.SIGINT, signal.SIG_IGN)
            signal.signal(signal.SIGTERM, signal.SIG_IGN)
            print('ready', flush=True)
            time.sleep(120)""")],
    }
    monkeypatch.setattr(launcher, "executable_command", lambda pkg, exe: commands[exe])
    monkeypatch.setattr(NodeSpec, "ros_args", lambda self: [])
    group = ProcessGroup([NodeSpec("p", "quits", "quits"), NodeSpec("p", "stubborn", "stubborn")], out=sys.stdout)
    started = time.monotonic()
    group.start()
    assert group.wait(timeout_s=30) == 3
    assert all(p.poll() is not None for _, p in group.processes)
    assert time.monotonic() - started < 15
    out = capsys.readouterr().out
    assert "[quits   ] bye" in out and "quits exited with code 3" in out
