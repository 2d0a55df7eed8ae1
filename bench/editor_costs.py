"""What the style editor's server costs per request (issue #17): the 2-D preview, the 3D view's
posed motion, and the shadow check an edit passes before it reaches a running robot — with the
check's real-time factor (simulated seconds walked / wall seconds).

Per robot, neutral, the edited sample forward_slow (the check walks its key velocity and halfway
to in_place and to forward_fast: 3 × 4 s simulated) and in_place (2 × 4 s). Printed: median and p99
wall time [s] over the repetitions. Run on an otherwise idle machine: with the DDS stack running
beside it on the same two cores, the check shares them (measured in
test/integration/test_editor_live_stack.py: ~7 s for forward_slow).

Run: .venv/bin/python bench/editor_costs.py [--repeat N] [biped|humanoid ...]
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from biped_common.resources import styles_dir
from biped_common.robot_model import load_robot
from biped_stack.editor.poses import planned_motion
from biped_stack.editor.preview import preview
from biped_stack.editor.shadow import STAND_S, WALK_S, shadow_check
from gait_planner_node.planner import PlannerConfig
from gait_planner_node.style import load_style


def timed(call, repeat: int) -> tuple[np.ndarray, object]:
    times, out = [], None
    for _ in range(repeat):
        started = time.perf_counter()
        out = call()
        times.append(time.perf_counter() - started)
    return np.array(times), out


def row(label: str, times: np.ndarray, extra: str = "") -> None:
    print(f"  {label:<34} median {np.median(times):6.3f} s   p99 {np.percentile(times, 99):6.3f} s  {extra}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("robots", nargs="*", default=["humanoid", "biped"])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    text = (styles_dir() / "neutral.yaml").read_text()
    style = load_style("neutral")
    for name in args.robots:
        robot = load_robot(name)
        config = PlannerConfig.for_robot(robot)
        print(f"{name} (neutral, {args.repeat} repetitions)")
        row("preview at 0.3 m/s", timed(lambda: preview(style, config, [0.3, 0.0, 0.0]), args.repeat)[0])
        row("3D motion at 0.3 m/s", timed(lambda: planned_motion(style, config, robot, [0.3, 0.0, 0.0]), args.repeat)[0])
        for key in ("forward_slow", "in_place"):
            times, verdict = timed(lambda: shadow_check(text, key, name), args.repeat)
            simulated_s = len(verdict.runs) * (STAND_S + WALK_S)
            factor = simulated_s / times
            row(f"shadow check, edit of {key}", times,
                f"{len(verdict.runs)} velocities, {simulated_s:.0f} s simulated: "
                f"{np.median(factor):.2f}× real time (worst {factor.min():.2f}×), {'passed' if verdict.ok else verdict.reason}")


if __name__ == "__main__":
    main()
