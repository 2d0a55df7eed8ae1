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

import functools
import math
from dataclasses import dataclass, field

import numpy as np

from biped_common.gait_reference import GaitReference
from biped_common.robot_model import FootGeometry, is_leg_joint
from biped_common.rotations import wrap_angle
from biped_common.support_polygon import inside_polygon_m, support_hull
from gait_planner_node.feedback import (NO_ADJUSTMENT, FeedbackAdjustment, FeedbackConfig, GaitFeedback,
                                        SwingStep, clamp_foothold, dcm, nominal_dcm, support_cop)
from gait_planner_node.sampler import BlendedGait, blend, command_in_range
from gait_planner_node.style import Style

SIDES = ("left", "right")
# A foot touching down within this of its planned foothold stands where it landed (with feedback).
LANDING_ANCHOR_M = 0.15
LANDING_HEIGHT_M = 0.02  # ... and when its sole is this low
# Cycle phases of each foot's lift-off and touch-down (see timing.EVENT_PHASES); the right
# touch-down at phase 1 is the next cycle's phase 0.
SWING_PHASES = {"left": (0.1, 0.5), "right": (0.6, 1.0)}
EVENT_INDEX = {"left": (1, 2), "right": (3, 4)}  # indices into the cycle's event times


def min_jerk(s):
    """10s³ − 15s⁴ + 6s⁵ on s clipped to [0, 1] (zero velocity and acceleration at both ends)."""
    s = min(max(s, 0.0), 1.0) if isinstance(s, float) else np.minimum(np.maximum(s, 0.0), 1.0)
    return s**3 * (10.0 - 15.0 * s + 6.0 * s * s)


@dataclass(frozen=True)
class PlannerConfig:
    """Robot-specific and timing settings of the planner (SI units)."""

    nominal_pelvis_height_m: float
    foot: FootGeometry
    upper_joint_names: tuple[str, ...] = ()
    upper_posture_rad: tuple[float, ...] = ()
    command_time_constant_s: float = 0.25
    # The clamped command ramps at most this fast (ẍ [m/s²], ÿ [m/s²], ω̇ [rad/s²]) before the
    # filter, so a step from standing to full speed is a ramp, whatever the joystick sends.
    command_acceleration_limit: tuple[float, float, float] = (0.5, 0.5, 1.5)
    preview_horizon_s: float = 2.0
    preview_dt_s: float = 0.04
    # The first tracking_horizon_s of the preview are sampled every tracking_dt_s instead: the
    # span the WBC tracks (interpolating, with rates fed forward) until the next plan arrives; a
    # 40 ms grid cut a 0.18 s swing into 4–5 chords.
    tracking_dt_s: float = 0.01
    tracking_horizon_s: float = 0.2
    start_standing: bool = True
    clock_time_constant_s: float = 0.1
    # Gait feedback (:mod:`gait_planner_node.feedback`): None, or no CoM height, plans open loop.
    com_height_m: float = 0.0
    feedback: FeedbackConfig | None = None

    def __post_init__(self):
        if len(self.upper_joint_names) != len(self.upper_posture_rad):
            raise ValueError("upper_joint_names and upper_posture_rad differ in length")
        if not 0.01 <= self.command_time_constant_s <= 5.0:
            raise ValueError("command_time_constant_s must be in [0.01, 5] s")
        if not 0.01 <= self.clock_time_constant_s <= 2.0:
            raise ValueError("clock_time_constant_s must be in [0.01, 2] s")
        if not 0.0 < self.preview_dt_s <= self.preview_horizon_s <= 10.0:
            raise ValueError("need 0 < preview_dt_s ≤ preview_horizon_s ≤ 10 s")
        if not (0.0 < self.tracking_dt_s <= self.preview_dt_s and 0.0 <= self.tracking_horizon_s <= self.preview_horizon_s):
            raise ValueError("need 0 < tracking_dt_s ≤ preview_dt_s and 0 ≤ tracking_horizon_s ≤ preview_horizon_s")
        if len(self.command_acceleration_limit) != 3 or not all(0.01 <= a <= 100.0 for a in self.command_acceleration_limit):
            raise ValueError("command_acceleration_limit must be three values in [0.01, 100]")
        if not 0.0 <= self.com_height_m <= 5.0:
            raise ValueError("com_height_m must be in [0, 5] m")

    @property
    def omega_per_s(self) -> float:
        """ω = √(g/h) [1/s] of the pendulum at the CoM height (0 without one)."""
        return math.sqrt(9.81 / self.com_height_m) if self.com_height_m > 0 else 0.0

    @classmethod
    def for_robot(cls, robot, **overrides) -> "PlannerConfig":
        """Settings for a :class:`RobotModel`: its pelvis height, feet, upper-body joints (every
        joint that is not a leg joint), CoM height and the shipped gait feedback
        (``config/feedback.yaml``; ``feedback=None`` for none)."""
        upper = tuple(n for n in robot.joint_names if not is_leg_joint(n))
        posture = tuple(float(robot.standing_posture_rad[robot.joint_index[n]]) for n in upper)
        overrides.setdefault("com_height_m", robot.standing_com_height_m)
        if "feedback" not in overrides:
            overrides["feedback"] = FeedbackConfig.load()
        return cls(robot.nominal_pelvis_height_m, FootGeometry.from_robot(robot), upper, posture, **overrides)


