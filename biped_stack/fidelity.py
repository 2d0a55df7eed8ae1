"""Style fidelity (issue #18): how much of the designed style the robot actually walks.

Planned is the whole-body controller's reference at each control tick (the planner's reference
sampled where the WBC tracks it); achieved is the simulator's ground truth at the same tick.
Per scenario segment, over its steady-state window (:meth:`biped_stack.scenario.Scenario.windows`):

- ``swing_apex_ratio``: median over the swings inside the window of achieved / planned apex,
  the apex being the sole's highest point in the planned swing above its height at lift-off;
- ``sole_swing_path_rms_m``: RMS distance between the achieved and planned sole in swing;
- ``pelvis_height_rms_m``: RMS of achieved − planned pelvis height;
- ``pelvis_height_amplitude_ratio`` and ``pelvis_height_lag_s``: the achieved bob against the
  planned one, both with their window means removed — the lag at the peak of their
  cross-correlation (positive: the robot is late; refined between samples by a parabola) and the
  ratio of their RMS amplitudes with the achieved bob shifted back by that lag;
- ``heel_strike_pitch_ratio`` / ``toe_off_pitch_ratio``: median over swings of achieved /
  planned sole pitch at touch-down / lift-off (extreme within :data:`PITCH_WINDOW_S`);
- ``upper_body_rms_rad``: RMS over the style's upper-body joints of achieved − planned angle.

A figure is None where the style asks nothing to compare against (a planned apex, bob or
pitch too small to measure, no upper body, or no swing inside the window).
"""

from __future__ import annotations

import numpy as np

from biped_common.rotations import quats_sole_pitch

SIDES = ("left", "right")
MIN_APEX_M = 0.005          # planned apex below this: no swing height to compare
MIN_BOB_M = 0.002           # planned pelvis bob (RMS) below this: no amplitude or lag to compare
MIN_PITCH_RAD = 0.03        # planned heel-strike / toe-off pitch below this: nothing to compare
PITCH_WINDOW_S = 0.04       # the heel-strike (toe-off) pitch: its extreme within this of the event
MAX_LAG_S = 0.1             # the pelvis lag is searched within ± this


def planned_swings(stance: np.ndarray) -> list[tuple[int, int]]:
    """Index ranges [lift-off, touch-down) of a foot's planned swings (``stance`` (N,) bool),
    only whole swings (a swing cut by the record's start or end is left out)."""
    swinging = ~np.asarray(stance, dtype=bool)
    edges = np.diff(swinging.astype(int))
    starts, ends = np.flatnonzero(edges == 1) + 1, np.flatnonzero(edges == -1) + 1
    return [(int(s), int(ends[ends > s][0])) for s in starts if np.any(ends > s)]


def sole_pitch_rad(quats_wxyz: np.ndarray) -> np.ndarray:
    """Pitch of soles (N, 4) about their own lateral axis [rad]: positive heel up / toes down, as
    the style's toe-off pitch (−asin of the sole x axis's world z component)."""
    return quats_sole_pitch(quats_wxyz)


