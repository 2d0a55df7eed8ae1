"""The velocity-tracking bars every walking issue holds a run to, in one place for the tests and
the benchmarks: a segment's steady-state mean velocity (:func:`biped_stack.scenario.segment_metrics`)
against what the style can walk — the command clamped into the style's range
(:func:`gait_planner_node.sampler.command_in_range`), so that a command beyond a style's fastest
sample (limp turns at 0.4 rad/s at most) is held to the style's limit, not to the command."""

from __future__ import annotations

import numpy as np

from gait_planner_node.sampler import command_in_range
from gait_planner_node.style import Style

VELOCITY_BAR_M_S = 0.05     # |ẋ|, |ẏ| error of a segment's steady-state mean [m/s]
YAW_RATE_BAR_RAD_S = 0.1    # |ω| error [rad/s]


def segment_velocity_error(style: Style, segment: dict) -> np.ndarray:
    """Achieved − walkable (ẋ [m/s], ẏ [m/s], ω [rad/s]) of one entry of metrics' ``segments``
    (heading frame), the walkable velocity being the commanded one clamped into ``style``'s range."""
    return np.subtract(segment["achieved"], command_in_range(style, segment["commanded"]))


def within_velocity_bars(error) -> bool:
    """Whether a (ẋ, ẏ, ω) error is within :data:`VELOCITY_BAR_M_S` / :data:`YAW_RATE_BAR_RAD_S`
    on every axis (NaN — a segment with no samples — is not)."""
    error = np.abs(np.asarray(error, dtype=float))
    return bool(error[0] <= VELOCITY_BAR_M_S and error[1] <= VELOCITY_BAR_M_S and error[2] <= YAW_RATE_BAR_RAD_S)