def preview_grid_s(config: PlannerConfig) -> np.ndarray:
    """The preview's times [s from now]: every ``tracking_dt_s`` up to ``tracking_horizon_s``,
    then every ``preview_dt_s`` up to ``preview_horizon_s`` (both ends included)."""
    near = np.arange(0.0, config.tracking_horizon_s - 1e-9, config.tracking_dt_s)
    far = np.arange(config.tracking_horizon_s, config.preview_horizon_s + 1e-9, config.preview_dt_s)
    return np.concatenate([near, far])


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
    foothold_rows: np.ndarray = field(default_factory=lambda: np.zeros((0, 5)))

    @property
    def footholds(self) -> tuple[Foothold, ...]:
        """The touch-downs within the preview, by time (built from ``foothold_rows``: side
        (0 left, 1 right), time [s], x, y [m], yaw [rad])."""
        return tuple(Foothold(SIDES[int(side)], time_s, Pose2(x, y, yaw))
                     for side, time_s, x, y, yaw in self.foothold_rows.tolist())


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


def _quat_zxy_half(cos, sin) -> np.ndarray:
    """q = q_z(yaw) ⊗ q_x(roll) ⊗ q_y(pitch), (N, 4) in (w, x, y, z), from the cosines and sines
    of the half angles (yaw/2, roll/2, pitch/2) as rows (3, N)."""
    (cz, cx, cy), (sz, sx, sy) = cos, sin
    w1, x1, y1, z1 = cz * cx, cz * sx, sz * sx, sz * cx  # q_z ⊗ q_x
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

    def __init__(self, style: Style, config: PlannerConfig, start: Pose2 = Pose2(0.0, 0.0, 0.0),
                 start_feet: dict[str, Pose2] | None = None):
        """Standing at body pose ``start``, the feet at ``start_feet`` (their soles' planar poses in
        the world: where a robot that is already standing has them) or, by default, nominally
        placed for ``start``."""
        self.config = config
        self.style = style
        self.time_s = 0.0
        self.phase = 0.0  # a right touch-down: both feet down, the left lifts off next
        self.body = start
        self.command = np.zeros(3)
        self._ramped_command = np.zeros(3)
        self.velocity = np.zeros(3)          # the filtered command
        self.walk_velocity = np.zeros(3)     # what the body path walks: velocity + the feedback's bias
        self.time_scale = 1.0                # κ_time of the feedback: the body path's
        self.clock_scale = 1.0               # the gait clock's κ: κ_time, or the step timing's in a swing
        self._velocity_rate = np.zeros(3)
        self.clock_rate = 0.0 if config.start_standing else 1.0  # κ
        self._clock_rate_rate = 0.0
        self._clock_target = 0.0 if config.start_standing else 1.0
        self.gait: BlendedGait = blend(style, self.velocity)
        self._blended_velocity = self.velocity.tolist()  # the (unclamped) velocity self.gait is for
        self._upper_posture = np.asarray(config.upper_posture_rad, dtype=float)
        self._preview_grid = preview_grid_s(config)
        self._preview_grid.flags.writeable = False
        self._upper_maps: dict[tuple[str, ...], np.ndarray] = {}
        self._events_memo = None
        self.footholds = dict(start_feet) if start_feet else {side: self._place(side, start) for side in SIDES}
        self.lift_off = dict(self.footholds)
        # Per swinging foot, the target it flies to. It follows the predicted foothold through a
        # gate that closes smoothly by touch-down, so the target stops moving as the foot lands
        # (C¹ at touch-down even when the command changes mid-swing).
        self._swing_target_used = dict(self.footholds)
        # Gait feedback: the measured DCM (observe_com), the adjustment in force, the touch-down it
        # offsets (side) and the swing table of the latest preview (for the nominal DCM).
        use_feedback = config.feedback is not None and config.feedback.enabled and config.omega_per_s > 0
        self.feedback = GaitFeedback(config.feedback, config.omega_per_s) if use_feedback else None
        self.adjustment: FeedbackAdjustment = NO_ADJUSTMENT
        self._measured_dcm: np.ndarray | None = None
        self._adjusted_side: str | None = None
        self._recovery_steps = False  # stepping because a push moved a standing robot
        self._stopping = False
        self._last_swings = None
        self._measured_soles: dict[str, tuple[float, float, float, float]] | None = None
        self._push_m_s2 = np.zeros(2)  # δ, world (observe_push)

    # -- inputs --------------------------------------------------------------------------------
    def set_command(self, velocity) -> np.ndarray:
        """Body-frame velocity command (ẋ [m/s], ẏ [m/s], ω [rad/s]), clamped into the style's
        range (:func:`sampler.command_in_range`); the clamped command (also :attr:`command`, what the planner
        reports and walks) is returned. Not three finite numbers → ValueError."""
        velocity = np.asarray(velocity, dtype=float)
        if velocity.shape != (3,) or not np.all(np.isfinite(velocity)):
            raise ValueError(f"velocity command must be 3 finite numbers, got {velocity}")
        self.command = command_in_range(self.style, velocity)
        if np.any(velocity != 0.0):
            self._clock_target = 1.0  # walking starts with the first non-zero command
            self._recovery_steps = self._stopping = False
        return self.command

    def observe_soles(self, soles: dict[str, tuple[float, float, float, float]]) -> None:
        """The measured soles (x, y, z [m], yaw [rad] per side, world frame), for the next
        :meth:`step`: a foot that touches down near its planned foothold (within
        :data:`LANDING_ANCHOR_M`) is taken to stand where it landed, so the swing after it starts
        from there and the feedback's support is the real one (a foot far off is left to
        :class:`gait_planner_node.anchor.FollowWatch`)."""
        self._measured_soles = soles

    def observe_com(self, com_m, com_velocity_m_s) -> None:
        """The robot's measured CoM position [m] and velocity [m/s] (3,) in the world (from the state
        estimate), for the gait feedback at the next :meth:`step`. Non-finite → ignored."""
        if self.feedback is None:
            return
        xi = dcm(com_m, com_velocity_m_s, self.config.omega_per_s)
        self._measured_dcm = xi if np.all(np.isfinite(xi)) else None

    def observe_push(self, push_m_s2) -> None:
        """The sustained push δ = F/m (2,) [m/s², world] the MPC estimates (its
        ``disturbance_m_s2``), for the footstep adjustment and the standing robot's decision to
        step at the next :meth:`step`. Non-finite → zero."""
        push = np.asarray(push_m_s2, dtype=float)[:2]
        self._push_m_s2 = push.copy() if push.shape == (2,) and np.all(np.isfinite(push)) else np.zeros(2)

    def lose_observations(self) -> None:
        """The robot's state stopped arriving (the estimator died or lags): plan open loop until
        it returns — the adjustments end now and the feedback's filters start afresh from the next
        observation (a stale DCM would keep moving the footholds away from a robot that stands)."""
        if self.feedback is None:
            return
        self._measured_dcm = self._measured_soles = None
        self._push_m_s2 = np.zeros(2)
        self.feedback = GaitFeedback(self.feedback.config, self.feedback.omega_per_s)
        self.adjustment, self.time_scale, self.clock_scale, self._adjusted_side = NO_ADJUSTMENT, 1.0, 1.0, None
        self.walk_velocity = self.velocity
        if self._recovery_steps:
            self._stopping = True

    def set_style(self, style: Style) -> None:
        """Switch style; the phase is kept, so the switch is continuous in phase. The command is
        clamped to the new style's range."""
        self.style = style
        self.command = command_in_range(style, self.command)
        self.gait, self._blended_velocity = blend(style, self.velocity), self.velocity.tolist()

    # -- time ----------------------------------------------------------------------------------
    def step(self, dt_s: float) -> None:
        """Advance by ``dt_s`` [s]: filter the command, re-blend, advance phase, body and feet."""
        # A foot touching down this tick lands on the target it was flying to (set at lift-off
        # and gated since), read before the gate moves it once more.
        targets = dict(self._swing_target_used)
        self._update_swing_targets(dt_s)
        omega = 1.0 / self.config.command_time_constant_s
        step = np.asarray(self.config.command_acceleration_limit) * dt_s
        self._ramped_command = self._ramped_command + np.clip(self.command - self._ramped_command, -step, step)
        target = self._ramped_command
        # Critically damped second-order filter (semi-implicit Euler): v̈ = ω²(c − v) − 2ω v̇.
        accel = omega * omega * (target - self.velocity) - 2.0 * omega * self._velocity_rate
        self._velocity_rate = self._velocity_rate + dt_s * accel
        self.velocity = self.velocity + dt_s * self._velocity_rate
        if self.feedback is None:
            self.walk_velocity = self.velocity
        kappa = self.time_scale
        self.body = predict_pose(self.body, self.walk_velocity, kappa * dt_s)
        old_phase = self.phase
        velocity = self.walk_velocity.tolist()
        if any(abs(a - b) > 1e-9 for a, b in zip(velocity, self._blended_velocity)):  # re-blend on change only
            self.gait, self._blended_velocity = blend(self.style, self.walk_velocity), velocity
        phase_map = self.gait.phase_map
        if self.clock_rate != self._clock_target or self._clock_rate_rate != 0.0:
            w = 1.0 / self.config.clock_time_constant_s
            self._clock_rate_rate += dt_s * (w * w * (self._clock_target - self.clock_rate) - 2 * w * self._clock_rate_rate)
            self.clock_rate = min(max(self.clock_rate + dt_s * self._clock_rate_rate, 0.0), 1.0)
            if abs(self.clock_rate - self._clock_target) < 1e-9 and abs(self._clock_rate_rate) < 1e-9:
                self.clock_rate, self._clock_rate_rate = self._clock_target, 0.0
        cycle_time = float(phase_map.time_s(old_phase)) + self.clock_scale * self.clock_rate * dt_s
        if self._stopping:
            cycle_time = self._stop_before_lift_off(phase_map, float(phase_map.time_s(old_phase)), cycle_time)
        wrapped = cycle_time >= phase_map.cycle_s
        self.phase = float(phase_map.phase(cycle_time))
        self.time_s += dt_s
        for side in SIDES:
            lo, td = SWING_PHASES[side]
            if _crossed(old_phase, self.phase, lo, wrapped):
                self.lift_off[side] = self.footholds[side]
                self._swing_target_used[side] = self._next_foothold(side)
            if _crossed(old_phase, self.phase, td, wrapped):
                self.footholds[side] = self._landed(side, targets[side])
        # The feedback for the next tick, on the state reached (its touch-downs done).
        self._apply_feedback(dt_s)

    # -- feedback ------------------------------------------------------------------------------
    def _apply_feedback(self, dt_s: float) -> None:
        """Run the gait feedback on the latest measured DCM: set :attr:`walk_velocity`,
        :attr:`time_scale`, :attr:`clock_scale`, the offset of the next touch-down, and start (or end) the steps of a
        standing robot that was pushed."""
        if self.feedback is None or self._measured_dcm is None:
            self.walk_velocity = self.velocity
            return
        standing = self._clock_target == 0.0 and self.clock_rate == 0.0
        segments, next_touch_down, swing = self._support_segments(dt_s)
        # (A swing's SwingStep carries the nominal DCM now: it is not evaluated twice.)
        nominal = swing.dcm_now_m if swing is not None else nominal_dcm(segments, self.config.omega_per_s)
        error = self._measured_dcm - nominal
        # Under a sustained push the ankles hold the DCM only while ξ + δ/ω² is inside the support.
        push_shift = self.feedback.filter_push(dt_s, self._push_m_s2)
        pushed_dcm = self._measured_dcm + push_shift
        inside = inside_polygon_m(pushed_dcm, self._standing_support()) if standing else math.inf
        adjustment = self.adjustment = self.feedback.update(
            dt_s, error, self.body.yaw, next_touch_down[0] if next_touch_down else None, standing,
            float(self.velocity[0]), inside, push_shift, swing)
        bias = adjustment.velocity_bias
        if standing or not np.any(bias):
            self.walk_velocity = self.velocity
        else:
            self.walk_velocity = command_in_range(self.style, self.velocity + np.array([bias[0], bias[1], 0.0]))
        self.time_scale = 1.0 if standing else adjustment.time_scale
        self.clock_scale = 1.0 if standing else adjustment.clock_scale
        self._adjusted_side = next_touch_down[1] if next_touch_down and np.any(adjustment.step_offset_m) else None
        if adjustment.needs_steps and self._clock_target == 0.0:
            self._start_recovery_steps(pushed_dcm)
        elif self._recovery_steps and not adjustment.needs_steps and not np.any(self.command):
            self._stopping = True

    def _start_recovery_steps(self, pushed_dcm_m: np.ndarray) -> None:
        """A pushed standing robot steps at once: one foot lifts off now and the clock runs at
        full rate without its start-up ramp (the ramp's 0.2 s of double support let a 25 N push
        carry the lighter biped beyond a step's reach). Which foot, from the DCM under the push
        ``pushed_dcm_m`` (ξ + δ̄/ω², (2,) [m, world]) across the body: beyond a foot's centre line
        that foot steps out after it (lifting the other would cross it over the stance foot);
        between the feet the farther, unloaded foot steps back under it (a foot slipped away)."""
        left_axis = np.array([-math.sin(self.body.yaw), math.cos(self.body.yaw)])
        lateral = {side: float(left_axis @ np.array([f.x, f.y])) for side, f in self.footholds.items()}
        y = float(left_axis @ pushed_dcm_m)
        if y >= lateral["left"]:
            side = "left"
        elif y <= lateral["right"]:
            side = "right"
        else:
            side = max(SIDES, key=lambda s: abs(lateral[s] - y))
        self.phase = SWING_PHASES[side][0] - 1e-4  # both feet down, just before that lift-off
        self.clock_rate, self._clock_rate_rate = 1.0, 0.0
        self._clock_target, self._recovery_steps, self._stopping = 1.0, True, False

    def _standing_support(self) -> np.ndarray:
        """The support polygon (M, 2) [m, world] of both feet on their footholds."""
        return support_hull([(f.x, f.y, f.yaw) for f in self.footholds.values()], self.config.foot)

    def _support_segments(self, dt_s: float):
        """The support the unadjusted gait plans, from now: [(start [s from now], CoP (2,) at the
        centre of the soles down)], the next touch-down (time [s], side) or None, and — in single
        support — the swing in progress (:class:`feedback.SwingStep`) or None.

        From the latest preview's swings, but at time scale 1 and with each foot's coming
        touch-down where the planner predicts it before the footstep adjustment: the nominal DCM
        must not move with the adjustments it causes (with it, Δp = k(e^{ωT} ε − Δp), an algebraic
        loop that flips sign every tick at k = 1)."""
        feet = {}
        events = []
        cx = 0.5 * (self.config.foot.heel_x_m + self.config.foot.toe_x_m)

        def centre(x, y, yaw):
            return np.array([x + cx * math.cos(yaw), y + cx * math.sin(yaw)])

        swinging = set()
        horizon_s = self.config.preview_horizon_s
        if self._last_swings is not None and self._last_swings[1] > 1e-3:
            (rows, n_left), clock_rate = self._last_swings
            elapsed = self.clock_scale * clock_rate * dt_s  # clock time since that preview
            first = {}
            for i, row in enumerate(rows):
                side = "left" if i < n_left else "right"
                lo, td = (row[0] - elapsed) / clock_rate, (row[1] - elapsed) / clock_rate
                if lo > horizon_s:  # a clock only starting: its steps are not planned yet
                    continue
                if lo <= 0.0 < td:
                    swinging.add(side)
                if lo > 0.0:
                    events.append((lo, side, None))
                if td > 0.0:
                    landing = row[5:8]
                    if side not in first:
                        first[side] = True
                        pose = self._place(side, predict_pose(self.body, self.walk_velocity, 0.5 * (
                            row[0] + row[1] - 2 * elapsed + self.gait.timing.cycle_s)))
                        landing = (pose.x, pose.y, pose.yaw)
                    events.append((td, side, centre(*landing)))
        for side in SIDES:
            if side not in swinging:
                f = self.footholds[side]
                feet[side] = centre(f.x, f.y, f.yaw)
        events.sort(key=lambda e: e[0])
        segments = [(0.0, support_cop(feet))]
        stance = next(iter(feet.values())) if len(feet) == 1 and len(swinging) == 1 else None
        next_touch_down = landing_m = None
        for time_s, side, landing in events:
            if landing is None:
                feet.pop(side, None)
            else:
                feet[side] = landing
                if next_touch_down is None:
                    next_touch_down, landing_m = (time_s, side), landing
            segments.append((time_s, support_cop(feet, segments[-1][1])))
        swing = None
        if stance is not None and next_touch_down is not None and next_touch_down[1] in swinging:
            touch_down_s = next_touch_down[0]
            omega = self.config.omega_per_s
            after = [(start_s - touch_down_s, cop) for start_s, cop in segments if start_s >= touch_down_s]
            swing = SwingStep(stance, np.asarray(landing_m, dtype=float), nominal_dcm(segments, omega),
                              nominal_dcm(after, omega), touch_down_s, next_touch_down[1])
        return segments, next_touch_down, swing

    def _landed(self, side: str, planned: Pose2) -> Pose2:
        """Where a foot that touches down now stands: the measured sole when it is down and near
        ``planned``, else ``planned``."""
        if self._measured_soles is None or self.feedback is None:
            return planned
        x, y, z, yaw = self._measured_soles[side]
        if z > LANDING_HEIGHT_M or math.hypot(x - planned.x, y - planned.y) > LANDING_ANCHOR_M:
            return planned
        return Pose2(float(x), float(y), float(yaw))

    def _stop_before_lift_off(self, phase_map, old_time_s: float, new_time_s: float) -> float:
        """Bring a recovering robot back to standing: the clock is let down (its filter) so that it
        stops in the coming double support, and never runs past that double support's lift-off.
        Returns the clock's new cycle time [s]."""
        times = self.gait.timing.event_times_s()
        lift_offs = (float(times[1]), float(times[3]))
        touch_downs = (0.0, float(times[2]))
        cycle = float(times[-1])
        for touch_down, lift_off in zip(touch_downs, lift_offs):
            if touch_down <= old_time_s < lift_off:  # in this double support: stop in it
                self._clock_target = 0.0
                if self.clock_rate == 0.0:
                    self._stopping = self._recovery_steps = False
                return min(new_time_s, lift_off - 1e-4)
        # In a swing: let the clock down once the coming double support's middle is within the
        # filter's stopping distance (2τ of clock time from full rate).
        for touch_down, lift_off in zip(touch_downs + (cycle,), lift_offs + (cycle + lift_offs[0],)):
            middle = 0.5 * (touch_down + lift_off)
            if middle > old_time_s:
                if middle - old_time_s <= 2.0 * self.config.clock_time_constant_s * self.clock_rate:
                    self._clock_target = 0.0
                break
        return new_time_s

    # -- footholds -----------------------------------------------------------------------------
    def _place(self, side: str, body: Pose2) -> Pose2:
        """Nominal foothold of ``side`` for a body pose: fore/aft offset, half width, splay."""
        a = self.gait.attributes
        sign = 1.0 if side == "left" else -1.0
        c, s = math.cos(body.yaw), math.sin(body.yaw)
        dx, dy = a.foot_offset_x_m, sign * a.stance_width_m / 2.0
        return Pose2(body.x + c * dx - s * dy, body.y + s * dx + c * dy, body.yaw + sign * a.splay_rad)

    def _events(self) -> dict[str, list[tuple[float, float]]]:
        """Per foot, its swing intervals (lift-off, touch-down) relative to now [s], from the
        current or last swing to one cycle past the preview horizon. (Memoized: called several
        times per tick.)"""
        key = self.phase
        horizon_s = self.config.preview_horizon_s + self.gait.timing.cycle_s
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
        pose = self._place(side, predict_pose(self.body, self.walk_velocity, centre))
        return self._adjusted(side, pose) if side == self._adjusted_side else pose

    def _adjusted(self, side: str, pose: Pose2) -> Pose2:
        """A foothold moved by the feedback's footstep offset, within reach of the stance foot and
        clear of it (:func:`feedback.clamp_foothold`)."""
        offset, other = self.adjustment.step_offset_m, self.footholds[SIDES[1 - SIDES.index(side)]]
        x, y = clamp_foothold(np.array([pose.x + offset[0], pose.y + offset[1]]), np.array([other.x, other.y]),
                              self.body.yaw, side, self.config.feedback)
        return Pose2(float(x), float(y), pose.yaw)

    def _next_foothold(self, side: str) -> Pose2:
        """Where the foot's next swing (the current one, if it is swinging) is predicted to land."""
        lift_off, touch_down = next((iv for iv in self._events()[side] if iv[1] > 0.0))
        return self._predicted_foothold(side, lift_off, touch_down)

    def _update_swing_targets(self, dt_s: float, rate_per_s: float = 20.0) -> None:
        """Move each swinging foot's target towards its predicted foothold with gain
        rate · (1 − m(s)) (m the minimum-jerk profile of the swing phase s): the gate closes at
        touch-down, so the target's velocity vanishes there."""
        for side, swings in self._events().items():
            lo, td = next(iv for iv in swings if iv[1] > 0.0)
            if lo <= 0.0 < td:
                gain = min(1.0, dt_s * rate_per_s * (1.0 - min_jerk(-lo / (td - lo))))
                used, goal = self._swing_target_used[side], self._predicted_foothold(side, lo, td)
                self._swing_target_used[side] = Pose2(used.x + gain * (goal.x - used.x), used.y + gain * (goal.y - used.y),
                                                      used.yaw + gain * wrap_angle(goal.yaw - used.yaw))

    # -- reference -----------------------------------------------------------------------------
    def _upper_map(self, style_joints: tuple[str, ...]) -> np.ndarray:
        """0/1 matrix (style joints × robot upper joints) taking the style's upper-body curves to
        the robot's joints; a style joint the robot does not have is dropped. (Cached per style.)"""
        if style_joints not in self._upper_maps:
            names = self.config.upper_joint_names
            self._upper_maps[style_joints] = np.array(
                [[float(a == b) for b in names] for a in style_joints]).reshape(len(style_joints), len(names))
        return self._upper_maps[style_joints]

    def reference(self, times_s=None) -> Reference:
        """The reference at ``times_s`` relative to now (default: the preview grid from 0)."""
        cfg = self.config
        t = self._preview_grid if times_s is None else np.atleast_1d(np.asarray(times_s, dtype=float))
        gait, phase_map = self.gait, self.gait.phase_map
        cycle = gait.timing.cycle_s
        kappa = self.time_scale
        clock = self.clock_scale * self.clock_rate * t  # gait-clock time of each preview time
        phase = phase_map.phase(phase_map.time_s(self.phase) + clock)
        # One body prediction for the preview times and for the middle of the stance after each
        # swing (where that swing's foothold goes).
        events = self._events()
        swings = np.array(events["left"] + events["right"])
        bodies = predict_body(self.body, self.walk_velocity,
                              np.concatenate([kappa * t, 0.5 * (swings[:, 0] + swings[:, 1] + cycle)]))
        body = bodies[:t.size]

        rows, stance_s, footholds = self._swing_table(events, swings, bodies[t.size:], cycle, float(clock.max()))
        if times_s is None:
            self._last_swings = (rows, self.clock_rate)
        feet_pos, feet_quat, stance = self._feet_poses(clock, rows, stance_s)

        cycle_curves = gait.cycle(phase)  # columns: PELVIS_CURVES, then the style's upper joints
        height, roll, pitch, yaw = (cycle_curves[:, i] for i in range(4))
        pelvis_height = cfg.nominal_pelvis_height_m + height
        pelvis_quat = _quat_zyx(body[:, 2] + yaw, pitch, roll)
        upper = self._upper_posture + cycle_curves[:, 4:] @ self._upper_map(gait.upper_joints)
        return Reference(t, phase, pelvis_height, pelvis_quat, feet_pos, feet_quat, stance,
                         cfg.upper_joint_names, upper, body, footholds)

    def _swing_table(self, events, swings: np.ndarray, bodies: np.ndarray, cycle: float, horizon_s: float):
        """Both feet's swings as rows [lift-off, touch-down (relative to now) [s], start pose (x, y,
        yaw), end pose] — the left foot's swings first, then the right's — with the number of
        left rows; each foot's stance duration [s]; and the footholds touched down in
        (0, horizon_s], by time, as rows [side (0 left, 1 right), time, x, y, yaw].

        ``swings`` are ``events`` as rows (left, then right) and ``bodies`` the predicted body
        poses at the middle of the stance after each. A foot's first swing starts from its known
        lift-off pose (or, when it is still to come, its current foothold); later touch-downs
        are those bodies placed for the foot."""
        left, right = events["left"], events["right"]
        rows = np.empty((len(swings), 8))
        rows[:, :2] = swings
        td = rows[:, 1]
        sign = np.repeat([1.0, -1.0], [len(left), len(right)])
        a = self.gait.attributes
        c, s = np.cos(bodies[:, 2]), np.sin(bodies[:, 2])
        dy = sign * (a.stance_width_m / 2.0)
        ends = rows[:, 5:]
        ends[:, 0] = bodies[:, 0] + c * a.foot_offset_x_m - s * dy
        ends[:, 1] = bodies[:, 1] + s * a.foot_offset_x_m + c * dy
        ends[:, 2] = bodies[:, 2] + sign * a.splay_rad
        stance_s = {}
        for side, first, swings in (("left", 0, left), ("right", len(left), right)):
            first_lo, first_td = swings[0]
            if first_td <= 0.0:
                f = self.footholds[side]
                ends[first] = (f.x, f.y, f.yaw)
            elif first_lo <= 0.0:
                f = self._swing_target_used[side]
                ends[first] = (f.x, f.y, f.yaw)
            elif side == self._adjusted_side:
                f = self._adjusted(side, Pose2(*ends[first]))
                ends[first] = (f.x, f.y, f.yaw)
            start = self.lift_off[side] if first_lo <= 0.0 < first_td else self.footholds[side]
            rows[first, 2:5] = (start.x, start.y, start.yaw)
            rows[first + 1:first + len(swings), 2:5] = ends[first:first + len(swings) - 1]
            stance_s[side] = cycle - (first_td - first_lo)
        landing = np.flatnonzero((td > 0.0) & (td <= horizon_s))
        landing = landing[np.argsort(td[landing], kind="stable")]
        footholds = np.empty((landing.size, 5))
        footholds[:, 0] = landing >= len(left)
        footholds[:, 1:] = rows[landing][:, [1, 5, 6, 7]]
        return (rows, len(left)), stance_s, footholds

    def _feet_poses(self, t, swing_table, stance_s):
        """Sole positions (N, 3), quaternions (N, 4) and stance flags (N,) per foot; both feet in
        one vectorized pass (rows: left at every time, then right). (Written for few numpy calls:
        this is most of the 125 Hz tick.)"""
        a, g, n = self.gait.attributes, self.config.foot, t.size
        rows, n_left = swing_table
        # Each time's current or next swing of each foot (before a foot's first swing, the first:
        # then t < lift-off).
        k = np.concatenate([np.searchsorted(rows[:n_left, 0], t, side="right") - 1,
                            np.searchsorted(rows[n_left:, 0], t, side="right") - 1 + n_left])
        row = rows[np.maximum(k, _first_rows(n, n_left))]
        lo, td, start, end = row[:, 0], row[:, 1], row[:, 2:5], row[:, 5:8]
        left = _left_rows(n)
        stance_s = np.where(left, stance_s["left"], stance_s["right"])
        tt = np.concatenate([t, t])
        in_swing = (tt >= lo) & (tt < td)
        s = (tt - lo) / (td - lo)  # swing progress, < 0 before and > 1 after (clipped below)
        # Time since the last touch-down (only read in stance).
        since_td = np.where(tt >= td, tt - td, tt - lo + stance_s)
        rolldown = np.maximum(a.heel_rolldown_fraction * stance_s, 1e-9)
        rollup = np.maximum(a.toe_rollup_fraction * stance_s, 1e-9)
        # One min-jerk pass: the swing progress, heel-strike build-up, toe-off decay, heel
        # roll-down after touch-down and toe roll-up before lift-off.
        m, heel_swing, toe_swing, heel_stance, toe_stance = min_jerk(
            np.array([s, 2 * s - 1, 2 * s, since_td / rolldown, 1 - (stance_s - since_td) / rollup]))
        delta = end - start
        delta[:, 2] = wrap_angle(delta[:, 2])
        nominal = start + m[:, None] * delta
        # Stylized offsets: the foot's own columns of the swing table (both feet's curves share
        # its breakpoints), zero outside its swings, with lateral / yaw / roll (outward in the
        # style) signed into the world's left-right.
        table = self.gait.feet_swing
        x = np.minimum(np.maximum(s, 0.0), 1.0)
        interval = np.minimum(np.searchsorted(table.breakpoints, x, side="right") - 1, table.breakpoints.size - 2)
        h = (x - table.breakpoints[interval])[:, None]
        c = table.coefficients.reshape(4, -1, 2, 5)[:, interval, _side_column(n)]
        curves = (((c[0] * h + c[1]) * h + c[2]) * h + c[3]) * np.where(in_swing[:, None], _outward_sign(n), 0.0)
        forward, lateral, height, yaw, roll = curves.T
        # Heel pitch (≤ 0, toes up) and toe pitch (≥ 0, heel up): in swing the toe-off pitch
        # decays over the first half and the heel-strike pitch builds over the second; in stance
        # the foot rolls down from the heel after touch-down and up onto the toe before lift-off.
        heel = a.heel_strike_pitch_rad * np.where(in_swing, heel_swing, 1 - heel_stance)
        toe = a.toe_off_pitch_rad * np.where(in_swing, 1 - toe_swing, toe_stance)
        heading = nominal[:, 2] + yaw
        # Every angle's cosine and sine in two calls (this is the hot path).
        angles = np.array([toe, heel, roll, heading, nominal[:, 2], 0.5 * heading, 0.5 * roll, 0.5 * (heel + toe)])
        cos, sin = np.cos(angles), np.sin(angles)
        ox, oy, oz = _sole_origin_offset(g, cos[:3], sin[:3], roll)
        # world = nominal + R_z(nominal yaw + yaw) · offset + R_z(nominal yaw) · (forward, lateral, height)
        ch, sh, cn, sn = cos[3], sin[3], cos[4], sin[4]
        world = _columns(nominal[:, 0] + ch * ox - sh * oy + cn * forward - sn * lateral,
                         nominal[:, 1] + sh * ox + ch * oy + sn * forward + cn * lateral, oz + height)
        quat = _quat_zxy_half(cos[5:], sin[5:])
        return ({"left": world[:n], "right": world[n:]}, {"left": quat[:n], "right": quat[n:]},
                {"left": ~in_swing[:n], "right": ~in_swing[n:]})


