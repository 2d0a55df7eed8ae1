"""The inverse problem (OpenSim's static optimization, in MuJoCo): a recorded joint motion → the
muscle activations that produce it, frame by frame, with the residual torques reported.

Per frame: the motion (interpolated by a cubic spline in time, which also gives q̇ and q̈) →
inverse dynamics (``mj_inverse``) → on a floating-base model, the pelvis' six residual
generalized forces are carried by the support bodies (default: the feet ``calcn_l``/``calcn_r``)
as the minimum-norm wrenches that balance them (there is no measured ground reaction; a model
without support bodies keeps them as residuals) → allocation (:class:`Allocator`) on the dofs
that muscles cross. Residual torque = what neither the muscles nor the supports produce.

Joints coupled to others by MuJoCo joint equalities (the knee's translations and rotations in
MyoLeg) follow their driver through the equality's polynomial; other joints missing from the
motion are held at their reference position (``qpos0``) and reported.
"""

from __future__ import annotations

import csv
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import mujoco
import numpy as np
from scipy.interpolate import CubicSpline

from muscle_allocator_node.allocation import Allocator
from muscle_allocator_node.mujoco_muscles import MujocoMuscles

DEFAULT_SUPPORT_BODIES = ("calcn_l", "calcn_r")
# Joint and equality kinds as plain ints: MuJoCo's enums do not compare equal to numpy integers
# inside ``in`` tests.
FREE, BALL, SLIDE, HINGE = (int(k) for k in (mujoco.mjtJoint.mjJNT_FREE, mujoco.mjtJoint.mjJNT_BALL,
                                             mujoco.mjtJoint.mjJNT_SLIDE, mujoco.mjtJoint.mjJNT_HINGE))
JOINT_EQUALITY = int(mujoco.mjtEq.mjEQ_JOINT)
_FREE_DOF_NAMES = ("tx", "ty", "tz", "rx", "ry", "rz")


@dataclass(frozen=True)
class Motion:
    """Joint positions over time: ``positions`` (frames × joints) [rad or m] at ``time_s``."""

    time_s: np.ndarray
    joint_names: tuple[str, ...]
    positions: np.ndarray

    def __post_init__(self):
        if self.positions.shape != (self.time_s.size, len(self.joint_names)):
            raise ValueError(f"positions {self.positions.shape} do not match {self.time_s.size} frames × "
                             f"{len(self.joint_names)} joints")
        if self.time_s.size < 4 or np.any(np.diff(self.time_s) <= 0):
            raise ValueError("a motion needs ≥ 4 frames at strictly increasing times")
        if not np.all(np.isfinite(self.positions)):
            raise ValueError("the motion has non-finite values")


def read_motion(path: str | Path) -> Motion:
    """A motion from CSV (columns ``time`` then joint names, SI units) or OpenSim ``.mot``
    (header up to ``endheader``; with ``inDegrees=yes`` rotational columns are converted to rad —
    the columns whose names end in ``_tx``/``_ty``/``_tz`` are translations in m)."""
    path = Path(path)
    lines = path.read_text().splitlines()
    in_degrees = False
    if path.suffix == ".mot":
        try:
            end = next(i for i, line in enumerate(lines) if line.strip().lower() == "endheader")
        except StopIteration:
            raise ValueError(f"{path}: no 'endheader' line (not an OpenSim .mot file)") from None
        in_degrees = any(line.replace(" ", "").lower() == "indegrees=yes" for line in lines[:end])
        lines = lines[end + 1:]
        rows = [line.split() for line in lines if line.strip()]
    else:
        rows = list(csv.reader(line for line in lines if line.strip()))
    if not rows or not rows[0] or rows[0][0].strip() != "time":
        raise ValueError(f"{path}: the first column must be 'time'")
    names = tuple(name.strip() for name in rows[0][1:])
    try:
        values = np.array([[float(x) for x in row] for row in rows[1:]])
    except ValueError as error:
        raise ValueError(f"{path}: {error}") from None
    if values.ndim != 2 or values.shape[1] != len(names) + 1:
        raise ValueError(f"{path}: every row needs {len(names) + 1} values")
    positions = values[:, 1:]
    if in_degrees:
        rotational = np.array([not n.endswith(("_tx", "_ty", "_tz")) for n in names])
        positions = np.where(rotational, np.deg2rad(positions), positions)
    return Motion(values[:, 0], names, positions)


