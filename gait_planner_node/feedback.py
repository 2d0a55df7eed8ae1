"""Gait feedback (source 004, "gait feedback"): the robot's DCM error turned into adjustments of
the gait that keep its style — velocity adjustment for small sustained errors, footstep
adjustment for larger ones a step can fix, time scaling κ_time = exp(k_p ε + k_d ε̇) that speeds
the reference up or slows it down so the CoM catches up (ROS-free).

The error. The reference the robot should follow is the planner's: its footholds and their
touch-down times. On the linear inverted pendulum (ω = √(g/h)) with the CoP at the stance sole
and switching at each touch-down, the divergent component of motion ξ = c + ċ/ω that walks those
footholds is found backwards from the last one (Englsberger et al. 2015, "Three-dimensional
bipedal walking control based on divergent component of motion", eq. 12):

    ξ_i = p_i + e^{−ω T_i} (ξ_{i+1} − p_i)        (T_i the duration of step i on foothold p_i)

:func:`nominal_dcm` evaluates it now. The error ε = ξ_measured − ξ_nominal (world, metres) is
what this module acts on, expressed in the body frame (x forward, y left):

- velocity adjustment: a bias k_v · dz(ε̄, d_v) on the walked velocity (ε̄ low-passed, dz a
  dead-band), clamped by the planner into the style's range — the body path moves towards where
  the robot is, so a persistent push is absorbed without stepping back to the old path;
- footstep adjustment: the next touch-down moves by k_s e^{ω T} dz(ε, d_s), T the time to it —
  under the pendulum the error grows as e^{ωT} until then, and landing that much further keeps
  the DCM's offset from the new foothold nominal (Englsberger 2015 §IV; Khadiv et al. 2020,
  "Walking control based on step timing adaptation", eq. 7). Under a sustained push δ = F/m
  (the MPC's estimate, low-passed over ``push_filter_s`` so an impulse's brief spike counts
  little) the error is taken as ε + δ/ω² (:func:`push_shift_m`). The planner clamps the foothold
  to the legs' reach and keeps the feet apart (:func:`clamp_foothold`);
- time scaling: κ = exp(k_p e + k_d ė) on the gait clock and the body path (the forward
  error e along the heading, dead-banded), within [κ_min, κ_max]: pushed forward, the reference
  runs faster and steps come sooner; pushed back, it slows so the CoM falls back onto it. The
  curves are re-timed through the phase map, so they keep their shape.
- step timing (``step_timing``): while one foot swings, where it lands and when are chosen
  together (:func:`adapt_step`; Khadiv et al. 2020): a small bounded least-squares problem on
  τ = e^{ωT} trades the foothold's move against the touch-down's, so a step that cannot reach far
  enough lands sooner instead — the footstep adjustment above, with its timing free. Its κ runs
  the gait clock for the rest of the swing (the body path keeps κ_time).

The adjustments vanish inside the dead-bands, so an unpushed walk is the unadjusted style, and
decay with the error once the robot has recovered. A standing robot absorbs a push with its
ankles as long as its DCM stays inside the support polygon (the CoP can then hold it); once the
DCM (plus the filtered δ/ω² under a push) comes within ``stand_step_margin_m`` of the polygon's edge — or beyond — it steps
(:attr:`FeedbackAdjustment.needs_steps`) until its DCM error has been within
``recovered_error_m`` for ``stand_again_after_s``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, fields
from pathlib import Path

import numpy as np
from scipy.optimize import lsq_linear

from biped_common.config import bounded, dataclass_from_mapping, load_yaml_mapping
from biped_common.resources import params_file


@dataclass(frozen=True)
class FeedbackConfig:
    """Gains and thresholds of the gait feedback (SI units; see the module docstring)."""

    enabled: bool = field(metadata={"doc": "feedback on (false: the open-loop planner)"})
    error_filter_s: float = bounded(0.0, 1.0, "s", "low-pass time constant of the DCM error (0: none)")
    velocity_gain_per_s: float = bounded(0.0, 10.0, "1/s", "velocity bias per metre of DCM error")
    velocity_deadband_m: float = bounded(0.0, 0.5, "m", "DCM error ignored by the velocity adjustment")
    velocity_filter_s: float = bounded(0.01, 10.0, "s", "low-pass time constant of the velocity adjustment's error")
    step_gain: float = bounded(0.0, 2.0, "", "footstep offset per metre of the DCM error grown to touch-down")
    step_deadband_m: float = bounded(0.0, 0.5, "m", "DCM error ignored by the footstep adjustment")
    max_step_offset_m: float = bounded(0.0, 1.0, "m", "largest footstep offset")
    push_step_gain: float = bounded(0.0, 2.0, "", "share of the push shift δ/ω² (the MPC's push estimate) added to the footstep error")
    push_filter_s: float = bounded(0.0, 5.0, "s", "low-pass time constant of the push estimate the footsteps and the standing step decision use (0: none)")
    # Beyond a swing's length the CoP acts before the touch-down (the MPC plans it); extrapolating
    # e^{ωT} further blew a 1.4 cm error at a walk's start (T long while the clock ramps) into
    # a 33 cm sideways step.
    max_growth_s: float = bounded(0.0, 2.0, "s", "the error's growth e^{ωT} to touch-down is taken over at most this")
    max_stride_m: float = bounded(0.05, 1.0, "m", "largest fore/aft distance of a foothold from the stance foot")
    min_foot_separation_m: float = bounded(0.0, 0.5, "m", "smallest sideways distance between the feet")
    max_foot_separation_m: float = bounded(0.05, 1.0, "m", "largest sideways distance between the feet")
    time_gain_p_per_m: float = bounded(0.0, 100.0, "1/m", "k_p of κ_time")
    time_gain_d_s_per_m: float = bounded(0.0, 10.0, "s/m", "k_d of κ_time")
    time_deadband_m: float = bounded(0.0, 0.5, "m", "forward DCM error ignored by the time scaling")
    time_filter_s: float = bounded(0.0, 1.0, "s", "low-pass time constant of κ_time (0: none)")
    kappa_min: float = bounded(0.3, 1.0, "", "slowest time scale")
    kappa_max: float = bounded(1.0, 3.0, "", "fastest time scale")
    step_timing: bool = field(metadata={"doc": "a swinging foot's foothold and touch-down time chosen together (adapt_step)"})
    timing_weight_m2: float = bounded(0.0, 1e4, "m²", "cost of τ = e^{ωT} off nominal, per unit², against a foothold moved 1 m")
    dcm_offset_weight: float = bounded(0.0, 1e6, "", "cost of the DCM's offset from the foothold at touch-down off nominal, against the foothold's move")
    stand_step_margin_m: float = bounded(-0.1, 0.1, "m", "a standing robot steps when its DCM is this near the support's edge")
    recovered_error_m: float = bounded(0.001, 0.5, "m", "DCM error below which the robot has recovered")
    stand_again_after_s: float = bounded(0.0, 10.0, "s", "recovered this long: a robot that stood stands again")

    def __post_init__(self):
        if self.min_foot_separation_m >= self.max_foot_separation_m:
            raise ValueError("min_foot_separation_m must be below max_foot_separation_m")

    @classmethod
    def load(cls, path: str | Path | None = None) -> "FeedbackConfig":
        """From a YAML file (default: the shipped ``config/feedback.yaml``); ConfigError naming
        the field."""
        path = Path(path) if path else params_file("feedback.yaml")
        return dataclass_from_mapping(cls, load_yaml_mapping(path), "")

    def as_mapping(self) -> dict:
        """The fields as a plain mapping (the inverse of :meth:`load`'s)."""
        return {f.name: getattr(self, f.name) for f in fields(self)}


@dataclass(frozen=True)
class FeedbackAdjustment:
    """What the feedback asks of the planner this tick. ``velocity_bias`` (ẋ, ẏ [m/s]) in the
    body frame; ``step_offset_m`` (x, y) in the world, for the next touch-down; ``time_scale``
    κ_time (the body path's); ``needs_steps``: a standing robot must step; ``error_m`` the DCM
    error (x, y) in the body frame; ``clock_scale`` the gait clock's κ (κ_time, or the step
    timing's while it adapts a swing)."""

    velocity_bias: np.ndarray
    step_offset_m: np.ndarray
    time_scale: float
    needs_steps: bool
    error_m: np.ndarray
    clock_scale: float = 1.0


NO_ADJUSTMENT = FeedbackAdjustment(np.zeros(2), np.zeros(2), 1.0, False, np.zeros(2))


@dataclass(frozen=True)
class SwingStep:
    """The swing in progress that :func:`adapt_step` adapts, as the unadjusted gait plans it
    (world frame [m]; times at κ = 1 [s]): the stance sole's centre (the CoP until touch-down),
    the landing sole's centre, the nominal DCM now and at touch-down, the time to touch-down, and
    the swinging side."""

    stance_m: np.ndarray
    landing_m: np.ndarray
    dcm_now_m: np.ndarray
    dcm_at_touch_down_m: np.ndarray
    time_to_touch_down_s: float
    side: str


def dcm(com_m: np.ndarray, com_velocity_m_s: np.ndarray, omega_per_s: float) -> np.ndarray:
    """ξ = c + ċ/ω (2,), horizontal, world frame [m] (Englsberger 2015, eq. 2)."""
    return np.asarray(com_m, dtype=float)[:2] + np.asarray(com_velocity_m_s, dtype=float)[:2] / omega_per_s


def nominal_dcm(segments: list[tuple[float, np.ndarray]], omega_per_s: float) -> np.ndarray:
    """The DCM (2,) now [m, world] that walks a planned support: ``segments`` are (start [s from
    now], CoP (2,)) by time, the first starting now; the CoP is held over each, and beyond the last
    the DCM rests on its CoP (Englsberger 2015, eq. 12, evaluated backwards)."""
    xi = np.asarray(segments[-1][1], dtype=float)
    for (start_s, cop), (end_s, _) in zip(reversed(segments[:-1]), reversed(segments[1:])):
        xi = cop + math.exp(-omega_per_s * (end_s - start_s)) * (xi - cop)
    return xi


def push_shift_m(push_m_s2, omega_per_s: float) -> np.ndarray:
    """δ/ω² (2,) [m]: how much further a foot must land to capture the DCM under a sustained push
    δ = F/m [m/s²]. On c̈ = ω²(c − z) + δ the DCM obeys ξ̇ = ω(ξ − (z − δ/ω²)): the push moves the
    effective CoP back by δ/ω², so the error at touch-down is e^{ωT}(ε + δ/ω²) − δ/ω² and its
    capturing foothold another δ/ω² ahead — the offset e^{ωT}(ε + δ/ω²) (Englsberger 2015's DCM
    with an external force). Non-finite → zero."""
    push = np.asarray(push_m_s2, dtype=float)[:2]
    return push / omega_per_s**2 if np.all(np.isfinite(push)) else np.zeros(2)


def support_cop(feet_down: dict[str, np.ndarray], previous: np.ndarray | None = None) -> np.ndarray:
    """The CoP a support plans: the mean of the sole centres (2,) down (``previous`` when none is)."""
    if not feet_down:
        return previous.copy()
    return np.mean(list(feet_down.values()), axis=0)


def dead_band(x: np.ndarray, width: float) -> np.ndarray:
    """x shrunk towards zero by ``width`` along its direction (0 inside the band): continuous, so
    adjustments start smoothly at the band's edge."""
    norm = float(np.linalg.norm(x))
    return np.zeros_like(x) if norm <= width else x * (1.0 - width / norm)


def to_body_xy(vector_world: np.ndarray, yaw_rad: float) -> np.ndarray:
    """A horizontal vector (2,) from the world frame into the body's heading frame (x forward, y left)."""
    c, s = math.cos(yaw_rad), math.sin(yaw_rad)
    return np.array([c * vector_world[0] + s * vector_world[1], -s * vector_world[0] + c * vector_world[1]])


def to_world_xy(vector_body: np.ndarray, yaw_rad: float) -> np.ndarray:
    """A horizontal vector (2,) from the body's heading frame into the world frame."""
    c, s = math.cos(yaw_rad), math.sin(yaw_rad)
    return np.array([c * vector_body[0] - s * vector_body[1], s * vector_body[0] + c * vector_body[1]])


def clamp_foothold(landing_m: np.ndarray, stance_m: np.ndarray, yaw_rad: float, side: str,
                   config: FeedbackConfig) -> np.ndarray:
    """A landing foothold position (2,) [m, world] kept reachable and collision-free relative to
    the stance foot at ``stance_m`` (the body heading ``yaw_rad``): fore/aft within
    ``max_stride_m``, sideways apart by [min, max]_foot_separation_m with ``side`` on its own side."""
    c, s = math.cos(yaw_rad), math.sin(yaw_rad)
    dx, dy = landing_m[0] - stance_m[0], landing_m[1] - stance_m[1]
    forward, left = c * dx + s * dy, -s * dx + c * dy
    forward = min(max(forward, -config.max_stride_m), config.max_stride_m)
    sign = 1.0 if side == "left" else -1.0
    left = sign * min(max(sign * left, config.min_foot_separation_m), config.max_foot_separation_m)
    return np.array([stance_m[0] + c * forward - s * left, stance_m[1] + s * forward + c * left])


def time_error_m(error_body_m: np.ndarray, forward_velocity_m_s: float, walking_m_s: float = 0.1) -> float:
    """The error the time scaling acts on [m]: walking forward, the DCM error along the heading
    (ahead: the reference speeds up and catches the CoM; behind: it slows so the CoM catches it);
    walking backward, its opposite; walking in place or stepping to recover, the error's size
    (quicker steps catch a diverging DCM sooner, in any direction). Blended linearly in between
    (|ẋ| < ``walking_m_s``), so κ stays continuous as the robot starts and stops."""
    s = min(max(forward_velocity_m_s / walking_m_s, -1.0), 1.0)
    return s * float(error_body_m[0]) + (1.0 - abs(s)) * float(np.linalg.norm(error_body_m))


def adapt_step(error_body_m: np.ndarray, swing: SwingStep, heading_rad: float, omega_per_s: float,
               config: FeedbackConfig) -> tuple[np.ndarray, float]:
    """Where and when the swinging foot lands (Khadiv et al. 2020, "Walking control based on step
    timing adaptation", §III, eq. 9–14). With τ = e^{ωT} and the CoP u₀ at the stance sole until
    touch-down, the DCM ξ = ξ_nom + ``error_body_m`` lands at ξ_T = (ξ − u₀)τ + u₀; a landing
    u_T leaves the offset b = ξ_T − u_T that the next steps inherit. Minimised over (u_T, τ):

        ‖u_T − u_nom‖² + w_τ (τ − τ_nom)² + w_b ‖b − b_nom‖²

    with u_T in :func:`clamp_foothold`'s box around the stance foot and T within the clock's range
    [T_nom/κ_max, T_nom/κ_min] — a bounded linear least-squares problem in three unknowns. At
    zero error the nominal step is its solution; with τ held (w_τ → ∞) and w_b → ∞ it is the
    footstep law's offset e^{ωT} ε. Returns the landing's offset from u_nom (2,) [m, world] and
    the clock's rate κ = T_nom/T* for the rest of the swing."""
    cfg = config
    t_nom = max(swing.time_to_touch_down_s, 1e-3)
    tau_nom = math.exp(omega_per_s * t_nom)
    # Body frame (x forward, y left), relative to the stance sole: where the box bounds are.
    e0 = to_body_xy(swing.dcm_now_m - swing.stance_m, heading_rad) + np.asarray(error_body_m, dtype=float)
    u_nom = to_body_xy(swing.landing_m - swing.stance_m, heading_rad)
    b_nom = to_body_xy(swing.dcm_at_touch_down_m - swing.landing_m, heading_rad)
    w_tau, w_b = math.sqrt(cfg.timing_weight_m2), math.sqrt(cfg.dcm_offset_weight)
    # Rows: u_T − u_nom; √w_τ (τ − τ_nom); √w_b (e0 τ − u_T − b_nom)  (b eliminated: b = e0 τ − u_T).
    a = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, w_tau],
                  [-w_b, 0.0, w_b * e0[0]], [0.0, -w_b, w_b * e0[1]]])
    rhs = np.array([u_nom[0], u_nom[1], w_tau * tau_nom, w_b * b_nom[0], w_b * b_nom[1]])
    sign = 1.0 if swing.side == "left" else -1.0
    lateral = sorted((sign * cfg.min_foot_separation_m, sign * cfg.max_foot_separation_m))
    lower = np.array([-cfg.max_stride_m, lateral[0], math.exp(omega_per_s * t_nom / cfg.kappa_max)])
    upper = np.array([cfg.max_stride_m, lateral[1], math.exp(omega_per_s * t_nom / cfg.kappa_min)])
    solution = lsq_linear(a, rhs, bounds=(lower, upper), method="bvls").x
    t_star = math.log(solution[2]) / omega_per_s
    clock_scale = min(max(t_nom / t_star, cfg.kappa_min), cfg.kappa_max)
    return to_world_xy(solution[:2] - u_nom, heading_rad), clock_scale


