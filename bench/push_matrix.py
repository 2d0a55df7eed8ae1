"""Push recovery matrix (issue #16 bars 1–3): each push alone, on every robot × style, walking
at 0.3 m/s forward and standing, in-process lockstep on the estimator with MEMS sensors.

A case: stand 1 s then walk 0.3 m/s (or stand throughout), the push on the pelvis CoM at
t = 5 s (walking) or 3 s (standing), in the robot's heading frame, then 5 s more. Printed per
case: survived, when the commanded velocity was back (mean over 2 s within 0.05 m/s) and the
mean step period over those 2 s relative to the 2 s before the push (walking), steps the
feedback took to recover (touch-downs until the DCM error stayed small), the peak DCM error and
the peak feedback adjustments. Cases run in parallel (one process per core).

Run: .venv/bin/python bench/push_matrix.py [--robots humanoid,biped] [--styles neutral,bouncy]
       [--modes walk,stand] [--pushes paper,sides,impulses,goal] [--json out.json] [--jobs N]
       [--wbc-gains FILE] [--delays 0,0.1,0.2,0.3]

``--delays`` repeats every case with the push that much later [s]: at other phases of the gait.
The bars push at one instant; whether a push is survived can hinge on the foot that happens to
be swinging then, so comparisons of controllers are fairer over several phases.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import sys
import time

from biped_stack.push_cases import PUSH_SETS, scenario_for  # noqa: E402


def run_case(case):
    """One case → a result row (dict)."""
    robot, style, mode, label, duration_s, fx, fy, wbc_gains, delay_s = case
    from biped_stack.walking import run_walk
    started = time.perf_counter()
    result = run_walk(robot, style, scenario_for(mode, label, duration_s, fx, fy, delay_s), progress=lambda *_: None,
                      wbc_gains=wbc_gains)
    if delay_s:
        label = f"{label} +{delay_s:g}s"
    push = result.metrics["pushes"][0]
    return {"robot": robot, "style": style, "mode": mode, "push": label, "survived": bool(push["survived"]),
            "fall_reason": result.metrics["fall_reason"], "regained_after_s": push["regained_after_s"],
            "step_period_ratio": push["step_period_ratio"],
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
    parser.add_argument("--wbc-gains", default=None, metavar="FILE", help="WBC gains file (default config/wbc.yaml)")
    parser.add_argument("--delays", default="0", help="push this much later [s], comma-separated: each case once per delay")
    args = parser.parse_args(argv)
    delays = [float(d) for d in args.delays.split(",")]
    cases = [(robot, style, mode, *push, args.wbc_gains, delay)
             for robot in args.robots.split(",") for style in args.styles.split(",")
             for mode in args.modes.split(",") for name in args.pushes.split(",") for push in PUSH_SETS[name]
             for delay in delays]
    print(f"{len(cases)} cases on {args.jobs} processes", flush=True)
    rows = []
    with multiprocessing.get_context("spawn").Pool(args.jobs) as pool:
        for row in pool.imap(run_case, cases):
            rows.append(row)
            fb = row["feedback"]
            peaks = (f"  DCM err {fb['peak_dcm_error_m'] * 100:4.1f} cm  step {fb['peak_step_offset_m'] * 100:4.1f} cm  "
                     f"κ {fb['time_scale_range'][0]:.2f}–{fb['time_scale_range'][1]:.2f}  "
                     f"clock {fb['clock_scale_range'][0]:.2f}–{fb['clock_scale_range'][1]:.2f}  "
                     f"Δv {fb['peak_velocity_bias_m_s']:.2f} m/s  steps {fb['steps_to_recover']}" if fb else "")
            regained, ratio = row["regained_after_s"], row["step_period_ratio"]
            peaks += "" if ratio is None else f"  step period ×{ratio:.3f}"
            print(f"{row['robot']:9s} {row['style']:7s} {row['mode']:5s} {row['push']:22s} "
                  f"{'survived' if row['survived'] else 'FELL    '}  regained "
                  f"{'—' if regained is None else f'{regained:4.2f} s':>6s}{peaks}"
                  + ("" if row["survived"] else f"  ({row['fall_reason']})"), flush=True)
    survived = sum(r["survived"] for r in rows)
    regained = sum(r["survived"] and r["regained_after_s"] is not None and r["regained_after_s"] <= 3.0 for r in rows)
    timed = [r["step_period_ratio"] for r in rows if r["survived"] and r["step_period_ratio"] is not None]
    print(f"survived {survived} / {len(rows)}; velocity regained within 3 s in {regained}; step period "
          f"within 5 % of unpushed in {sum(abs(x - 1.0) <= 0.05 for x in timed)} of the {len(timed)} walking ones timed")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)
    return 0 if survived == len(rows) else 1


if __name__ == "__main__":
    sys.exit(main())
