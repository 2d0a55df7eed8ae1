"""Gait import (issue #17; source 004's future work, 003's least-squares fitting): one key sample's
timing and curves fitted to a keyframed gait cycle (ROS-free).

**The keyframe file** (CSV, one header row, SI units): one gait cycle from a right touch-down,
rows evenly spaced in time (≥ 200 Hz; the timing is read from the contacts, so the row spacing is
its resolution), columns::

    time_s, left_z_m, left_contact, right_z_m, right_contact,
    pelvis_height_m, pelvis_roll_rad, pelvis_pitch_rad, pelvis_yaw_rad, [<joint>_rad …]

``*_z_m`` is the sole centre's height above the ground, ``*_contact`` 1 while the foot is down,
the pelvis angles (Z-Y-X Euler) are relative to the walking heading, and any ``<joint>_rad`` column an
upper-body joint the sample animates. Columns beyond these are ignored.

**The fit.** The timing's four intervals come from the contact events. Then every knot value of
the sample's curves — at the knot phases the template style gives them — is found by bounded
nonlinear least squares (``scipy.optimize.least_squares``, within each curve's bounds) on the
residual between the keyframes and the gait planner's own reference for the candidate sample at
the sample's key velocity (:func:`planner_cycle`): the planner is the forward model, so the
curves imported are what reproduce the keyframes when walked, heel and toe pitch included.
"""

from __future__ import annotations

import csv
import io
import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from scipy.optimize import least_squares

from biped_common.errors import ConfigError
from biped_common.rotations import quat_to_matrix, matrix_to_rpy
from gait_planner_node.planner import PlannerConfig
from gait_planner_node.style import Style, StyleError
from biped_stack.editor.document import EditError, StyleDocument, field_spec
from biped_stack.style_tools import TICK_S, settled_planner

FIXED_COLUMNS = ("time_s", "left_z_m", "left_contact", "right_z_m", "right_contact",
                 "pelvis_height_m", "pelvis_roll_rad", "pelvis_pitch_rad", "pelvis_yaw_rad")
MIN_RATE_HZ = 200.0
SETTLE_S = 1.5
FIT_STEP = 1e-3  # finite-difference step of a knot value [m or rad]


@dataclass(frozen=True)
class Keyframes:
    """One keyframed cycle: ``time_s`` (n,) from a right touch-down, evenly spaced; ``columns``
    name → (n,) values (:data:`FIXED_COLUMNS` and the upper-body joints)."""

    time_s: np.ndarray
    columns: dict[str, np.ndarray]

    @property
    def dt_s(self) -> float:
        return float(self.time_s[1] - self.time_s[0])

    @property
    def joints(self) -> tuple[str, ...]:
        return tuple(name[:-4] for name in self.columns if name.endswith("_rad") and not name.startswith("pelvis_"))


