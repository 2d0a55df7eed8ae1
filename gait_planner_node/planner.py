"""Gait planner (source 004): velocity command + style → whole-body reference and contact plan.

r(t) = [z_pelvis, θ_pelvis, p_foot_l, p_foot_r, q_upper]; the pelvis horizontal position is not
planned (the MPC owns it). Each part is a nominal component from the velocity plus a stylized one
from the blended gait (004, "motion decomposition"):

- z = z^v + z^Π: the robot's nominal pelvis height plus the style's pelvis height curve;
- θ = θ^v θ^Π: the body heading composed with the style's yaw/pitch/roll curves;
- p_foot = p^v ⊕ p^Π: the nominal foot pose (footholds realizing the commanded velocity, joined by
  minimum-jerk swings) composed with the style's offsets expressed in the nominal foot frame:
  translation, yaw θ, roll γ about the sole edge, heel pitch ψ_heel about the heel, then toe
  pitch ψ_toe about the toe — so the sole's lowest point never goes below the ground;
- q_upper = q^v + q^Π: the robot's standing posture plus the style's upper-body curves.

Frames: world (z up, ground at z = 0); the *body frame* is the planar pose (x, y, yaw) obtained by
integrating the filtered velocity command (ẋ, ẏ in body axes [m/s], ω [rad/s]). Footholds: a
foot touching down is placed at the body pose predicted for the middle of its coming stance,
offset by the style's fore/aft offset, half the stance width and the splay, so over whole cycles
the footholds advance exactly at the commanded velocity.

The gait clock: the phase advances at rate κ ∈ [0, 1] times the gait's own. With
``start_standing`` the planner starts with κ = 0 — both feet down, a standing robot — and on the
first non-zero command κ rises to 1 through a critically damped filter (time constant
``clock_time_constant_s``), so stepping starts without a jump in r(t) or its derivative. The
preview runs on the clock too (clock time κ·t at preview time t): a standing planner previews
standing.

The command is smoothed by a critically damped second-order filter (time constant
``command_time_constant_s``) so r(t) and its time derivative stay continuous under step changes
of the command; the preview assumes the current filtered velocity holds.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from biped_common.robot_model import FootGeometry
from gait_planner_node.sampler import BlendedGait, blend
from gait_planner_node.style import Style

SIDES = ("left", "right")
# Cycle phases of each foot's lift-off and touch-down (see timing.EVENT_PHASES); the right
# touch-down at phase 1 is the next cycle's phase 0.
SWING_PHASES = {"left": (0.1, 0.5), "right": (0.6, 1.0)}
EVENT_INDEX = {"left": (1, 2), "right": (3, 4)}  # indices into the cycle's event times


def min_jerk(s):
    """10s³ − 15s⁴ + 6s⁵ on s clipped to [0, 1] (zero velocity and acceleration at both ends)."""
    s = np.minimum(np.maximum(s, 0.0), 1.0)
    return s**3 * (10.0 - 15.0 * s + 6.0 * s * s)


def wrap_angle(angle):
    """Angle wrapped to (−π, π]."""
    return np.mod(np.asarray(angle) + math.pi, 2 * math.pi) - math.pi


@dataclass(frozen=True)
class PlannerConfig:
    """Robot-specific and timing settings of the planner (SI units)."""

    nominal_pelvis_height_m: float
    foot: FootGeometry
    upper_joint_names: tuple[str, ...] = ()
    upper_posture_rad: tuple[float, ...] = ()
    command_time_constant_s: float = 0.25
    preview_horizon_s: float = 2.0
    preview_dt_s: float = 0.04
    start_standing: bool = True
    clock_time_constant_s: float = 0.1

    def __post_init__(self):
        if len(self.upper_joint_names) != len(self.upper_posture_rad):
            raise ValueError("upper_joint_names and upper_posture_rad differ in length")
        if not 0.01 <= self.command_time_constant_s <= 5.0:
            raise ValueError("command_time_constant_s must be in [0.01, 5] s")
        if not 0.01 <= self.clock_time_constant_s <= 2.0:
            raise ValueError("clock_time_constant_s must be in [0.01, 2] s")
        if not 0.0 < self.preview_dt_s <= self.preview_horizon_s <= 10.0:
            raise ValueError("need 0 < preview_dt_s ≤ preview_horizon_s ≤ 10 s")

    @classmethod
    def for_robot(cls, robot, **overrides) -> "PlannerConfig":
        """Settings for a :class:`RobotModel`: its pelvis height, feet and upper-body joints
        (every joint that is not a leg joint)."""
        legs = ("hip", "knee", "ankle")
        upper = tuple(n for n in robot.joint_names if not any(k in n for k in legs))
        posture = tuple(float(robot.standing_posture_rad[robot.joint_index[n]]) for n in upper)
        return cls(robot.nominal_pelvis_height_m, FootGeometry.from_robot(robot), upper, posture, **overrides)


@dataclass(frozen=True)
class Pose2:
    """Planar pose on the ground: x, y [m] and yaw [rad] in the world frame."""

    x: float
    y: float
    yaw: float


@dataclass(frozen=True)
class Foothold:
    """A planned touch-down: which foot, when (relative to now) [s], where."""

    side: str
    time_s: float
    pose: Pose2


@dataclass(frozen=True)
class Reference:
    """The reference at times ``times_s`` (relative to now) [s]; arrays have one row per time.

    Pelvis: height [m] and orientation (w, x, y, z) in the world. Feet: sole position [m] and
    orientation in the world, and whether the foot is in stance. Upper body: joint angles [rad]
    for ``upper_joint_names``. ``body`` is the planar body pose (x, y, yaw) the footholds follow;
    ``phase`` the cycle phase.
    """

    times_s: np.ndarray
    phase: np.ndarray
    pelvis_height_m: np.ndarray
    pelvis_quat_wxyz: np.ndarray
    foot_position_m: dict[str, np.ndarray]
    foot_quat_wxyz: dict[str, np.ndarray]
    in_stance: dict[str, np.ndarray]
    upper_joint_names: tuple[str, ...]
    upper_joints_rad: np.ndarray
    body: np.ndarray
    footholds: tuple[Foothold, ...] = field(default=())


def _columns(*columns) -> np.ndarray:
    """Equal-shape arrays (N,) as the columns of an (N, k) array (cheaper than ``np.stack``,
    which matters at 125 Hz: this runs a dozen times per tick)."""
    return np.array(columns).T


def _unicycle(body: Pose2, vx, vy, w, dt, xp):
    """Pose after ``dt`` at constant body-frame velocity (exact): x, y, yaw. ``xp`` is ``math``
    for one time (the per-tick hot path) or ``numpy`` for many."""
    wt = w * dt
    if abs(w) > 1e-6:
        a, b = xp.sin(wt) / w, (1.0 - xp.cos(wt)) / w
    else:
        a, b = dt - w * w * dt**3 / 6.0, w * dt * dt / 2.0
    dx, dy = a * vx - b * vy, b * vx + a * vy
    c, s = math.cos(body.yaw), math.sin(body.yaw)
    return body.x + c * dx - s * dy, body.y + s * dx + c * dy, body.yaw + wt


def predict_body(body: Pose2, velocity: np.ndarray, dt) -> np.ndarray:
    """Body poses (N, 3) after ``dt`` (N,) [s] at constant body-frame velocity (exact unicycle)."""
    vx, vy, w = (float(v) for v in velocity)
    return _columns(*_unicycle(body, vx, vy, w, np.asarray(dt, dtype=float), np))


def predict_pose(body: Pose2, velocity, dt: float) -> Pose2:
    """:func:`predict_body` for one time, in plain floats."""
    vx, vy, w = (float(v) for v in velocity)
    return Pose2(*_unicycle(body, vx, vy, w, float(dt), math))


def _quat_zxy(yaw, roll, pitch) -> np.ndarray:
    """q = q_z(yaw) ⊗ q_x(roll) ⊗ q_y(pitch), vectorized, (N, 4) in (w, x, y, z)."""
    cz, sz = np.cos(yaw / 2), np.sin(yaw / 2)
    cx, sx = np.cos(roll / 2), np.sin(roll / 2)
    cy, sy = np.cos(pitch / 2), np.sin(pitch / 2)
    # q_z ⊗ q_x
    w1, x1, y1, z1 = cz * cx, cz * sx, sz * sx, sz * cx
    # ⊗ q_y
    return _columns(w1 * cy - y1 * sy, x1 * cy - z1 * sy, w1 * sy + y1 * cy, z1 * cy + x1 * sy)


def _quat_zyx(yaw, pitch, roll) -> np.ndarray:
    """q = q_z(yaw) ⊗ q_y(pitch) ⊗ q_x(roll) (roll-pitch-yaw), (N, 4) in (w, x, y, z)."""
    cz, sz = np.cos(yaw / 2), np.sin(yaw / 2)
    cy, sy = np.cos(pitch / 2), np.sin(pitch / 2)
    cx, sx = np.cos(roll / 2), np.sin(roll / 2)
    return _columns(cz * cy * cx + sz * sy * sx, cz * cy * sx - sz * sy * cx,
                    cz * sy * cx + sz * cy * sx, sz * cy * cx - cz * sy * sx)


class GaitPlanner:
    """Stateful planner: :meth:`set_command`, :meth:`step` once per tick, :meth:`reference` for
    the current reference and its preview."""

    def __init__(self, style: Style, config: PlannerConfig, start: Pose2 = Pose2(0.0, 0.0, 0.0)):
        self.config = config
        self.style = style
        self.time_s = 0.0
        self.phase = 0.0  # a right touch-down: both feet down, the left lifts off next
        self.body = start
        self.command = np.zeros(3)
        self.velocity = np.zeros(3)
        self._velocity_rate = np.zeros(3)
        self.clock_rate = 0.0 if config.start_standing else 1.0  # κ
        self._clock_rate_rate = 0.0
        self._clock_target = 0.0 if config.start_standing else 1.0
        self.gait: BlendedGait = blend(style, self.velocity)
        self._upper_index = {name: i for i, name in enumerate(config.upper_joint_names)}
        self._events_memo = None
        self.footholds = {side: self._place(side, start) for side in SIDES}
        self.lift_off = dict(self.footholds)
        # Per swinging foot, the target it flies to. It follows the predicted foothold through a
        # gate that closes smoothly by touch-down, so the target stops moving as the foot lands
        # (C¹ at touch-down even when the command changes mid-swing).
        self._swing_target_used = dict(self.footholds)

    # -- inputs --------------------------------------------------------------------------------
    def set_command(self, velocity) -> None:
        """Body-frame velocity command (ẋ [m/s], ẏ [m/s], ω [rad/s]); non-finite → ValueError."""
        velocity = np.asarray(velocity, dtype=float)
        if velocity.shape != (3,) or not np.all(np.isfinite(velocity)):
            raise ValueError(f"velocity command must be 3 finite numbers, got {velocity}")
        self.command = velocity
        if np.any(velocity != 0.0):
            self._clock_target = 1.0  # walking starts with the first non-zero command

    def set_style(self, style: Style) -> None:
        """Switch style; the phase is kept, so the switch is continuous in phase."""
        self.style = style
        self.gait = blend(style, self.velocity)

    # -- time ----------------------------------------------------------------------------------
    def step(self, dt_s: float) -> None:
        """Advance by ``dt_s`` [s]: filter the command, re-blend, advance phase, body and feet."""
        # A foot touching down this tick lands on the target it was flying to (set at lift-off
        # and gated since), read before the gate moves it once more.
        targets = dict(self._swing_target_used)
        self._update_swing_targets(dt_s)
        omega = 1.0 / self.config.command_time_constant_s
        target = self.command
        # Critically damped second-order filter (semi-implicit Euler): v̈ = ω²(c − v) − 2ω v̇.
        accel = omega * omega * (target - self.velocity) - 2.0 * omega * self._velocity_rate
        self._velocity_rate = self._velocity_rate + dt_s * accel
        self.velocity = self.velocity + dt_s * self._velocity_rate
        self.body = predict_pose(self.body, self.velocity, dt_s)
        old_phase = self.phase
        if np.any(np.abs(self.velocity - self.gait.velocity) > 1e-9):  # re-blend only on change
            self.gait = blend(self.style, self.velocity)
        phase_map = self.gait.phase_map
        if self.clock_rate != self._clock_target or self._clock_rate_rate != 0.0:
            w = 1.0 / self.config.clock_time_constant_s
            self._clock_rate_rate += dt_s * (w * w * (self._clock_target - self.clock_rate) - 2 * w * self._clock_rate_rate)
            self.clock_rate = min(max(self.clock_rate + dt_s * self._clock_rate_rate, 0.0), 1.0)
            if abs(self.clock_rate - self._clock_target) < 1e-9 and abs(self._clock_rate_rate) < 1e-9:
                self.clock_rate, self._clock_rate_rate = self._clock_target, 0.0
        cycle_time = float(phase_map.time_s(old_phase)) + self.clock_rate * dt_s
        wrapped = cycle_time >= phase_map.cycle_s
        self.phase = float(phase_map.phase(cycle_time))
        self.time_s += dt_s
        for side in SIDES:
            lo, td = SWING_PHASES[side]
            if _crossed(old_phase, self.phase, lo, wrapped):
                self.lift_off[side] = self.footholds[side]
                self._swing_target_used[side] = self._next_foothold(side)
            if _crossed(old_phase, self.phase, td, wrapped):
                self.footholds[side] = targets[side]

    # -- footholds -----------------------------------------------------------------------------
    def _place(self, side: str, body: Pose2) -> Pose2:
        """Nominal foothold of ``side`` for a body pose: fore/aft offset, half width, splay."""
        a = self.gait.attributes
        sign = 1.0 if side == "left" else -1.0
        c, s = math.cos(body.yaw), math.sin(body.yaw)
        dx, dy = a.foot_offset_x_m, sign * a.stance_width_m / 2.0
        return Pose2(body.x + c * dx - s * dy, body.y + s * dx + c * dy, body.yaw + sign * a.splay_rad)

    def _events(self, horizon_s: float) -> dict[str, list[tuple[float, float]]]:
        """Per foot, its swing intervals (lift-off, touch-down) relative to now [s], from the
        current or last swing to past the horizon. (Memoized: called several times per tick.)"""
        key = (self.phase, horizon_s)
        if self._events_memo is not None and self._events_memo[0] == key and self._events_memo[2] is self.gait:
            return self._events_memo[1]
        times = self.gait.timing.event_times_s().tolist()
        cycle = times[-1]
        now = float(self.gait.phase_map.time_s(self.phase))
        swings = {}
        for side in SIDES:
            lo_i, td_i = EVENT_INDEX[side]
            lo = times[lo_i] - now
            while lo > 0.0:
                lo -= cycle
            intervals = []
            while lo <= horizon_s:
                intervals.append((lo, lo + times[td_i] - times[lo_i]))
                lo += cycle
            if intervals[0][1] <= 0.0 and len(intervals) > 1 and intervals[1][0] <= 0.0:
                intervals.pop(0)
            swings[side] = intervals
        self._events_memo = (key, swings, self.gait)
        return swings

    def _predicted_foothold(self, side: str, lift_off_s: float, touch_down_s: float) -> Pose2:
        """Foothold of the swing (lift_off_s, touch_down_s) relative to now: the body pose at the
        middle of the following stance, predicted at the current velocity."""
        centre = 0.5 * (touch_down_s + lift_off_s + self.gait.timing.cycle_s)
        return self._place(side, predict_pose(self.body, self.velocity, centre))

    def _next_foothold(self, side: str) -> Pose2:
        """Where the foot's next swing (the current one, if it is swinging) is predicted to land."""
        lift_off, touch_down = next((iv for iv in self._events(self.gait.timing.cycle_s)[side] if iv[1] > 0.0))
        return self._predicted_foothold(side, lift_off, touch_down)

    def _update_swing_targets(self, dt_s: float, rate_per_s: float = 20.0) -> None:
        """Move each swinging foot's target towards its predicted foothold with gain
        rate · (1 − m(s)) (m the minimum-jerk profile of the swing phase s): the gate closes at
        touch-down, so the target's velocity vanishes there."""
        for side, swings in self._events(self.gait.timing.cycle_s).items():
            lo, td = next(iv for iv in swings if iv[1] > 0.0)
            if lo <= 0.0 < td:
                gain = min(1.0, dt_s * rate_per_s * (1.0 - float(min_jerk(-lo / (td - lo)))))
                used, goal = self._swing_target_used[side], self._predicted_foothold(side, lo, td)
                self._swing_target_used[side] = Pose2(used.x + gain * (goal.x - used.x), used.y + gain * (goal.y - used.y),
                                                      used.yaw + gain * float(wrap_angle(goal.yaw - used.yaw)))

    # -- reference -----------------------------------------------------------------------------
    def reference(self, times_s=None) -> Reference:
        """The reference at ``times_s`` relative to now (default: the preview grid from 0)."""
        cfg = self.config
        if times_s is None:
            times_s = np.arange(0.0, cfg.preview_horizon_s + 1e-9, cfg.preview_dt_s)
        t = np.atleast_1d(np.asarray(times_s, dtype=float))
        gait, phase_map = self.gait, self.gait.phase_map
        cycle = gait.timing.cycle_s
        clock = self.clock_rate * t  # gait-clock time of each preview time
        phase = phase_map.phase(phase_map.time_s(self.phase) + clock)
        body = predict_body(self.body, self.velocity, t)

        footholds = []
        segments = {side: self._swing_segments(side, swings, cycle, footholds)
                    for side, swings in self._events(float(clock.max()) + cycle).items()}
        feet_pos, feet_quat, stance = self._feet_poses(clock, segments)

        cycle_curves = gait.cycle(phase)  # columns: PELVIS_CURVES, then the style's upper joints
        height, roll, pitch, yaw = (cycle_curves[:, i] for i in range(4))
        pelvis_height = cfg.nominal_pelvis_height_m + height
        pelvis_quat = _quat_zyx(body[:, 2] + yaw, pitch, roll)
        upper = np.tile(np.asarray(cfg.upper_posture_rad, dtype=float), (t.size, 1))
        for column, joint in enumerate(gait.upper_joints):
            if joint in self._upper_index:
                upper[:, self._upper_index[joint]] += cycle_curves[:, 4 + column]
        footholds = tuple(sorted((f for f in footholds if 0.0 < f.time_s <= clock.max()), key=lambda f: f.time_s))
        return Reference(t, phase, pelvis_height, pelvis_quat, feet_pos, feet_quat, stance,
                         cfg.upper_joint_names, upper, body, footholds)

    def _swing_segments(self, side, swings, cycle, footholds):
        """One foot's swings as arrays: lift-off and touch-down times (n,), start and end poses
        (n, 3) and its stance duration. The first swing starts from the known lift-off pose (or,
        when it is still to come, the current foothold); later touch-downs are predicted (one
        vectorized body prediction for all of them) and appended to ``footholds``."""
        times = np.array(swings)
        lo, td = times[:, 0], times[:, 1]
        first_lo, first_td = swings[0]
        # Touch-down poses: the body at the middle of the following stance, placed for this foot.
        centre = 0.5 * (td + lo + self.gait.timing.cycle_s)
        ends = self._place_many(side, predict_body(self.body, self.velocity, centre))
        if first_td <= 0.0:
            f = self.footholds[side]
            ends[0] = (f.x, f.y, f.yaw)
        elif first_lo <= 0.0:
            f = self._swing_target_used[side]
            ends[0] = (f.x, f.y, f.yaw)
        start = self.lift_off[side] if first_lo <= 0.0 < first_td else self.footholds[side]
        starts = np.empty_like(ends)
        starts[0] = (start.x, start.y, start.yaw)
        starts[1:] = ends[:-1]
        for k in range(0 if first_td > 0.0 else 1, len(swings)):
            footholds.append(Foothold(side, float(td[k]), Pose2(*(float(v) for v in ends[k]))))
        return lo, td, starts, ends, cycle - (first_td - first_lo)

    def _place_many(self, side: str, bodies: np.ndarray) -> np.ndarray:
        """:meth:`_place` for body poses (n, 3) → foothold poses (n, 3)."""
        a = self.gait.attributes
        sign = 1.0 if side == "left" else -1.0
        c, s = np.cos(bodies[:, 2]), np.sin(bodies[:, 2])
        dx, dy = a.foot_offset_x_m, sign * a.stance_width_m / 2.0
        return _columns(bodies[:, 0] + c * dx - s * dy, bodies[:, 1] + s * dx + c * dy,
                        bodies[:, 2] + sign * a.splay_rad)

    def _feet_poses(self, t, segments):
        """Sole positions (N, 3), quaternions (N, 4) and stance flags (N,) per foot; both feet in
        one vectorized pass (rows: left at every time, then right)."""
        a, g, n = self.gait.attributes, self.config.foot, t.size
        (lo_l, td_l, starts_l, ends_l, stance_l), (lo_r, td_r, starts_r, ends_r, stance_r) = \
            segments["left"], segments["right"]
        # Rows: left at every time, then right; index both feet's swings in one table.
        k = np.concatenate([np.searchsorted(lo_l, t, side="right") - 1,
                            np.searchsorted(lo_r, t, side="right") - 1 + lo_l.size])
        k = np.maximum(k, np.repeat([0, lo_l.size], n))  # before the first swing: the first one
        lo, td = np.concatenate([lo_l, lo_r])[k], np.concatenate([td_l, td_r])[k]
        start, end = np.concatenate([starts_l, starts_r])[k], np.concatenate([ends_l, ends_r])[k]
        stance_s = np.repeat([stance_l, stance_r], n)
        before = np.concatenate([t < lo_l[0], t < lo_r[0]])
        tt = np.concatenate([t, t])
        sign = np.repeat([1.0, -1.0], n)
        in_swing = (tt >= lo) & (tt < td)
        s = np.where(in_swing, (tt - lo) / (td - lo), np.where(before, 0.0, 1.0))
        since_td = np.where(in_swing, 0.0, np.where(tt >= td, tt - td, tt - (lo - stance_s)))
        rolldown = np.maximum(a.heel_rolldown_fraction * stance_s, 1e-9)
        rollup = np.maximum(a.toe_rollup_fraction * stance_s, 1e-9)
        # One min-jerk pass: the swing progress, heel-strike build-up, toe-off decay, heel
        # roll-down after touch-down and toe roll-up before lift-off.
        m, heel_swing, toe_swing, heel_stance, toe_stance = min_jerk(
            np.array([s, 2 * s - 1, 2 * s, since_td / rolldown, 1 - (stance_s - since_td) / rollup]))
        delta = end - start
        delta[:, 2] = wrap_angle(delta[:, 2])
        nominal = start + m[:, None] * delta
        # Stylized offsets (zero in stance: the swing curves vanish outside the swing).
        sw = np.where(in_swing, s, 0.0)
        curves = np.concatenate([self.gait.swing["left"](sw[:n]), self.gait.swing["right"](sw[n:])])
        curves = np.where(in_swing[:, None], curves, 0.0)  # SWING_CURVES columns
        forward, lateral, height = curves[:, 0], sign * curves[:, 1], curves[:, 2]
        yaw, roll = sign * curves[:, 3], sign * curves[:, 4]
        # Heel pitch (≤ 0, toes up) and toe pitch (≥ 0, heel up): in swing the toe-off pitch
        # decays over the first half and the heel-strike pitch builds over the second; in stance
        # the foot rolls down from the heel after touch-down and up onto the toe before lift-off.
        heel = a.heel_strike_pitch_rad * np.where(in_swing, heel_swing, 1 - heel_stance)
        toe = a.toe_off_pitch_rad * np.where(in_swing, 1 - toe_swing, toe_stance)
        local = _rotate_z(_sole_origin_offset(g, heel, toe, roll), yaw) + _columns(forward, lateral, height)
        world = _rotate_z(local, nominal[:, 2])
        world[:, :2] += nominal[:, :2]
        quat = _quat_zxy(nominal[:, 2] + yaw, roll, heel + toe)
        halves = {"left": slice(0, n), "right": slice(n, 2 * n)}
        return ({side: world[h] for side, h in halves.items()}, {side: quat[h] for side, h in halves.items()},
                {side: ~in_swing[h] for side, h in halves.items()})


