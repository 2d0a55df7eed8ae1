"""Gait planner cost per planning tick (biped_common.rates, 50 Hz): step(20 ms) + the 2 s reference preview (51 samples),
per style, with a command that changes every second (so the sampler re-blends); medians and
p99s. Target (issue #3): p99 < 1 ms.

Run: make bench  (or .venv/bin/python bench/gait_planner_tick.py)
"""

from __future__ import annotations

import time

import numpy as np

from biped_common.robot_model import load_robot
from biped_common.rates import PLANNING_RATE_HZ
from gait_planner_node.planner import GaitPlanner, PlannerConfig
from gait_planner_node.style import load_style, shipped_styles

TICK_S = 1.0 / PLANNING_RATE_HZ
TICKS = 5000  # 100 s of gait per style
COMMANDS = [(0.3, 0.0, 0.0), (0.1, 0.05, 0.3), (-0.15, 0.0, 0.0), (0.0, -0.1, -0.4), (0.0, 0.0, 0.0)]


def main() -> None:
    config = PlannerConfig.for_robot(load_robot("humanoid"))
    print(f"gait planner per {PLANNING_RATE_HZ:g} Hz tick (step + {config.preview_horizon_s:.0f} s preview at "
          f"{config.preview_dt_s * 1e3:.0f} ms, {config.tracking_dt_s * 1e3:.0f} ms over the first "
          f"{config.tracking_horizon_s:g} s), {TICKS} ticks per style:")
    for name in shipped_styles():
        planner = GaitPlanner(load_style(name), config)
        step_ms, preview_ms = [], []
        for k in range(TICKS):
            planner.set_command(COMMANDS[int(k * TICK_S) % len(COMMANDS)])  # a new command every second
            t0 = time.perf_counter()
            planner.step(TICK_S)
            t1 = time.perf_counter()
            planner.reference()
            t2 = time.perf_counter()
            step_ms.append((t1 - t0) * 1e3)
            preview_ms.append((t2 - t1) * 1e3)
        total = np.array(step_ms) + np.array(preview_ms)
        print(f"  {name:8s} step median {np.median(step_ms):.3f} ms p99 {np.percentile(step_ms, 99):.3f} | "
              f"preview median {np.median(preview_ms):.3f} ms p99 {np.percentile(preview_ms, 99):.3f} | "
              f"tick median {np.median(total):.3f} ms p99 {np.percentile(total, 99):.3f} ms")


if __name__ == "__main__":
    main()