@functools.lru_cache(maxsize=8)
def _outward_sign(n: int) -> np.ndarray:
    """Per row of the two-feet arrays (n left rows, then n right), the sign of each SWING_CURVES
    column in the world's left-right sense (lateral, yaw and roll are "outward" in a style)."""
    sign = np.ones((2 * n, 5))
    sign[n:, [1, 3, 4]] = -1.0
    return sign


@functools.lru_cache(maxsize=8)
def _left_rows(n: int) -> np.ndarray:
    """[True] * n + [False] * n."""
    return np.repeat([True, False], n)


@functools.lru_cache(maxsize=8)
def _side_column(n: int) -> np.ndarray:
    """Per row of the two-feet arrays, the foot's column group in the swing table (0 left, 1 right)."""
    return np.repeat([0, 1], n)


@functools.lru_cache(maxsize=8)
def _first_rows(n: int, left_swings: int) -> np.ndarray:
    """Index of each foot's first swing in the two-feet table, per row."""
    return np.repeat([0, left_swings], n)


def _sole_origin_offset(g: FootGeometry, cos, sin, roll):
    """Where the sole origin goes under roll γ about the lower sole edge, heel pitch ψ_h about the
    heel and toe pitch ψ_t about the toe (pivots fixed in the nominal sole frame), given
    ``cos``/``sin`` of (ψ_t, ψ_h, γ) as rows (3, N): x, y, z (N,) each."""
    (ct, ch, cr), (st, sh, sr) = cos, sin
    # Toe pivot: (I − R_y(ψ_t)) x_toe e_x; then heel pivot: R_y(ψ_h)(·) + (I − R_y(ψ_h)) x_heel e_x.
    a, b = g.toe_x_m * (1 - ct), g.toe_x_m * st
    x = a * ch + b * sh + g.heel_x_m * (1 - ch)
    z = -a * sh + b * ch + g.heel_x_m * sh
    # Roll pivot on the edge that stays down: R_x(γ)(·) + (I − R_x(γ)) y_e e_y.
    edge = np.where(roll >= 0, -g.half_width_m, g.half_width_m)
    y = -z * sr + edge * (1 - cr)
    z = z * cr - edge * sr
    return x, y, z


def _crossed(old: float, new: float, event: float, wrapped: bool) -> bool:
    """Whether phase moved past ``event`` going from ``old`` to ``new`` (with cycle wrap)."""
    if not wrapped:
        return old < event <= new
    return event > old or event <= new


def gait_reference(reference: Reference, stamp_s: float) -> GaitReference:
    """A :class:`Reference` as the contract its consumers read (:class:`GaitReference`), its
    times relative to ``stamp_s`` [s, sim time]."""
    return GaitReference(stamp_s=stamp_s, times_s=reference.times_s, body=reference.body,
                         pelvis_height_m=reference.pelvis_height_m, pelvis_quat_wxyz=reference.pelvis_quat_wxyz,
                         sole_position_m=reference.foot_position_m, sole_quat_wxyz=reference.foot_quat_wxyz,
                         in_stance=reference.in_stance, upper_joint_names=reference.upper_joint_names,
                         upper_joints_rad=reference.upper_joints_rad)