class GaitFeedback:
    """The feedback's state (filtered errors, the recovery clock) and its laws, tick by tick."""

    def __init__(self, config: FeedbackConfig, omega_per_s: float):
        self.config = config
        self.omega_per_s = omega_per_s
        self._error = None             # filtered DCM error, body frame
        self._slow_error = np.zeros(2)  # the velocity adjustment's (slower) error
        self._push_m_s2 = np.zeros(2)   # the push estimate, filtered (world)
        self._previous_forward = 0.0
        self._forward_rate = 0.0
        self._recovered_s = 0.0
        self._time_scale = 1.0
        self._clock_change = 0.0  # the step timing's change of the clock's κ, filtered
        self.stepping = False
        self.last = NO_ADJUSTMENT

    def filter_push(self, dt_s: float, push_m_s2) -> np.ndarray:
        """Low-pass the MPC's push estimate δ = F/m (2,) [m/s², world] over ``push_filter_s`` and
        return its shift δ̄/ω² (2,) [m, world] (:func:`push_shift_m`): an impulse's brief spike of
        δ — or a force on a foot that its friction takes — shifts little, a held push fully.
        Non-finite δ is skipped."""
        push = np.asarray(push_m_s2, dtype=float)[:2]
        if np.all(np.isfinite(push)):
            cfg = self.config
            self._push_m_s2 += (1.0 if cfg.push_filter_s <= 0 else min(1.0, dt_s / cfg.push_filter_s)) * (
                push - self._push_m_s2)
        return push_shift_m(self._push_m_s2, self.omega_per_s)

    def update(self, dt_s: float, error_world_m: np.ndarray, heading_rad: float, time_to_touch_down_s: float | None,
               standing: bool, forward_velocity_m_s: float = 0.0,
               dcm_inside_support_m: float = math.inf, push_shift_world_m=(0.0, 0.0),
               swing: SwingStep | None = None) -> FeedbackAdjustment:
        """One tick: the DCM error (world, m) → the adjustments (:class:`FeedbackAdjustment`).
        ``time_to_touch_down_s``: until the next touch-down (None: none planned);
        ``forward_velocity_m_s``: the walked velocity along the heading (the time scaling's
        sense, see :func:`time_error_m`); ``dcm_inside_support_m``: how far the measured DCM is
        inside the support polygon (negative: outside; :func:`biped_common.support_polygon.inside_polygon_m`);
        ``push_shift_world_m`` (2,): the filtered push's shift δ̄/ω² [m, world]
        (:meth:`filter_push`), for the footstep adjustment; ``swing``: the swing in progress in
        single support, whose foothold and timing the step timing adapts together (None: none,
        or ``step_timing`` off — the footstep law alone)."""
        cfg = self.config
        if not cfg.enabled or not np.all(np.isfinite(error_world_m)):
            self.last = NO_ADJUSTMENT
            return self.last
        raw = to_body_xy(error_world_m, heading_rad)
        if self._error is None:
            self._error = raw
            self._previous_forward = float(raw[0])
        a = 1.0 if cfg.error_filter_s <= 0 else min(1.0, dt_s / cfg.error_filter_s)
        self._error = self._error + a * (raw - self._error)
        self._slow_error += min(1.0, dt_s / cfg.velocity_filter_s) * (raw - self._slow_error)
        error = self._error

        velocity_bias = cfg.velocity_gain_per_s * dead_band(self._slow_error, cfg.velocity_deadband_m)

        step_offset = np.zeros(2)
        clock_target = None
        shift_body = cfg.push_step_gain * to_body_xy(push_shift_world_m, heading_rad)
        if swing is not None and cfg.step_timing and not standing:
            step_offset, clock_target = adapt_step(dead_band(error + shift_body, cfg.step_deadband_m), swing,
                                                   heading_rad, self.omega_per_s, cfg)
        elif time_to_touch_down_s is not None and not standing:
            grown = math.exp(self.omega_per_s * min(max(time_to_touch_down_s, 0.0), cfg.max_growth_s)) * dead_band(
                error + shift_body, cfg.step_deadband_m)
            offset_body = cfg.step_gain * grown
            norm = float(np.linalg.norm(offset_body))
            if norm > cfg.max_step_offset_m:
                offset_body *= cfg.max_step_offset_m / norm
            step_offset = to_world_xy(offset_body, heading_rad)

        forward = float(dead_band(np.array([time_error_m(error, forward_velocity_m_s)]), cfg.time_deadband_m)[0])
        rate = (forward - self._previous_forward) / dt_s if dt_s > 0 else 0.0
        self._forward_rate += min(1.0, dt_s / max(cfg.error_filter_s, 0.02)) * (rate - self._forward_rate)
        self._previous_forward = forward
        time_scale = math.exp(cfg.time_gain_p_per_m * forward + cfg.time_gain_d_s_per_m * self._forward_rate)
        time_scale = min(max(time_scale, cfg.kappa_min), cfg.kappa_max)
        # Filtered: the clock's rate, hence the reference's velocity, stays continuous.
        time_filter = 1.0 if cfg.time_filter_s <= 0 else min(1.0, dt_s / cfg.time_filter_s)
        self._time_scale += time_filter * (time_scale - self._time_scale)
        time_scale = self._time_scale
        # The clock runs at κ_time plus the step timing's change of it, filtered so that the clock's
        # rate stays continuous as a swing's adaptation starts and ends.
        self._clock_change += time_filter * (
            (0.0 if clock_target is None else clock_target - time_scale) - self._clock_change)
        clock_scale = min(max(time_scale + self._clock_change, cfg.kappa_min), cfg.kappa_max)

        size = float(np.linalg.norm(error))
        if standing and dcm_inside_support_m < cfg.stand_step_margin_m:
            self.stepping = True
        if self.stepping:
            self._recovered_s = self._recovered_s + dt_s if size < cfg.recovered_error_m else 0.0
            if self._recovered_s >= cfg.stand_again_after_s:
                self.stepping, self._recovered_s = False, 0.0
        self.last = FeedbackAdjustment(velocity_bias, step_offset, time_scale, self.stepping, error.copy(),
                                       clock_scale)
        return self.last