def read_keyframes(path: str | Path) -> Keyframes:
    """The keyframe file at ``path`` (format in the module docstring); ConfigError naming the
    column or row that is wrong."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(str(path), f"cannot be read: {getattr(exc, 'strerror', None) or exc}") from exc
    return parse_keyframes(text, str(path))


def parse_keyframes(text: str, source: str = "keyframes") -> Keyframes:
    """The keyframes of a CSV text (format in the module docstring); ConfigError naming ``source``
    and the column or row that is wrong."""
    path = source
    rows = [row for row in csv.reader(io.StringIO(text)) if row]
    if len(rows) < 3:
        raise ConfigError(str(path), "needs a header row and at least two rows of keyframes")
    header = [h.strip() for h in rows[0]]
    missing = [c for c in FIXED_COLUMNS if c not in header]
    if missing:
        raise ConfigError(f"{path}: header", f"missing column(s) {', '.join(missing)} (see the format: "
                                             f"{', '.join(FIXED_COLUMNS)}, [<joint>_rad …])")
    values = np.full((len(rows) - 1, len(header)), np.nan)
    for i, row in enumerate(rows[1:], start=2):
        if len(row) != len(header):
            raise ConfigError(f"{path}: row {i}", f"has {len(row)} fields, the header {len(header)}")
        for j, text in enumerate(row):
            try:
                values[i - 2, j] = float(text)
            except ValueError:
                raise ConfigError(f"{path}: row {i}, {header[j]}", f"not a number: {text!r}") from None
            if not math.isfinite(values[i - 2, j]):
                raise ConfigError(f"{path}: row {i}, {header[j]}", f"not finite: {text!r}")
    columns = {name: values[:, j] for j, name in enumerate(header)}
    t = columns.pop("time_s")
    steps = np.diff(t)
    if np.any(steps <= 0) or np.ptp(steps) > 1e-6 * max(1.0, float(steps.mean())) + 1e-9:
        raise ConfigError(f"{path}: time_s", "must increase in even steps")
    if 1.0 / steps.mean() < MIN_RATE_HZ:
        raise ConfigError(f"{path}: time_s", f"rows {steps.mean() * 1e3:.1f} ms apart: at least {MIN_RATE_HZ:.0f} Hz needed")
    keep = {n: v for n, v in columns.items() if n in FIXED_COLUMNS or n.endswith("_rad")}
    return Keyframes(t - t[0], keep)


def write_keyframes(path: str | Path, keyframes: Keyframes) -> Path:
    """Write ``keyframes`` in the file format (read back by :func:`read_keyframes`)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    names = list(keyframes.columns)
    with open(path, "w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow(["time_s", *names])
        for k, t in enumerate(keyframes.time_s):
            writer.writerow([f"{t:.6f}", *(f"{keyframes.columns[n][k]:.7g}" for n in names)])
    return path


def planner_cycle(style: Style, config: PlannerConfig, key: str, dt_s: float, joints=()) -> Keyframes:
    """The gait planner's reference over one cycle of ``style`` walking sample ``key``'s key
    velocity, from a right touch-down after :data:`SETTLE_S` of walking, every ``dt_s`` — as
    keyframes (heights above the ground, pelvis angles relative to the heading)."""
    planner = settled_planner(style, config, style.key_velocity(key), SETTLE_S)
    phase_map, cycle = planner.gait.phase_map, planner.gait.timing.cycle_s
    # Up to the next right touch-down (phase 0), exactly, in ticks no longer than the planner's.
    remaining = (cycle - phase_map.time_s(planner.phase)) / max(planner.clock_rate * planner.clock_scale, 1e-9)
    for _ in range(int(remaining // TICK_S)):
        planner.step(TICK_S)
        remaining -= TICK_S
    if remaining > 1e-9:
        planner.step(remaining)
    times = np.arange(int(round(cycle / dt_s))) * dt_s
    ref = planner.reference(times)
    ground = {side: float(ref.foot_position_m[side][ref.in_stance[side], 2].min()) if np.any(ref.in_stance[side]) else 0.0
              for side in ("left", "right")}
    rpy = np.array([matrix_to_rpy(quat_to_matrix(q)) for q in ref.pelvis_quat_wxyz])
    columns = {"left_z_m": ref.foot_position_m["left"][:, 2] - ground["left"],
               "left_contact": ref.in_stance["left"].astype(float),
               "right_z_m": ref.foot_position_m["right"][:, 2] - ground["right"],
               "right_contact": ref.in_stance["right"].astype(float),
               "pelvis_height_m": ref.pelvis_height_m, "pelvis_roll_rad": rpy[:, 0], "pelvis_pitch_rad": rpy[:, 1],
               "pelvis_yaw_rad": np.angle(np.exp(1j * (rpy[:, 2] - ref.body[:, 2])))}
    names = list(ref.upper_joint_names)
    for joint in joints:
        columns[f"{joint}_rad"] = ref.upper_joints_rad[:, names.index(joint)]
    return Keyframes(times, columns)


def contact_timing(keyframes: Keyframes) -> dict[str, float]:
    """The four intervals [s] from the contact columns: the left lift-off and touch-down, the right
    lift-off, the cycle's end one row after the last (resolution: the row spacing)."""
    t, dt = keyframes.time_s, keyframes.dt_s
    left, right = keyframes.columns["left_contact"] > 0.5, keyframes.columns["right_contact"] > 0.5

    def first(mask, after=-1.0, what=""):
        hits = np.nonzero(mask & (t > after))[0]
        if hits.size == 0:
            raise ConfigError("keyframes", f"no {what} in the cycle (one cycle from a right touch-down expected)")
        return float(t[hits[0]])
    left_lift = first(~left, what="left lift-off")
    left_down = first(left, left_lift, "left touch-down")
    right_lift = first(~right, left_down, "right lift-off")
    cycle = float(t[-1] + dt)
    return {"double_support_after_right_s": left_lift, "left_swing_s": left_down - left_lift,
            "double_support_after_left_s": right_lift - left_down, "right_swing_s": cycle - right_lift}


def fit_sample(document: StyleDocument, key: str, keyframes: Keyframes, config: PlannerConfig,
               progress=lambda *_: None) -> dict:
    """The changes (field path → value, :meth:`StyleDocument.apply`'s form) that make sample ``key``
    of ``document`` walk ``keyframes``: the contact timing, and every knot value of its curves at
    the template's knot phases fitted by bounded least squares (see the module docstring). Its
    result's ``cost`` and RMS residual are logged through ``progress``."""
    changes = {f"timing.{name}": round(v, 6) for name, v in contact_timing(keyframes).items()}
    timed = StyleDocument(document.text, document.source)
    timed.apply(key, changes)
    curves = [f for f in timed.sample_fields(key) if f.kind == "curve" and timed.value(key, f.path)]
    curves = [f for f in curves if not f.path.startswith("upper_body.")
              or f"{f.path.split('.', 1)[1]}_rad" in keyframes.columns]
    layout = [(f.path, i, knot[0]) for f in curves for i, knot in enumerate(timed.value(key, f.path))]
    x0 = np.array([timed.value(key, path)[i][1] for path, i, _ in layout])
    low = np.array([field_spec(path).low for path, _, _ in layout])
    high = np.array([field_spec(path).high for path, _, _ in layout])
    names = [*FIXED_COLUMNS[1:], *(f"{j}_rad" for j in keyframes.joints)]
    names = [n for n in names if not n.endswith("_contact")]
    target = np.concatenate([keyframes.columns[n] for n in names])
    joints = keyframes.joints

    def candidate_changes(x):
        out = {}
        for (path, i, phase), value in zip(layout, x):
            out.setdefault(path, []).append([phase, float(value)])
        return out

    def residual(x):
        trial = StyleDocument(timed.text, timed.source)
        try:
            trial.apply(key, candidate_changes(np.clip(x, low, high)))
        except EditError:  # a candidate the loader refuses (it should not: the values are in bounds)
            return np.full(target.size, 1.0)
        cycle = planner_cycle(trial.style, config, key, keyframes.dt_s, joints)
        n = min(cycle.time_s.size, keyframes.time_s.size)
        model = np.concatenate([cycle.columns[c][:n] for c in names])
        observed = np.concatenate([keyframes.columns[c][:n] for c in names])
        return model - observed

    def jacobian(x):
        # Forward differences with an absolute step: a relative one shrinks with the knot value
        # below the 10 µm the file keeps (DECIMALS), and the derivative reads zero.
        r0, columns = residual(x), []
        for i in range(x.size):
            step = FIT_STEP if x[i] + FIT_STEP <= high[i] else -FIT_STEP
            moved = x.copy()
            moved[i] += step
            columns.append((residual(moved) - r0) / step)
        return np.column_stack(columns)

    if x0.size:
        progress(f"fitting {x0.size} knot values of {len(curves)} curves of {key} …")
        solution = least_squares(residual, np.clip(x0, low, high), jac=jacobian, bounds=(low, high),
                                 xtol=1e-8, ftol=1e-10, max_nfev=50)
        rms = float(np.sqrt(np.mean(solution.fun ** 2)))
        progress(f"  {solution.nfev} evaluations, RMS residual {rms * 1e3:.2f} (mm or mrad)")
        changes.update({path: [[round(p, 4), round(v, 5)] for p, v in knots]
                        for path, knots in candidate_changes(solution.x).items()})
    return changes


def import_keyframes(style: str, key: str, keyframes_path: str | Path, out: str | Path, robot: str = "humanoid",
                     progress=print) -> Path:
    """``biped-stack style import``: sample ``key`` of ``style`` (the template: its other samples
    and knot phases) fitted to the keyframes; the result written to ``out`` (a valid style)."""
    from biped_common.robot_model import load_robot
    document = StyleDocument.open(style)
    keyframes = read_keyframes(keyframes_path)
    changes = fit_sample(document, key, keyframes, PlannerConfig.for_robot(load_robot(robot)), progress)
    try:
        document.apply(key, changes)
    except StyleError as exc:  # pragma: no cover - fit_sample's values are within the bounds
        raise ConfigError(str(keyframes_path), str(exc)) from exc
    return document.save(out)
