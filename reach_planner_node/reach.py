"""Reach plans for the 002 arm: a straight, minimum-jerk hand path with a slerped hand orientation
and an interpolated arm angle, turned into joint angles by the analytic inverse (:meth:`Arm.inverse`),
with damped-least-squares IK (source 003) as the fallback.

Hand path (002): x(t) = x0 + (xf − x0) s(t/T), s the minimum-jerk scaling, so the path is the
straight segment and the speed a single bell; orientation q(t) = slerp(q0, qf, s) (short way);
arm angle φ(t) = φ0 + (φf − φ0) s. When φ(t) puts a joint outside its limits, the nearest arm
angle (in 2° steps, up to ±90°) that does not is used — the hand stays on its path, the elbow
yields; only when no arm angle works does DLS take over. Unreachable targets are moved to the
workspace boundary (and the plan says so), never a wild arm.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from biped_common.profiles import minimum_jerk
from biped_common.rotations import matrix_to_quat, quat_slerp, quat_to_matrix, so3_log, wrap_angle
from reach_planner_node.arm import Arm, IkFailure

MEAN_HAND_SPEED_M_S = 0.35  # human point-to-point reaches: ≈ 0.3–0.5 m/s mean (Flash & Hogan 1985)
MIN_DURATION_S = 0.4
WORKSPACE_MARGIN = 0.995    # of full arm extension: keeps the elbow off the straight-arm singularity


@dataclass(frozen=True)
class ReachPlan:
    """Samples at ``times_s`` [s]: hand positions (N, 3) [m] and orientations (N, 4) (w, x, y, z),
    arm angles (N,) [rad] and joint angles (N, 7) [rad]; ``notes`` say what was changed
    (target clamped, arm angle moved off the plan, DLS used)."""

    times_s: np.ndarray
    hand_positions: np.ndarray
    hand_quats: np.ndarray
    arm_angles: np.ndarray
    joints: np.ndarray
    notes: tuple[str, ...] = ()


def reach_duration_s(distance_m: float) -> float:
    """Duration [s] of a reach over ``distance_m``: at the mean hand speed, at least 0.4 s."""
    return max(MIN_DURATION_S, distance_m / MEAN_HAND_SPEED_M_S)


def max_path_deviation_m(points, start, end) -> float:
    """Largest distance [m] of ``points`` (N, 3) from the straight line through ``start`` and
    ``end`` (the reach's straight-path measure)."""
    start = np.asarray(start, dtype=float)
    direction = (np.asarray(end, dtype=float) - start) / np.linalg.norm(np.asarray(end, dtype=float) - start)
    offsets = np.asarray(points, dtype=float) - start
    return float(np.max(np.linalg.norm(offsets - np.outer(offsets @ direction, direction), axis=1)))


def clamp_to_workspace(arm: Arm, position, rotation) -> tuple[np.ndarray, bool]:
    """The hand position moved along the shoulder → wrist ray so the wrist is within reach
    (``WORKSPACE_MARGIN`` of full extension); True when it was moved."""
    position = np.asarray(position, dtype=float)
    wrist = position - arm.hand_m * np.asarray(rotation)[:, 0]
    reach = WORKSPACE_MARGIN * (arm.upper_arm_m + arm.forearm_m)
    shortest = abs(arm.upper_arm_m - arm.forearm_m) * 1.01
    distance = float(np.linalg.norm(wrist))
    if shortest <= distance <= reach:
        return position, False
    scale = (reach if distance > reach else shortest) / max(distance, 1e-9)
    return position + (scale - 1.0) * wrist, True


def plan_reach(arm: Arm, start_joints, target_position, target_rotation, target_arm_angle: float,
               duration_s: float | None = None, dt_s: float = 0.01) -> ReachPlan:
    """The plan from posture ``start_joints`` (7,) [rad] to the hand pose (position [m],
    rotation matrix) with arm angle ``target_arm_angle`` [rad]; ValueError on non-finite input."""
    start_joints = np.asarray(start_joints, dtype=float)
    target_position = np.asarray(target_position, dtype=float)
    target_rotation = np.asarray(target_rotation, dtype=float)
    for name, value in (("start_joints", start_joints), ("target_position", target_position),
                        ("target_rotation", target_rotation), ("target_arm_angle", target_arm_angle)):
        if not np.all(np.isfinite(value)):
            raise ValueError(f"{name} is not finite")
    notes = []
    target_position, clamped = clamp_to_workspace(arm, target_position, target_rotation)
    if clamped:
        notes.append(f"target out of reach: moved to the workspace boundary at {np.round(target_position, 3).tolist()} m")
    start = arm.forward(start_joints)
    start_angle = arm.arm_angle(start_joints)
    duration = duration_s if duration_s is not None else reach_duration_s(float(np.linalg.norm(target_position - start.hand)))
    times = np.linspace(0.0, duration, max(2, int(round(duration / dt_s)) + 1))
    s = minimum_jerk(times / duration)[0]
    positions = start.hand + s[:, None] * (target_position - start.hand)
    quats = quat_slerp(matrix_to_quat(start.hand_rotation), matrix_to_quat(target_rotation), s)
    angles = start_angle + s * wrap_angle(target_arm_angle - start_angle)
    joints = np.empty((times.size, 7))
    joints[0] = start_joints
    moved, dls = 0, 0
    for k in range(1, times.size):
        rotation = quat_to_matrix(quats[k])
        solution = _analytic_near(arm, positions[k], rotation, angles[k])
        if solution is None:
            joints[k] = damped_least_squares(arm, joints[k - 1], positions[k], rotation)
            dls += 1
        else:
            joints[k], angles[k], shifted = solution
            moved += shifted
    if moved:
        notes.append(f"arm angle moved off the plan at {moved} of {times.size} samples to respect joint limits")
    if dls:
        notes.append(f"damped least squares used at {dls} of {times.size} samples")
    return ReachPlan(times, positions, quats, angles, joints, tuple(notes))


def _analytic_near(arm: Arm, position, rotation, angle: float):
    """(joints, arm angle used, whether it differs from ``angle``) for the nearest arm angle (2°
    steps, ±90°) whose analytic inverse respects the limits; None when none does."""
    for offset_deg in [0] + [sign * k for k in range(2, 92, 2) for sign in (1, -1)]:
        try:
            phi = angle + math.radians(offset_deg)
            return arm.inverse(position, rotation, phi), phi, offset_deg != 0
        except IkFailure:
            continue
    return None


def point_jacobian(arm: Arm, joints, point, last_joint: int = 7) -> np.ndarray:
    """3×7 Jacobian of a point [m] (base frame) carried by joints 1 … ``last_joint``:
    column i = z_(i−1) × (p − o_(i−1)); zero for the joints after it."""
    transforms = arm.transforms(joints)
    jac = np.zeros((3, 7))
    origin, axis = np.zeros(3), np.array([0.0, 0.0, 1.0])
    for i in range(last_joint):
        jac[:, i] = np.cross(axis, np.asarray(point) - origin)
        origin, axis = transforms[i][:3, 3], transforms[i][:3, 2]
    return jac


def geometric_jacobian(arm: Arm, joints) -> np.ndarray:
    """6×7 Jacobian of the hand frame (linear; angular) in the base frame."""
    transforms = arm.transforms(joints)
    axes = [np.array([0.0, 0.0, 1.0])] + [t[:3, 2] for t in transforms[:-1]]
    return np.vstack([point_jacobian(arm, joints, transforms[-1][:3, 3]), np.column_stack(axes)])


def solve_damped_least_squares(kinematics, start, position, rotation, low, high, damping: float,
                               iterations: int, tolerance: float, orientation_weight: float = 1.0) -> np.ndarray:
    """Damped least squares (003) on any chain: ``kinematics(q)`` → (hand position [m], hand
    rotation, 6×n Jacobian (linear; angular)). Δq = Jᵀ (J Jᵀ + λ² I)⁻¹ e with
    e = (position error, w · log(R R_handᵀ)) and the Jacobian's angular rows scaled by w, clamped
    to [low, high] after each step; the last iterate when it does not converge."""
    q = np.array(start, dtype=float)
    for _ in range(iterations):
        hand_position, hand_rotation, jac = kinematics(q)
        error = np.concatenate([np.asarray(position) - hand_position,
                                orientation_weight * so3_log(np.asarray(rotation) @ hand_rotation.T)])
        if np.linalg.norm(error) < tolerance:
            break
        jac = np.array(jac, dtype=float)
        jac[3:] *= orientation_weight
        q = np.clip(q + jac.T @ np.linalg.solve(jac @ jac.T + damping**2 * np.eye(6), error), low, high)
    return q


def damped_least_squares(arm: Arm, start_joints, position, rotation, damping: float = 0.05,
                         iterations: int = 100, tolerance: float = 1e-10) -> np.ndarray:
    """The 002 arm's joint angles for the hand pose by damped least squares from ``start_joints``."""
    def kinematics(q):
        pose = arm.forward(q)
        return pose.hand, pose.hand_rotation, geometric_jacobian(arm, q)
    low, high = arm.limits_rad.T
    return solve_damped_least_squares(kinematics, start_joints, position, rotation, low, high, damping,
                                      iterations, tolerance)