@dataclass
class InverseResult:
    """Per frame: activations (frames × muscles), residual generalized forces (frames × dofs)
    [N·m or N], allocation statuses; the names of both column sets; what was assumed."""

    time_s: np.ndarray
    muscle_names: tuple[str, ...]
    dof_names: tuple[str, ...]
    activations: np.ndarray
    residuals: np.ndarray
    statuses: list
    notes: list = field(default_factory=list)


def dof_names(model: mujoco.MjModel) -> tuple[str, ...]:
    """One name per dof: the joint's for hinge/slide joints, ``<joint>_tx … _rz`` for free joints,
    ``<joint>_rx/ry/rz`` for ball joints."""
    names = []
    for j in range(model.njnt):
        name, kind = model.joint(j).name or f"joint{j}", int(model.jnt_type[j])
        if kind == FREE:
            names += [f"{name}_{s}" for s in _FREE_DOF_NAMES]
        elif kind == BALL:
            names += [f"{name}_{s}" for s in _FREE_DOF_NAMES[3:]]
        else:
            names.append(name)
    return tuple(names)


def solve_inverse(model: mujoco.MjModel, motion: Motion, support_bodies=DEFAULT_SUPPORT_BODIES,
                  criterion: str = "activation_squared", progress: Callable[[str], None] = print) -> InverseResult:
    """Activations for every frame of ``motion`` (see the module docstring)."""
    qpos, notes = _joint_trajectory(model, motion)
    for note in notes:
        progress(note)
    spline = CubicSpline(motion.time_s, qpos, axis=0)
    data = mujoco.MjData(model)
    muscles = MujocoMuscles(model)
    supports = [b for b in support_bodies if mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_BODY, b) >= 0]
    free = [j for j in range(model.njnt) if int(model.jnt_type[j]) == FREE]
    root_dofs = np.concatenate([model.jnt_dofadr[j] + np.arange(6) for j in free]).astype(int) if free else np.zeros(0, int)
    if free and supports:
        notes.append(f"floating base: its residual is carried by {', '.join(supports)} (minimum-norm wrenches)")
    elif free:
        notes.append("floating base without support bodies: the base's generalized forces stay residual")
    followers = _joint_couplings(model)
    allocator: Allocator | None = None
    activations, residuals, statuses = [], [], []
    started = time.perf_counter()
    for k, t in enumerate(motion.time_s):
        data.qpos[:] = spline(t)
        data.qvel[:] = _qpos_rate_to_qvel(model, spline(t, 1))
        mujoco.mj_forward(model, data)
        data.qacc[:] = _qpos_rate_to_qvel(model, spline(t, 2))
        mujoco.mj_inverse(model, data)
        generalized = data.qfrc_inverse.copy()
        if root_dofs.size and supports:
            generalized -= _support_forces(model, data, supports, generalized[root_dofs], root_dofs)
        state = muscles.state(data)
        # Coupled dofs: their forces and moment arms projected on their driver (virtual work
        # through the equality's polynomial); the equality itself carries the rest.
        projection = _coupling_projection(model, data.qpos, followers)
        torque, arms = projection @ generalized, projection @ state.moment_arms
        crossed = np.flatnonzero(np.any(np.abs(arms) > 1e-9, axis=1))  # dofs some muscle acts on [m]
        if allocator is None:
            allocator = Allocator(crossed.size, model.nu, criterion, max_force=muscles.peak_forces_n)
            rows = crossed
            bare = [dof_names(model)[i] for i in range(model.nv) if i not in set(crossed) and i not in followers]
            if bare:
                notes.append(f"no muscle crosses these dofs (their forces are residual): {', '.join(bare)}")
                progress(notes[-1])
        residual = torque.copy()
        if not np.array_equal(crossed, rows):  # a moment arm appeared or vanished: rebuild
            allocator, rows = Allocator(crossed.size, model.nu, criterion, max_force=muscles.peak_forces_n), crossed
        allocation = allocator.solve(arms[rows], state.active_force, state.passive_force, torque[rows])
        residual[rows] = allocation.residual_torque
        activations.append(allocation.activations)
        residuals.append(residual)
        statuses.append(allocation.status)
        if (k + 1) % max(1, motion.time_s.size // 5) == 0:
            progress(f"  frame {k + 1}/{motion.time_s.size}  ({time.perf_counter() - started:.1f} s)")
    return InverseResult(motion.time_s, muscles.names, dof_names(model), np.array(activations), np.array(residuals),
                         statuses, notes)


def _joint_trajectory(model: mujoco.MjModel, motion: Motion) -> tuple[np.ndarray, list[str]]:
    """qpos (frames × nq) from the motion: its joints, equality-coupled joints from their drivers,
    everything else at qpos0. Unknown motion columns → ValueError naming them."""
    known = {model.joint(j).name: j for j in range(model.njnt)}
    unknown = [n for n in motion.joint_names if n not in known]
    if unknown:
        raise ValueError(f"motion columns that are not joints of the model: {', '.join(unknown)}")
    for name in motion.joint_names:
        if int(model.jnt_type[known[name]]) in (FREE, BALL):
            raise ValueError(f"column {name!r}: free and ball joints cannot be given as one column")
    qpos = np.tile(model.qpos0, (motion.time_s.size, 1))
    for column, name in enumerate(motion.joint_names):
        qpos[:, model.jnt_qposadr[known[name]]] = motion.positions[:, column]
    given = set(motion.joint_names)
    coupled = set()
    for e in range(model.neq):
        if int(model.eq_type[e]) != JOINT_EQUALITY or model.eq_obj2id[e] < 0:
            continue
        follower, driver = model.eq_obj1id[e], model.eq_obj2id[e]
        a = model.eq_data[e][:5]
        x = qpos[:, model.jnt_qposadr[driver]] - model.qpos0[model.jnt_qposadr[driver]]
        qpos[:, model.jnt_qposadr[follower]] = model.qpos0[model.jnt_qposadr[follower]] + np.polyval(a[::-1], x)
        coupled.add(model.joint(follower).name)
    held = [model.joint(j).name for j in range(model.njnt)
            if model.joint(j).name not in given | coupled]
    notes = [f"held at their reference position (not in the motion): {', '.join(held)}"] if held else []
    if coupled:
        notes.append(f"following their driver through the model's joint equalities: {', '.join(sorted(coupled))}")
    return qpos, notes


def _joint_couplings(model: mujoco.MjModel) -> dict[int, tuple[int, int, np.ndarray]]:
    """Per follower dof: (driver dof, driver qpos index, polynomial coefficients a0…a4) of the
    model's joint equalities q_f − q_f0 = Σ a_i (q_d − q_d0)^i."""
    out = {}
    for e in range(model.neq):
        if int(model.eq_type[e]) == JOINT_EQUALITY and model.eq_obj2id[e] >= 0:
            follower, driver = model.eq_obj1id[e], model.eq_obj2id[e]
            out[int(model.jnt_dofadr[follower])] = (int(model.jnt_dofadr[driver]), int(model.jnt_qposadr[driver]),
                                                    model.eq_data[e][:5].copy())
    return out


def _coupling_projection(model: mujoco.MjModel, qpos: np.ndarray, followers: dict) -> np.ndarray:
    """(nv × nv) map of generalized forces onto the independent dofs: a follower's force is added
    to its driver's times ∂q_f/∂q_d, and its own row is zero."""
    projection = np.eye(model.nv)
    for follower, (driver, driver_qpos, a) in followers.items():
        x = qpos[driver_qpos] - model.qpos0[driver_qpos]
        projection[driver, follower] = a[1] + 2 * a[2] * x + 3 * a[3] * x**2 + 4 * a[4] * x**3
        projection[follower, follower] = 0.0
    return projection


def _qpos_rate_to_qvel(model: mujoco.MjModel, rate: np.ndarray) -> np.ndarray:
    """A time derivative of qpos as a qvel-sized vector: hinge/slide entries as they are; free
    joints' position rates as their linear part and zero angular rate (a motion file gives no
    base orientation; the base's orientation is held)."""
    out = np.zeros(model.nv)
    for j in range(model.njnt):
        q, v = model.jnt_qposadr[j], model.jnt_dofadr[j]
        kind = int(model.jnt_type[j])
        if kind == FREE:
            out[v:v + 3] = rate[q:q + 3]
        elif kind in (HINGE, SLIDE):
            out[v] = rate[q]
    return out


def _support_forces(model, data, supports, root_residual, root_dofs) -> np.ndarray:
    """Generalized forces Jᵀ w of the minimum-norm wrenches w on the support bodies (world axes,
    at each body's origin) that produce ``root_residual`` on the base dofs."""
    jacobians = []
    for body in supports:
        jac_p, jac_r = np.zeros((3, model.nv)), np.zeros((3, model.nv))
        mujoco.mj_jacBody(model, data, jac_p, jac_r, mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_BODY, body))
        jacobians.append(np.vstack([jac_p, jac_r]))
    jac = np.vstack(jacobians)  # (6 · supports, nv)
    wrench = np.linalg.lstsq(jac[:, root_dofs].T, root_residual, rcond=None)[0]
    return jac.T @ wrench