def _rotate_z(v: np.ndarray, angle) -> np.ndarray:
    c, s = np.cos(angle), np.sin(angle)
    return _columns(c * v[:, 0] - s * v[:, 1], s * v[:, 0] + c * v[:, 1], v[:, 2])


def _sole_origin_offset(g: FootGeometry, heel_pitch, toe_pitch, roll) -> np.ndarray:
    """Where the sole origin goes under roll about the lower sole edge, heel pitch about the heel
    and toe pitch about the toe (pivots fixed in the nominal sole frame), (N, 3)."""
    # Toe pivot: (I − R_y(ψ_t)) x_toe e_x; then heel pivot: R_y(ψ_h)(·) + (I − R_y(ψ_h)) x_heel e_x.
    ct, st = np.cos(toe_pitch), np.sin(toe_pitch)
    a, b = g.toe_x_m * (1 - ct), g.toe_x_m * st
    ch, sh = np.cos(heel_pitch), np.sin(heel_pitch)
    x = a * ch + b * sh + g.heel_x_m * (1 - ch)
    z = -a * sh + b * ch + g.heel_x_m * sh
    # Roll pivot on the edge that stays down: R_x(γ)(·) + (I − R_x(γ)) y_e e_y.
    edge = np.where(roll >= 0, -g.half_width_m, g.half_width_m)
    cr, sr = np.cos(roll), np.sin(roll)
    y = -z * sr + edge * (1 - cr)
    z = z * cr - edge * sr
    return _columns(x, y, z)


def _crossed(old: float, new: float, event: float, wrapped: bool) -> bool:
    """Whether phase moved past ``event`` going from ``old`` to ``new`` (with cycle wrap)."""
    if not wrapped:
        return old < event <= new
    return event > old or event <= new


def reference_arrays(reference: Reference) -> dict[str, np.ndarray]:
    """A :class:`Reference` as the arrays :func:`biped_common.conversions.gait_reference_arrays`
    decodes from the messages (same keys), so in-process and DDS consumers share one code path;
    plus ``body`` (N, 3) and ``upper_joints_rad`` (N, joints)."""
    out = {"times_s": reference.times_s, "pelvis_height_m": reference.pelvis_height_m,
           "pelvis_quat_wxyz": reference.pelvis_quat_wxyz, "body": reference.body,
           "upper_joints_rad": reference.upper_joints_rad}
    for side in SIDES:
        out[f"{side}_sole_position_m"] = reference.foot_position_m[side]
        out[f"{side}_sole_quat_wxyz"] = reference.foot_quat_wxyz[side]
        out[f"{side}_in_stance"] = reference.in_stance[side]
    return out
