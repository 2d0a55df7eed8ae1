"""Real-time factor of the simulator: bare MuJoCo steps, and the bridge's full control period
(joint loop at every physics step + sensor read) — per robot, medians and p99s of repeated runs.

Run: make bench  (or .venv/bin/python bench/sim_realtime_factor.py)
"""

from __future__ import annotations

import time

import mujoco
import numpy as np

from biped_common.robot_model import available_robots, load_robot
from sim_bridge.bridge import BridgeConfig, SimBridge
from sim_bridge.mujoco_backend import MujocoBackend
from wbc_node.stand import StandController

REPEATS = 15
SIM_SECONDS = 1.0


def bare_mujoco_rtf(robot) -> float:
    model = robot.mj_model
    data = mujoco.MjData(model)
    data.qpos[:] = robot.standing_qpos()
    steps = int(SIM_SECONDS / model.opt.timestep)
    started = time.perf_counter()
    for _ in range(steps):
        mujoco.mj_step(model, data)
    return SIM_SECONDS / (time.perf_counter() - started)


def bridge_period_times_ms(robot) -> tuple[np.ndarray, np.ndarray]:
    """Per control period: bridge step+measure [ms], stand controller [ms]."""
    config = BridgeConfig(robot=robot.name)
    backend = MujocoBackend(robot)
    bridge = SimBridge(backend, robot.kd, config)
    controller = StandController(robot)
    bridge_ms, controller_ms = [], []
    for _ in range(int(SIM_SECONDS / config.control_period_s)):
        t0 = time.perf_counter()
        frame = bridge.measure()
        t1 = time.perf_counter()
        bridge.submit(controller.command(frame))
        t2 = time.perf_counter()
        bridge.step()
        t3 = time.perf_counter()
        bridge_ms.append((t1 - t0 + t3 - t2) * 1e3)
        controller_ms.append((t2 - t1) * 1e3)
    return np.array(bridge_ms), np.array(controller_ms)


def main() -> None:
    print(f"simulator real-time factor ({REPEATS} runs of {SIM_SECONDS:.0f} s sim each)")
    for name in available_robots():
        robot = load_robot(name)
        bare = np.array([bare_mujoco_rtf(robot) for _ in range(REPEATS)])
        bridge_ms, controller_ms = bridge_period_times_ms(robot)
        period_ms = BridgeConfig().control_period_s * 1e3
        print(f"  {name:9s} bare MuJoCo (1 kHz physics): RTF median {np.median(bare):6.1f}  "
              f"p1 {np.percentile(bare, 1):6.1f}")
        print(f"  {name:9s} bridge control period ({period_ms:.0f} ms sim): median {np.median(bridge_ms):.3f} ms  "
              f"p99 {np.percentile(bridge_ms, 99):.3f} ms  -> bridge-only RTF {period_ms / np.median(bridge_ms):.1f}")
        print(f"  {name:9s} stand controller: median {np.median(controller_ms):.3f} ms  "
              f"p99 {np.percentile(controller_ms, 99):.3f} ms")


if __name__ == "__main__":
    main()
