"""Gains scheduled by push: the style's gains while nothing pushes, push-recovery gains while
something does (issues #16 and #18).

The gains that walk a style most faithfully (``config/wbc_style_first.yaml``: legs' posture from
the task references, stiff swing with its acceleration fed forward, a heavy pelvis task) are the
ones a pushed robot falls with (18 of the 48 neutral push cases survived), and the gains that
recover (``config/wbc.yaml``) flatten the style. Switching between them by the time of each push
(known in a benchmark, not on a robot) survived 12 of 12 humanoid walking pushes with the
style-first gains the rest of the time; switched 0.4 s into the push, when the DCM error shows
it, one of four sustained pushes fell. A push shows sooner in the MPC's disturbance observer
(:mod:`mpc_node.planning`: the CoM plan carries its estimate δ̂ = F/m): it stays below
0.25 m/s² over the whole teleop script and passes 0.4 m/s² within ≈ 50 ms of a 15–25 N push.

So a **recovery level** r ∈ [0, 1] rises with |δ̂| (0 below ``disturbance_start_m_s2``, 1 from
``disturbance_full_m_s2``) at once, holds its peak ``hold_s`` after the push estimate falls (the
robot is still catching its DCM), then decays to zero over ``release_s``; the WBC's task gains are
the style's blended towards the recovery gains by r (:func:`blend_gains`), the legs' posture
blend ``leg_posture_from_tasks`` included. Units SI.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields, replace
from pathlib import Path

from biped_common.config import ConfigError, bounded, dataclass_from_mapping
from biped_common.resources import params_file
from wbc_node.wbc import RECOVERY_KEY, WbcGains, read_gains_file

LEVEL_STEPS = 10           # the level is quantized to 1/LEVEL_STEPS: the tasks are built once per step
# Fields of the gains that are not blended: the QP's contact model and regularization (its
# layout is built once), the stance damping and rolling (a constraint's, not a task's).
UNBLENDED = frozenset({"friction", "min_normal_force_n", "acceleration_regularization", "force_regularization",
                       "stance_kd", "stance_roll_pitch_rad"})


@dataclass(frozen=True)
class RecoverySchedule:
    """When and to what the WBC's gains change under a push (module docstring)."""

    gains_file: str  # the recovery gains: a WBC gains file, relative to the file naming it or config/
    disturbance_start_m_s2: float = bounded(0.0, 20.0, "m/s²", "push estimate |δ̂| where the recovery level starts")
    disturbance_full_m_s2: float = bounded(0.0, 20.0, "m/s²", "push estimate |δ̂| where the level reaches 1")
    hold_s: float = bounded(0.0, 10.0, "s", "how long the level holds its peak after the push estimate falls")
    release_s: float = bounded(0.01, 10.0, "s", "then the time from level 1 to 0")

    def __post_init__(self):
        if not isinstance(self.gains_file, str) or not self.gains_file:
            raise ConfigError("gains_file", f"must name a WBC gains file, got {self.gains_file!r}")
        if self.disturbance_full_m_s2 <= self.disturbance_start_m_s2:
            raise ConfigError("disturbance_full_m_s2", f"must exceed disturbance_start_m_s2 "
                              f"({self.disturbance_start_m_s2:g}), got {self.disturbance_full_m_s2:g}")

    def recovery_gains_path(self, gains_path: str | Path | None) -> Path:
        """Where :attr:`gains_file` is: next to the file naming it when there, else a shipped
        config file."""
        if gains_path:
            beside = Path(gains_path).parent / self.gains_file
            if beside.is_file():
                return beside
        return params_file(self.gains_file)


def blend_gains(style: WbcGains, recovery: WbcGains, level: float) -> WbcGains:
    """The WBC gains ``level`` ∈ [0, 1] of the way from
    ``style`` to ``recovery``, linearly, every field but :data:`UNBLENDED` (the style's)."""
    level = min(max(float(level), 0.0), 1.0)
    values = {f.name: getattr(style, f.name) + level * (getattr(recovery, f.name) - getattr(style, f.name))
              for f in fields(style) if f.name not in UNBLENDED}
    return replace(style, **values)


class RecoveryLevel:
    """The recovery level r ∈ [0, 1] over time, from the push estimate (module docstring)."""

    def __init__(self, schedule: RecoverySchedule):
        self.schedule = schedule
        self.level = 0.0
        self._hold_left_s = 0.0

    def update(self, dt_s: float, disturbance_m_s2) -> float:
        """One control tick of ``dt_s`` [s] with the push estimate δ̂ (2,) [m/s², world] → r,
        quantized to 1/:data:`LEVEL_STEPS` upwards (a push is not rounded away). A non-finite δ̂
        counts as none."""
        s = self.schedule
        size = math.hypot(float(disturbance_m_s2[0]), float(disturbance_m_s2[1]))
        if not math.isfinite(size):
            size = 0.0
        target = min(max((size - s.disturbance_start_m_s2) / (s.disturbance_full_m_s2 - s.disturbance_start_m_s2),
                         0.0), 1.0)
        if target >= self.level:
            self.level, self._hold_left_s = target, s.hold_s
        elif self._hold_left_s > 0.0:
            self._hold_left_s -= dt_s
        else:
            self.level = max(target, self.level - dt_s / s.release_s)
        return math.ceil(self.level * LEVEL_STEPS - 1e-9) / LEVEL_STEPS


@dataclass(frozen=True)
class ScheduledGains:
    """What a WBC gains file asks for: ``style`` gains (:class:`wbc_node.wbc.WbcGains`) and, when
    it has a ``recovery:`` block, its ``schedule`` and the ``recovery`` gains it names (else both
    None: the style gains throughout)."""

    style: WbcGains
    schedule: RecoverySchedule | None = None
    recovery: WbcGains | None = None

    @classmethod
    def load(cls, path: str | Path | None = None) -> "ScheduledGains":
        """From a WBC gains file (default ``config/wbc.yaml``); ConfigError naming the field (of
        the recovery gains file too, which must not schedule again)."""
        gains, block = read_gains_file(path)
        style = dataclass_from_mapping(WbcGains, gains, "")
        if block is None:
            return cls(style)
        schedule = dataclass_from_mapping(RecoverySchedule, block, RECOVERY_KEY)
        recovery_path = schedule.recovery_gains_path(path)
        recovery, nested = read_gains_file(recovery_path)
        if nested is not None:
            raise ConfigError(f"{RECOVERY_KEY}.gains_file", f"{recovery_path} has a recovery block of its own")
        return cls(style, schedule, dataclass_from_mapping(WbcGains, recovery, ""))

    @classmethod
    def of(cls, gains: WbcGains | ScheduledGains | None) -> ScheduledGains:
        """``gains`` as scheduled gains: None → the shipped file's, WbcGains → unscheduled."""
        if gains is None:
            return cls.load()
        return gains if isinstance(gains, cls) else cls(gains)
