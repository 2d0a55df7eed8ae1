"""Push recovery matrix (issue #16 bars 1–3): each push alone, on every robot × style, walking
at 0.3 m/s forward and standing, in-process lockstep on the estimator with MEMS sensors.

A case: stand 1 s then walk 0.3 m/s (or stand throughout), the push on the pelvis CoM at
t = 5 s (walking) or 3 s (standing), in the robot's heading frame, then 5 s more. Printed per
case: survived, when the commanded velocity was back (mean over 2 s within 0.05 m/s), steps the
feedback took to recover (touch-downs until the DCM error stayed small), the peak DCM error and
the peak feedback adjustments. Cases run in parallel (one process per core).

Run: .venv/bin/python bench/push_matrix.py [--robots humanoid,biped] [--styles neutral,bouncy]
       [--modes walk,stand] [--pushes paper,sides,impulses,goal] [--json out.json] [--jobs N]
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing
import sys
import time

PUSH_SETS = {
    # name: [(label, duration_s, fx, fy)] in the heading frame
    "paper": [("25N×1s fwd", 1.0, 25.0, 0.0), ("25N×1s back", 1.0, -25.0, 0.0)],
    "sides": [("15N×1s left", 1.0, 0.0, 15.0), ("15N×1s right", 1.0, 0.0, -15.0)],
    "impulses": [(f"150N×0.05s {deg}°", 0.05, 150.0 * math.cos(math.radians(deg)), 150.0 * math.sin(math.radians(deg)))
                 for deg in range(0, 360, 45)],
    "goal": [("50N×1s fwd", 1.0, 50.0, 0.0), ("50N×1s back", 1.0, -50.0, 0.0),
             ("30N×1s left", 1.0, 0.0, 30.0), ("30N×1s right", 1.0, 0.0, -30.0)],
}
WALK_SPEED_M_S = 0.3


def scenario_for(mode: str, label: str, duration_s: float, fx: float, fy: float):
    """The case's scenario (see the module docstring)."""
    from biped_stack.scenario import Scenario, ScenarioPush, Segment
    if mode == "walk":
        start = 5.0
        segments = (Segment("stand", 1.0, (0.0, 0.0, 0.0)),
                    Segment("forward", start + duration_s + 5.0 - 1.0, (WALK_SPEED_M_S, 0.0, 0.0)))
    else:
        start = 3.0
        segments = (Segment("stand", start + duration_s + 5.0, (0.0, 0.0, 0.0)),)
    return Scenario(f"push {label} {mode}", segments, (ScenarioPush(start, duration_s, (fx, fy, 0.0)),))


def run_case(case):
    """One case → a result row (dict)."""
    robot, style, mode, label, duration_s, fx, fy = case
    from biped_stack.walking import run_walk
    started = time.perf_counter()
    result = run_walk(robot, style, scenario_for(mode, label, duration_s, fx, fy), progress=lambda *_: None)
    push = result.metrics["pushes"][0]
    return {"robot": robot, "style": style, "mode": mode, "push": label, "survived": bool(push["survived"]),
            "fall_reason": result.metrics["fall_reason"], "regained_after_s": push["regained_after_s"],
            "feedback": (result.metrics.get("feedback", {}).get("pushes") or [None])[0] or {},
            "wall_s": time.perf_counter() - started}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--robots", default="humanoid,biped")
    parser.add_argument("--styles", default="neutral,bouncy")
    parser.add_argument("--modes", default="walk,stand")
    parser.add_argument("--pushes", default="paper,sides,impulses")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--json", default=None)
    args = parser.parse_args(argv)
    cases = [(robot, style, mode, *push)
             for robot in args.robots.split(",") for style in args.styles.split(",")
             for mode in args.modes.split(",") for name in args.pushes.split(",") for push in PUSH_SETS[name]]
    print(f"{len(cases)} cases on {args.jobs} processes", flush=True)
    rows = []
    with multiprocessing.get_context("spawn").Pool(args.jobs) as pool:
        for row in pool.imap(run_case, cases):
            rows.append(row)
            fb = row["feedback"]
            peaks = (f"  DCM err {fb['peak_dcm_error_m'] * 100:4.1f} cm  step {fb['peak_step_offset_m'] * 100:4.1f} cm  "
                     f"κ {fb['time_scale_range'][0]:.2f}–{fb['time_scale_range'][1]:.2f}  "
                     f"Δv {fb['peak_velocity_bias_m_s']:.2f} m/s  steps {fb['steps_to_recover']}" if fb else "")
            regained = row["regained_after_s"]
            print(f"{row['robot']:9s} {row['style']:7s} {row['mode']:5s} {row['push']:16s} "
                  f"{'survived' if row['survived'] else 'FELL    '}  regained "
                  f"{'—' if regained is None else f'{regained:4.2f} s':>6s}{peaks}"
                  + ("" if row["survived"] else f"  ({row['fall_reason']})"), flush=True)
    survived = sum(r["survived"] for r in rows)
    regained = sum(r["survived"] and r["regained_after_s"] is not None and r["regained_after_s"] <= 3.0 for r in rows)
    print(f"survived {survived} / {len(rows)}; velocity regained within 3 s in {regained}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)
    return 0 if survived == len(rows) else 1


if __name__ == "__main__":
    sys.exit(main())
