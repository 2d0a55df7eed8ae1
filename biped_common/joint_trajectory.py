"""A joint trajectory at absolute (sim) times: what a reach sends the whole-body controller."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class TimedJointTrajectory:
    """Joint angles (N, joints) [rad] for ``joint_names`` at ``start_s + times_s`` [s]; held
    before the start and after the end."""

    joint_names: tuple[str, ...]
    start_s: float
    times_s: np.ndarray
    positions_rad: np.ndarray

    def __post_init__(self):
        times, positions = np.asarray(self.times_s, dtype=float), np.asarray(self.positions_rad, dtype=float)
        if positions.shape != (times.size, len(self.joint_names)) or times.size < 1:
            raise ValueError(f"positions {positions.shape} do not match {times.size} times × {len(self.joint_names)} joints")
        if np.any(np.diff(times) <= 0) or not (np.all(np.isfinite(times)) and np.all(np.isfinite(positions))
                                                and np.isfinite(self.start_s)):
            raise ValueError("a joint trajectory needs finite values at strictly increasing times")

    def at(self, time_s) -> np.ndarray:
        """Joint angles at absolute times (M,) → (M, joints), linearly interpolated."""
        t = np.clip(np.asarray(time_s, dtype=float) - self.start_s, self.times_s[0], self.times_s[-1])
        return np.column_stack([np.interp(t, self.times_s, self.positions_rad[:, j])
                                for j in range(len(self.joint_names))])

    @property
    def end_s(self) -> float:
        return self.start_s + float(self.times_s[-1])
