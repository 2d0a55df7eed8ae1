"""Issue #15 bar 1: the teleop script in real time over DDS, every robot × {neutral, bouncy}, on
the estimator with MEMS sensors, as ``biped-stack demo --multiprocess --realtime`` runs it (the
bridge and the control process at SCHED_FIFO ``--priority``). One run per row, one after the
other; prints fall, worst segment velocity errors, slip, and the bridge's real-time tally
(sim/wall, watchdog trips, deadline misses, latency p50/p99/max) with each process's CPU.

With ``--hardware`` (bar 2) the same through ``launch/hardware.launch.xml``: the bridge's
ros2_control backend against MuJoCo posing as a ros2_control robot (``demo --hardware``); the
sim/wall figure is then the mock robot's own pace.

Run: .venv/bin/python bench/realtime_matrix.py [--robots humanoid biped] [--styles neutral bouncy]
     [--scenario teleop] [--priority 50] [--hardware] [--launch-arg tf:=true]   (≈ 50 s a row)
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

import numpy as np

from biped_stack.ros_walk import run_walk_multiprocess
from biped_stack.scenario import load_scenario


def row(robot: str, style: str, metrics: dict) -> str:
    """One line of the table from a run's metrics."""
    worst = "—"
    if metrics["segments"]:
        errors = np.array([np.abs(np.subtract(s["achieved"], s["commanded"])) for s in metrics["segments"]])
        worst = f"{errors[:, :2].max():.3f} m/s, {errors[:, 2].max():.3f} rad/s"
    r = metrics.get("realtime", {})
    if "error" in r or not r:
        timing = r.get("error", "no real-time tally")
    else:
        lat, miss = r["latency_ms"], r["deadline_misses"]
        timing = (f"sim/wall {r['sim_over_wall']:.3f}, trips {r['watchdog_trips']}, misses {100 * miss['fraction']:.1f} % "
                  f"of {miss['frames']}, latency {lat['p50']:.2f}/{lat['p99']:.2f}/{lat['max']:.1f} ms")
    cpu = ", ".join(f"{k} {v:.0f} %" for k, v in r.get("cpu_percent", {}).items() if k != "stack_monitor")
    return (f"{robot:9s} {style:8s} fell {str(metrics['fell']):5s} worst {worst}, slip "
            f"{metrics['max_foot_slip_m'] * 100:.1f} cm | {timing} | CPU {cpu}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--robots", nargs="+", default=["humanoid", "biped"])
    parser.add_argument("--styles", nargs="+", default=["neutral", "bouncy"])
    parser.add_argument("--scenario", default="teleop")
    parser.add_argument("--priority", type=int, default=50, help="realtime_priority (0: default scheduler)")
    parser.add_argument("--hardware", action="store_true", help="hardware.launch.xml against the mock ros2_control robot")
    parser.add_argument("--launch-arg", action="append", default=[], metavar="NAME:=VALUE",
                        help="another launch argument, e.g. tf:=true (repeatable)")
    args = parser.parse_args()
    scenario = load_scenario(args.scenario)
    how = "hardware.launch.xml against the mock ros2_control robot" if args.hardware else "sim.launch.xml"
    print(f"real time over DDS ({how}), '{scenario.name}' ({scenario.duration_s:.0f} s), estimator + MEMS, "
          f"realtime_priority {args.priority}" + (f", {' '.join(args.launch_arg)}" if args.launch_arg else ""))
    for robot in args.robots:
        for style in args.styles:
            with tempfile.TemporaryDirectory() as out:
                result = run_walk_multiprocess(robot, style, scenario, Path(out), progress=lambda m: None,
                                               state_source="estimator", realtime=True,
                                               realtime_priority=args.priority, hardware=args.hardware,
                                               launch_args=args.launch_arg)
            print("  " + row(robot, style, result.metrics), flush=True)


if __name__ == "__main__":
    main()
