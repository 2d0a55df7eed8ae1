"""The shadow check (issue #17): before an edited style reaches a running robot, walk it here —
the planner's reference against the legs' reach, then the in-process stack in MuJoCo (estimator
and MEMS sensors, as the robot runs) at the edited sample's velocity and halfway to each of its
neighbours — and refuse it, with the reason, if the robot would fall, slip or over-reach (ROS-free).

004's stated limitation is that an animator's edit can ask more than the controller can do; the
check is the answer to it. Each velocity walks 4 s simulated; on an idle 2-core machine the
in-process stack runs them at ≈ 2.3× real time, 3.5–5 s per edit (``bench/editor_costs.py``);
with the simulated DDS stack running on the same cores it shares them (~7 s).
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from biped_common.robot_model import load_robot
from biped_stack.scenario import Scenario, Segment
from biped_stack.style_tools import simulate
from gait_planner_node.planner import PlannerConfig
from gait_planner_node.reachability import LegGeometry, ankle_reach_margin_m
from gait_planner_node.style import SAMPLE_KEYS, Style, load_style

STAND_S = 0.5
WALK_S = 3.5
MAX_SLIP_M = 0.02  # issue #17's "slips": the walking bars' slip limit
# Each key sample's neighbours along the blending axes (the others it blends with).
NEIGHBOURS = {
    "forward_fast": ("forward_slow",), "forward_slow": ("in_place", "forward_fast"),
    "in_place": ("forward_slow", "backward_slow", "sidestep_left", "sidestep_right", "turn_left", "turn_right"),
    "backward_slow": ("in_place", "backward_fast"), "backward_fast": ("backward_slow",),
    "sidestep_left": ("in_place",), "sidestep_right": ("in_place",), "turn_left": ("in_place",),
    "turn_right": ("in_place",),
}
assert set(NEIGHBOURS) == set(SAMPLE_KEYS)


@dataclass(frozen=True)
class ShadowRun:
    """One velocity of the check: what it walked and how it went."""

    velocity: tuple[float, float, float]
    fell: bool
    reason: str
    max_slip_m: float
    min_reach_margin_m: float


@dataclass(frozen=True)
class ShadowVerdict:
    """The check's answer: ``ok``, the reason when not, and each velocity's run."""

    ok: bool
    reason: str
    runs: tuple[ShadowRun, ...]


def check_velocities(style: Style, key: str, max_neighbours: int = 2) -> list[np.ndarray]:
    """The velocities the check walks for an edit of sample ``key``: its key velocity (in place:
    its neighbours' instead) and halfway to each neighbour (at most ``max_neighbours``)."""
    own = style.key_velocity(key)
    halfway = [0.5 * (own + style.key_velocity(n)) for n in NEIGHBOURS[key][:max_neighbours]]
    return ([] if key == "in_place" else [own]) + halfway


def shadow_check(style_text: str, key: str, robot_name: str, progress=lambda *_: None) -> ShadowVerdict:
    """Walk the style written in ``style_text`` (YAML) after an edit of sample ``key`` on
    ``robot_name`` (see the module docstring); the first failure ends the check."""
    from biped_stack.walking import run_walk  # MuJoCo: only when a check runs
    with tempfile.TemporaryDirectory(prefix="biped_shadow_") as folder:
        path = Path(folder) / "edited.yaml"
        path.write_text(style_text, encoding="utf-8")
        style = load_style(path)
        robot = load_robot(robot_name)
        config = PlannerConfig.for_robot(robot)
        legs = LegGeometry.from_robot(robot)
        runs = []
        for velocity in check_velocities(style, key):
            v = tuple(round(float(x), 4) for x in velocity)
            _, refs, _ = simulate(style, config, velocity, cycles=2.0, settle_s=1.0)
            margin = min(float(np.min(m)) for r in refs for m in ankle_reach_margin_m(r, legs).values())
            if margin < 0.0:
                runs.append(ShadowRun(v, False, "", 0.0, margin))
                return ShadowVerdict(False, f"at v = {list(v)} the planned feet leave the legs' reach by "
                                            f"{-margin * 100:.1f} cm", tuple(runs))
            progress(f"shadow check: walking v = {list(v)} in MuJoCo …")
            scenario = Scenario("shadow check", (Segment("stand", STAND_S, (0.0, 0.0, 0.0)),
                                                 Segment("walk", WALK_S, v)), ())
            result = run_walk(robot_name, str(path), scenario, progress=lambda *_: None)
            m = result.metrics
            runs.append(ShadowRun(v, bool(m["fell"]), m["fall_reason"], float(m["max_foot_slip_m"]), margin))
            if m["fell"]:
                return ShadowVerdict(False, f"at v = {list(v)} the robot falls ({m['fall_reason']})", tuple(runs))
            if m["max_foot_slip_m"] > MAX_SLIP_M:
                return ShadowVerdict(False, f"at v = {list(v)} a foot slips {m['max_foot_slip_m'] * 100:.1f} cm "
                                            f"(> {MAX_SLIP_M * 100:.0f} cm)", tuple(runs))
    return ShadowVerdict(True, "", tuple(runs))