def write_outputs(result: InverseResult, out_dir: str | Path) -> list[Path]:
    """``activations.csv`` and ``.sto`` (time, one column per muscle), ``residuals.csv`` (time, one
    per dof) and plots of both; returns the files written."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    files = [_write_csv(out / "activations.csv", result.time_s, result.muscle_names, result.activations),
             _write_csv(out / "residuals.csv", result.time_s, result.dof_names, result.residuals),
             _write_sto(out / "activations.sto", result.time_s, result.muscle_names, result.activations)]
    files += _plots(result, out)
    return files


def _write_csv(path: Path, time_s, names, values) -> Path:
    with path.open("w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["time", *names])
        for t, row in zip(time_s, values):
            writer.writerow([f"{t:.6f}", *(f"{x:.9g}" for x in row)])
    return path


def _write_sto(path: Path, time_s, names, values) -> Path:
    """OpenSim storage (version 1) with a tab-separated table, as its static optimization writes."""
    header = [path.stem, "version=1", f"nRows={len(time_s)}", f"nColumns={len(names) + 1}", "inDegrees=no",
              "endheader", "\t".join(["time", *names])]
    rows = ["\t".join([f"{t:.6f}", *(f"{x:.9g}" for x in row)]) for t, row in zip(time_s, values)]
    path.write_text("\n".join(header + rows) + "\n")
    return path


def _plots(result: InverseResult, out: Path) -> list[Path]:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    files = []
    fig, ax = plt.subplots(figsize=(9, 4.5))
    peak = result.activations.max(axis=0)
    for i in np.argsort(peak)[::-1][:12]:  # the busiest muscles, readable
        ax.plot(result.time_s, result.activations[:, i], label=result.muscle_names[i])
    ax.set(xlabel="time [s]", ylabel="activation", ylim=(0, 1.02), title="Activations (the 12 most active muscles)")
    ax.legend(fontsize=7, ncol=2)
    fig.tight_layout()
    fig.savefig(out / "activations.png", dpi=120)
    files.append(out / "activations.png")
    fig, ax = plt.subplots(figsize=(9, 4.5))
    worst = np.abs(result.residuals).max(axis=0)
    for i in np.argsort(worst)[::-1][:8]:
        ax.plot(result.time_s, result.residuals[:, i], label=result.dof_names[i])
    ax.set(xlabel="time [s]", ylabel="residual [N·m or N]", title="Residual generalized forces (largest 8)")
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(out / "residuals.png", dpi=120)
    plt.close("all")
    files.append(out / "residuals.png")
    return files


def squat_motion(model: mujoco.MjModel, duration_s: float = 2.0, depth: float = 1.0, frames: int = 101) -> Motion:
    """A smooth bilateral squat for MyoLeg: hips flex to 1.0·depth rad, knees to 1.6·depth rad,
    ankles dorsiflex 0.4·depth rad, down and up again on a raised cosine; the pelvis (root_tz is not
    a column: a free joint) is held, so this is the legs' motion relative to the pelvis."""
    t = np.linspace(0.0, duration_s, frames)
    s = 0.5 * (1 - np.cos(2 * np.pi * t / duration_s))  # 0 → 1 → 0, zero rate at both ends
    columns = {}
    for side in ("r", "l"):
        columns[f"hip_flexion_{side}"] = 1.0 * depth * s
        columns[f"knee_angle_{side}"] = 1.6 * depth * s
        columns[f"ankle_angle_{side}"] = 0.4 * depth * s
    for name in columns:
        if mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_JOINT, name) < 0:
            raise ValueError(f"the model has no joint {name!r} (a squat needs MyoLeg's joint names)")
    return Motion(t, tuple(columns), np.column_stack(list(columns.values())))
