"""Per-tick compute of every core on the walking paths, in-process lockstep, and the loop's
real-time factor (issue #15 bars 3 and "per-tick compute cut ≥ 3×").

The run: stand 1 s, forward 0.3 m/s 4 s, turn 0.5 rad/s 3 s (neutral), on the estimator with MEMS
sensors, per robot. Each core's entry point is timed around its call (the class methods wrapped
here, nothing changed in the stack): at the control rate (:mod:`biped_common.rates`) the bridge's
measurement (MuJoCo sensors, contact wrenches), the bridge's step (command arbitration, the 1 kHz
``mj_step`` of one period), the state estimator, the walking WBC tick; at the planning rate the
gait planner (step + reference) and the MPC tick. Printed: p50 and
p99 per call [ms], and the loop's real-time factor without the timers (a separate run, so the
wrappers' own cost does not count).

Run: .venv/bin/python bench/core_ticks.py [biped|humanoid ...]
"""

from __future__ import annotations

import functools
import sys
import time
from collections import defaultdict

import numpy as np

from biped_common.rates import CONTROL_RATE_HZ, PLANNING_RATE_HZ
from biped_stack.scenario import Scenario, Segment
from biped_stack.walking import run_walk

SCENARIO = Scenario("bench", (Segment("stand", 1.0, (0.0, 0.0, 0.0)), Segment("forward", 4.0, (0.3, 0.0, 0.0)),
                              Segment("turn", 3.0, (0.0, 0.0, 0.5))))


def _targets():
    from gait_planner_node.planner import GaitPlanner
    from mpc_node.planning import ComPlanner
    from sim_bridge.bridge import SimBridge
    from state_estimator_node.estimator import StateEstimator
    from wbc_node.walking import WalkingWbc
    control, planning = f"({CONTROL_RATE_HZ:g} Hz)", f"({PLANNING_RATE_HZ:g} Hz)"
    return {f"bridge measure {control}": (SimBridge, "measure"),
            f"bridge submit {control}": (SimBridge, "submit"),
            f"bridge step {control}": (SimBridge, "step"),
            f"state estimator {control}": (StateEstimator, "update"),
            f"WBC tick {control}": (WalkingWbc, "command"),
            f"planner step {planning}": (GaitPlanner, "step"),
            f"planner reference {planning}": (GaitPlanner, "reference"),
            f"MPC tick {planning}": (ComPlanner, "update")}


def timed_run(robot: str) -> dict[str, np.ndarray]:
    """Walk :data:`SCENARIO` with every target method timed; durations [s] by label."""
    samples: dict[str, list[float]] = defaultdict(list)
    originals = []
    for label, (cls, name) in _targets().items():
        original = getattr(cls, name)
        originals.append((cls, name, original))

        def wrapper(*args, _original=original, _label=label, **kwargs):
            started = time.perf_counter()
            try:
                return _original(*args, **kwargs)
            finally:
                samples[_label].append(time.perf_counter() - started)
        setattr(cls, name, functools.wraps(original)(wrapper))
    try:
        result = run_walk(robot, "neutral", SCENARIO, progress=lambda m: None, state_source="estimator")
    finally:
        for cls, name, original in originals:
            setattr(cls, name, original)
    if result.metrics["fell"]:
        print(f"  WARNING: {robot} fell ({result.metrics['fall_reason']})")
    return {label: np.asarray(v) for label, v in samples.items()}


def main(robots: list[str]) -> None:
    print(f"per-tick compute, in-process lockstep, estimator + MEMS, {SCENARIO.duration_s:.0f} s of sim time")
    for robot in robots:
        rtf = run_walk(robot, "neutral", SCENARIO, progress=lambda m: None,
                       state_source="estimator").metrics["real_time_factor"]
        timings = timed_run(robot)
        print(f"  {robot}: loop real-time factor {rtf:.2f} (untimed run)")
        per_period = 0.0
        for label, durations in timings.items():
            ms = durations * 1e3
            rate_hz = CONTROL_RATE_HZ if f"({CONTROL_RATE_HZ:g} Hz)" in label else PLANNING_RATE_HZ
            per_period += ms.mean() * rate_hz / CONTROL_RATE_HZ
            print(f"    {label:32s} p50 {np.median(ms):6.3f} ms  p99 {np.percentile(ms, 99):6.3f} ms  (n={ms.size})")
        print(f"    {f'sum per {1e3 / CONTROL_RATE_HZ:g} ms control period (means)':32s} {per_period:6.3f} ms")


if __name__ == "__main__":
    main(sys.argv[1:] or ["biped", "humanoid"])