def lag_and_amplitude(planned: np.ndarray, achieved: np.ndarray, period_s: float,
                      max_lag_s: float = MAX_LAG_S) -> tuple[float, float]:
    """Lag [s] of ``achieved`` behind ``planned`` (equal-length samples ``period_s`` apart) at
    the peak of their cross-correlation within ± ``max_lag_s`` (parabolic refinement), and the
    ratio of their RMS amplitudes (means removed) with ``achieved`` shifted back by the lag's
    whole samples."""
    p = np.asarray(planned, dtype=float) - np.mean(planned)
    a = np.asarray(achieved, dtype=float) - np.mean(achieved)
    n = p.size
    max_k = min(int(round(max_lag_s / period_s)), n // 2)
    lags = np.arange(-max_k, max_k + 1)
    # Mean product over the overlap: achieved at i + k against planned at i.
    corr = np.array([np.mean(a[k:] * p[:n - k]) if k >= 0 else np.mean(a[:n + k] * p[-k:]) for k in lags])
    best = int(np.argmax(corr))
    shift = 0.0
    if 0 < best < lags.size - 1:
        left, mid, right = corr[best - 1], corr[best], corr[best + 1]
        curvature = left - 2.0 * mid + right
        if curvature < 0.0:
            shift = 0.5 * (left - right) / curvature
    k = int(lags[best])
    a_aligned, p_aligned = (a[k:], p[:n - k]) if k >= 0 else (a[:n + k], p[-k:])
    ratio = float(np.sqrt(np.mean(a_aligned**2)) / max(np.sqrt(np.mean(p_aligned**2)), 1e-12))
    return float((k + shift) * period_s), ratio


def _median(values: list[float]) -> float | None:
    return float(np.median(values)) if values else None


def _rms(x: np.ndarray) -> float | None:
    return float(np.sqrt(np.mean(x**2))) if x.size else None


def window_fidelity(arrays: dict[str, np.ndarray], start_s: float, end_s: float) -> dict:
    """The fidelity figures (see the module docstring) over [start_s, end_s) of a run's arrays:
    ``time_s``, per side ``<side>_sole_position_m`` / ``<side>_planned_sole_position_m`` (N, 3),
    ``<side>_sole_quat_wxyz`` / ``<side>_planned_sole_quat_wxyz`` (N, 4),
    ``<side>_planned_stance`` (N,); ``base_position_m`` (N, 3) and ``planned_pelvis_height_m``
    (N,); ``upper_joints_rad`` / ``planned_upper_joints_rad`` (N, J). Rows whose plan is NaN (the
    WBC had no reference yet) are left out."""
    t = arrays["time_s"]
    inside = (t >= start_s) & (t < end_s) & np.isfinite(arrays["planned_pelvis_height_m"])
    apex, path_error, heel, toe = [], [], [], []
    period_s = float(np.median(np.diff(t))) if t.size > 1 else 0.0
    pitch_k = max(int(round(PITCH_WINDOW_S / period_s)), 1) if period_s > 0 else 1
    for side in SIDES:
        planned, achieved = arrays[f"{side}_planned_sole_position_m"], arrays[f"{side}_sole_position_m"]
        planned_pitch = sole_pitch_rad(arrays[f"{side}_planned_sole_quat_wxyz"])
        achieved_pitch = sole_pitch_rad(arrays[f"{side}_sole_quat_wxyz"])
        for lift_off, touch_down in planned_swings(arrays[f"{side}_planned_stance"]):
            if not inside[lift_off:touch_down].all():
                continue
            path_error.append(np.linalg.norm(achieved[lift_off:touch_down] - planned[lift_off:touch_down], axis=1))
            planned_apex = float(planned[lift_off:touch_down, 2].max() - planned[lift_off, 2])
            if planned_apex >= MIN_APEX_M:
                apex.append(float(achieved[lift_off:touch_down, 2].max() - achieved[lift_off, 2]) / planned_apex)
            for events, index, take in ((toe, lift_off, np.nanmax), (heel, touch_down, np.nanmin)):
                around = slice(max(index - pitch_k, 0), index + pitch_k + 1)
                wanted = float(take(planned_pitch[around]))
                if abs(wanted) >= MIN_PITCH_RAD:
                    events.append(float(take(achieved_pitch[around])) / wanted)
    out = {"swings": len(path_error), "swing_apex_ratio": _median(apex),
           "sole_swing_path_rms_m": _rms(np.concatenate(path_error)) if path_error else None,
           "heel_strike_pitch_ratio": _median(heel), "toe_off_pitch_ratio": _median(toe),
           "pelvis_height_rms_m": None, "pelvis_height_amplitude_ratio": None, "pelvis_height_lag_s": None,
           "upper_body_rms_rad": None}
    if inside.sum() > 2:
        planned_height, achieved_height = arrays["planned_pelvis_height_m"][inside], arrays["base_position_m"][inside, 2]
        out["pelvis_height_rms_m"] = _rms(achieved_height - planned_height)
        if np.std(planned_height) >= MIN_BOB_M:
            out["pelvis_height_lag_s"], out["pelvis_height_amplitude_ratio"] = lag_and_amplitude(
                planned_height, achieved_height, period_s)
        upper, planned_upper = arrays.get("upper_joints_rad"), arrays.get("planned_upper_joints_rad")
        if upper is not None and upper.ndim == 2 and upper.shape[1]:
            out["upper_body_rms_rad"] = _rms(upper[inside] - planned_upper[inside])
    return out


def style_fidelity(scenario, arrays: dict[str, np.ndarray]) -> list[dict] | None:
    """Per segment of ``scenario`` its name and :func:`window_fidelity` over its steady-state
    window; None when the arrays hold no plan (a run recorded without the WBC's reference)."""
    if "planned_pelvis_height_m" not in arrays or arrays["time_s"].size < 2:
        return None
    return [{"name": segment.name, "window_s": [float(start), float(end)], **window_fidelity(arrays, start, end)}
            for segment, start, end in scenario.windows()]
