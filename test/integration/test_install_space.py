"""The ROS 2 install route, as on a machine with a ROS 2 distribution: colcon builds the package
into an install space (copied files, no symlinks), and the walking stack comes up from it — the
installed executables (``lib/biped_stack/``) and share files (``share/biped_stack/``), nothing from
this checkout. ``ros2 launch`` is not installable here, so the project's launcher runs the same
launch file the way ``ros2 launch biped_stack sim.launch.xml`` does.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pytest
from geometry_msgs.msg import Twist
from std_msgs.msg import Float64MultiArray

from biped_common.resources import package_share
from biped_common.robot_model import load_robot
from dds_helpers import Probe, Processes

pytestmark = pytest.mark.dds

NOT_SOURCE = shutil.ignore_patterns(".*", "out", "build", "install", "log", "*.egg-info", "__pycache__")
# Processes the launch starts (the default composed layout: planner + MPC, estimator + WBC).
PROCESSES = {"sim_bridge", "stack_monitor", "walking_planning", "walking_control", "tf_publisher"}


@dataclass(frozen=True)
class InstallSpace:
    prefix: Path                  # <install>/biped_stack
    variables: dict[str, str]     # what `source install/setup.bash` sets, for this install only

    def env(self) -> dict[str, str]:
        """This process's environment (its ROS_DOMAIN_ID) with the install space's variables."""
        return dict(os.environ, **self.variables)

    @property
    def cli(self) -> str:
        return str(self.prefix / "lib" / "biped_stack" / "biped-stack")


def colcon_install(workspace: Path) -> InstallSpace:
    """``colcon build`` of a copy of this package's source into ``workspace/install``."""
    shutil.copytree(package_share(), workspace / "src" / "biped_stack", ignore=NOT_SOURCE)
    colcon = Path(sys.executable).parent / "colcon"
    result = subprocess.run([str(colcon), "--log-base", "log", "build", "--base-paths", "src"],
                            cwd=workspace, capture_output=True, text=True, timeout=300,
                            env=dict(os.environ, AMENT_PREFIX_PATH=sys.prefix))
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    prefix = workspace / "install" / "biped_stack"
    site = prefix / "lib" / f"python{sys.version_info.major}.{sys.version_info.minor}" / "site-packages"
    return InstallSpace(prefix, {
        "PYTHONPATH": str(site),
        # The install space first; then the venv, where the ROS 2 wheels (rclpy, messages) live.
        "AMENT_PREFIX_PATH": os.pathsep.join([str(prefix), sys.prefix])})


@pytest.fixture(scope="module")
def install_space(tmp_path_factory) -> InstallSpace:
    return colcon_install(tmp_path_factory.mktemp("colcon_ws"))


def test_the_install_holds_the_share_files_and_the_code_uses_them(install_space):
    share = install_space.prefix / "share" / "biped_stack"
    for shipped in ("package.xml", "launch/sim.launch.xml", "config/sim.yaml", "config/styles/neutral.yaml",
                    "config/scenarios/teleop.yaml", "config/arm_angle_mlp.npz", "robots/humanoid.xml",
                    "robots/humanoid.yaml", "web/editor/index.html", "web/editor/editor.js"):
        assert (share / shipped).is_file() and not (share / shipped).is_symlink(), shipped
    probe = subprocess.run(
        [sys.executable, "-c", "import biped_common.resources as r; from gait_planner_node.style import "
         "shipped_styles; print(r.__file__); print(r.package_share()); print(shipped_styles())"],
        env=install_space.env(), cwd=install_space.prefix, capture_output=True, text=True, timeout=60)
    module, found_share, styles = probe.stdout.splitlines()
    assert Path(module).is_relative_to(install_space.prefix), probe.stdout + probe.stderr
    assert Path(found_share) == share and styles == "['bouncy', 'brisk', 'limp', 'neutral']"


def test_the_walking_stack_comes_up_from_the_install_and_walks(install_space, tmp_path, ros_domain_id):
    processes = Processes(tmp_path)
    probe = Probe(ros_domain_id)
    try:
        references = []
        probe.node.create_subscription(Float64MultiArray, "/gait/reference", references.append, 10)
        started = time.monotonic()
        launcher = processes.start("launch", [install_space.cli, "launch", "biped_stack", "sim.launch.xml"],
                                   env=install_space.env(), cwd=tmp_path)
        assert probe.spin_until(lambda: probe.sim_time_s() >= 0.5 and references, timeout_s=120,
                                alive=[launcher]), processes.output("launch")[-3000:]

        # Every node is the installed executable, and all are alive 10 s after the start.
        probe.spin_until(lambda: False, timeout_s=max(0.0, 10.0 - (time.monotonic() - started)))
        log = processes.output("launch")
        pids = {name: (int(pid), Path(path)) for name, pid, path in
                re.findall(r"\[launch\] started (\S+) \(pid (\d+)\): (\S+)", log)}
        assert set(pids) == PROCESSES, log[-3000:]
        for name, (pid, path) in pids.items():
            assert path.is_relative_to(install_space.prefix / "lib" / "biped_stack"), (name, path)
            os.kill(pid, 0)  # raises if the node is gone
        assert "exited with code" not in log and "Traceback" not in log, log[-3000:]

        # It walks when /cmd_vel arrives.
        cmd_vel = probe.publisher(Twist, "/cmd_vel")
        forward = Twist()
        forward.linear.x = 0.25
        x0 = probe.pelvis_xy_m[-1][0]

        def walked_15_cm() -> bool:
            cmd_vel.publish(forward)  # at the probe's spin rate (≤ 20 Hz): never a cmd_vel timeout
            return probe.pelvis_xy_m[-1][0] - x0 >= 0.15

        walked = probe.spin_until(walked_15_cm, timeout_s=150, alive=[launcher])
        nominal = load_robot("humanoid").nominal_pelvis_height_m
        assert walked, (probe.pelvis_xy_m[-1][0] - x0, processes.output("launch")[-3000:])
        assert min(z for _, z in probe.odometry[-200:]) > 0.8 * nominal
        assert processes.stop("launch") == 0
    finally:
        processes.stop_all()
        probe.close()


def test_a_missing_style_ends_the_launch_with_an_error_naming_it(install_space, tmp_path, ros_domain_id):
    processes = Processes(tmp_path)
    try:
        launcher = processes.start("launch", [install_space.cli, "launch", "biped_stack", "sim.launch.xml",
                                              "style:=no_such_style"], env=install_space.env(), cwd=tmp_path)
        code = launcher.wait(timeout=90)  # TimeoutExpired (a failure) if the launch hangs
        log = processes.output("launch")
        assert code != 0, log[-3000:]
        assert "no shipped style 'no_such_style' (shipped: bouncy, brisk, limp, neutral)" in log
        assert "[launch] the launch ended because stack_monitor exited with code 2" in log
        assert log.rstrip().endswith("(shipped: bouncy, brisk, limp, neutral)"), log[-1500:]
    finally:
        processes.stop_all()
