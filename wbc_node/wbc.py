"""Whole-body controller: optimization-based inverse dynamics on Pinocchio (one QP per tick).

After Koolen et al. 2016 ("Design of a momentum-based control framework and application to the
humanoid robot Atlas") and the TSID formulation: the decision variables are the generalized
accelerations v̇ (nv) and the ground-reaction forces f of four contact points per stance foot
(the sole's heel and toe corners, 3 components each, world axes). The QP

    min  Σ_i w_i |J_i v̇ + J̇_i v − a*_i|² + ε_v |v̇|² + ε_f |f|²
    s.t. M_b v̇ + h_b = J_c,bᵀ f                       (floating-base rows of the dynamics)
         J_foot v̇ + J̇_foot v = −K_d v_foot             (each stance foot does not move, or rolls)
         f_z ≥ f_min,  |f_x|, |f_y| ≤ μ/√2 · f_z       (linearized Coulomb cone, unilateral)
         |M_j v̇ + h_j − J_c,jᵀ f| ≤ τ_max              (joint torque limits)

holds CoP limits implicitly (the CoP of non-negative corner forces lies inside the sole). A stance
foot whose planned pitch exceeds ``stance_roll_pitch_rad`` — the style's toe roll-up before
lift-off (heel up) or heel roll-down after touch-down (toes up) — rolls instead
(:func:`rolling_stance_rows`): its toe (heel) edge stays put and carries the forces, roll and yaw
stay at rest, and the pitch about that edge follows the plan. Tasks
a*_i are PD laws on: CoM horizontal (from the MPC: c̈_ref + Kp e + Kd ė), pelvis height and
orientation, swing-foot pose, joint posture (upper body from the gait reference) — one class
each in :mod:`wbc_node.tasks`, built from :class:`WbcGains` by :func:`tasks_from_gains`. The joint
torques τ = M_j v̇ + h_j − J_c,jᵀ f are the output, with position/velocity setpoints integrated
from v̇ for drivers that close their own loop.

Frames: Pinocchio's free-flyer conventions (base linear and angular velocity in base axes);
Jacobians in LOCAL_WORLD_ALIGNED (world axes at the frame origin). Units SI.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

import numpy as np
import pinocchio as pin

from biped_common.config import bounded, dataclass_from_mapping, load_yaml_mapping
from biped_common.resources import params_file
from biped_common.robot_model import FootGeometry, RobotModel
from biped_common.rotations import quat_to_matrix, quats_sole_pitch, skew
from biped_common.small_math import all_finite
from wbc_node.qp import QpSolution, solve_qp
from wbc_node.tasks import (SIDES, ComTask, Kinematics, PelvisTask, PostureTask, SwingFootTask, Task,
                            angular_feedback)

RECOVERY_KEY = "recovery"  # the block of a WBC gains file that schedules it (optional; wbc_node.recovery)
SOFT_STANCE_WEIGHT = 1e4  # the stance feet's no-motion as a cost, in the fallback attempt only
TORQUE_ROW_TOLERANCE = 1e-4  # relative, as solve_qp's constraint check (tolerance 1e-5 × 10)


@dataclass(frozen=True)
class WbcGains:
    """Task weights and PD gains (stiffness [1/s²], damping [1/s])."""

    com_weight: float = bounded(0.0, 1e6, "", "CoM task weight")
    com_kp: float = bounded(0.0, 1e4, "1/s²")
    com_kd: float = bounded(0.0, 1e3, "1/s")
    pelvis_weight: float = bounded(0.0, 1e6, "")
    pelvis_kp: float = bounded(0.0, 1e4, "1/s²")
    pelvis_kd: float = bounded(0.0, 1e3, "1/s")
    pelvis_rotation_kp: float = bounded(0.0, 1e4, "1/s²", "pelvis orientation stiffness (pelvis_kp: its height's)")
    pelvis_rotation_kd: float = bounded(0.0, 1e3, "1/s")
    swing_weight: float = bounded(0.0, 1e6, "")
    swing_kp: float = bounded(0.0, 1e4, "1/s²")
    swing_kd: float = bounded(0.0, 1e3, "1/s")
    posture_weight: float = bounded(0.0, 1e6, "")
    upper_weight: float = bounded(0.0, 1e6, "")
    posture_kp: float = bounded(0.0, 1e4, "1/s²")
    posture_kd: float = bounded(0.0, 1e3, "1/s")
    stance_kd: float = bounded(0.0, 1e3, "1/s", "stance-foot velocity damping")
    stance_roll_pitch_rad: float = bounded(0.0, 1.0, "rad", "planned stance-sole pitch beyond which the foot "
                                           "rolls on its toe or heel edge, the pitch tracked (0: held flat)")
    swing_horizontal_feedforward_limit_m_s2: float = bounded(0.0, 1e3, "m/s²",
                                                             "largest horizontal swing-sole acceleration fed forward")
    swing_vertical_feedforward_limit_m_s2: float = bounded(0.0, 1e3, "m/s²",
                                                           "largest vertical swing-sole acceleration fed forward")
    pelvis_feedforward_limit_m_s2: float = bounded(0.0, 1e3, "m/s²", "largest pelvis height acceleration fed forward")
    leg_posture_from_tasks: float = bounded(0.0, 1.0, "", "legs' posture reference: 0 the standing posture, "
                                            "1 the IK of the sole and pelvis references (wbc_node.leg_posture)")
    friction: float = bounded(0.05, 2.0, "", "Coulomb friction coefficient μ")
    min_normal_force_n: float = bounded(0.0, 100.0, "N")
    acceleration_regularization: float = bounded(1e-9, 1.0, "")
    force_regularization: float = bounded(1e-9, 1.0, "")

    @classmethod
    def load(cls, path: str | Path | None = None) -> "WbcGains":
        """From a YAML file (default: the shipped ``config/wbc.yaml``); ConfigError naming the
        field (bounds checked)."""
        gains, _ = read_gains_file(path)  # its recovery block, if any, is wbc_node.recovery.ScheduledGains'
        return dataclass_from_mapping(cls, gains, "")

    @classmethod
    def default(cls) -> "WbcGains":
        """The shipped gains (``config/wbc.yaml``)."""
        return cls.load()


def read_gains_file(path: str | Path | None = None) -> tuple[dict[str, Any], Mapping[str, Any] | None]:
    """A WBC gains file (default ``config/wbc.yaml``), read once: its gains' fields and its
    ``recovery:`` block (None when it has none). ConfigError naming the file if unreadable."""
    mapping = dict(load_yaml_mapping(Path(path) if path else params_file("wbc.yaml")))
    return mapping, mapping.pop(RECOVERY_KEY, None)


@dataclass(frozen=True)
class FootTarget:
    """A foot's reference at this instant: in stance or not; sole position [m], velocity [m/s],
    acceleration [m/s²], orientation (w, x, y, z), angular velocity [rad/s] and acceleration
    [rad/s²] in the world (used when swinging; None: zero)."""

    in_stance: bool
    position_m: np.ndarray
    velocity_m_s: np.ndarray
    acceleration_m_s2: np.ndarray
    quat_wxyz: np.ndarray
    angular_velocity_rad_s: np.ndarray | None = None
    angular_acceleration_rad_s2: np.ndarray | None = None


@dataclass(frozen=True)
class WbcReference:
    """Everything the WBC tracks at one instant (world frame, SI)."""

    com_position_m: np.ndarray      # (2,) horizontal, from the MPC
    com_velocity_m_s: np.ndarray    # (2,)
    com_acceleration_m_s2: np.ndarray  # (2,)
    pelvis_height_m: float
    pelvis_height_rate_m_s: float
    pelvis_quat_wxyz: np.ndarray
    feet: dict[str, FootTarget]
    joint_posture_rad: np.ndarray   # all joints, robot order (legs: standing posture or wbc_node.leg_posture; upper: reference)
    joint_posture_rate_rad_s: np.ndarray | None = None    # its rate (None: zero)
    joint_posture_accel_rad_s2: np.ndarray | None = None  # its acceleration, fed forward (None: zero)
    pelvis_height_accel_m_s2: float = 0.0
    pelvis_angular_velocity_rad_s: np.ndarray | None = None      # world axes (None: zero)
    pelvis_angular_acceleration_rad_s2: np.ndarray | None = None  # world axes (None: zero)


@dataclass(frozen=True)
class WbcOutput:
    """One tick's result: joint torques [N·m], accelerations v̇, contact forces per stance foot
    (4, 3) [N, world axes], the QP status and its solve time [s]."""

    ok: bool
    status: str
    torque_nm: np.ndarray
    acceleration: np.ndarray
    contact_forces_n: dict[str, np.ndarray]
    solve_time_s: float


def rolling_stance_rows(sole, edge_point_sole: np.ndarray, target: FootTarget, stance_kd: float,
                        pitch_kp: float, pitch_kd: float) -> tuple[np.ndarray, np.ndarray]:
    """The six equality rows (6, nv) and right-hand side (6,) of a stance foot rolling on an edge:
    the edge's midpoint ``edge_point_sole`` (sole frame [m]) at rest (classical acceleration
    a_p = a_o + α × r + ω × (ω × r) = −K_d v_p), the sole's angular acceleration about its own x and
    z axes at rest (−K_d ω), about its y axis the planned pitch's PD law with its rate and
    acceleration fed forward. ``sole``: a :class:`wbc_node.tasks.FrameState` (world axes)."""
    rotation = sole.placement.rotation
    r = rotation @ edge_point_sole
    angular_jac = sole.jacobian[3:]
    omega, drift_linear, drift_angular = sole.velocity[3:], sole.drift[:3], sole.drift[3:]
    rows, rhs = np.empty((6, sole.jacobian.shape[1])), np.empty(6)
    rows[:3] = point_jacobian(rotation, sole.jacobian, edge_point_sole)
    point_velocity = sole.velocity[:3] + np.cross(omega, r)
    rhs[:3] = -(drift_linear + np.cross(drift_angular, r) + np.cross(omega, np.cross(omega, r))) - stance_kd * point_velocity
    axes = rotation.T  # rows: the sole's x, y, z axes in the world
    rows[3:] = axes @ angular_jac
    rhs[3:] = -axes @ drift_angular - stance_kd * (axes @ omega)
    error = pin.log3(quat_to_matrix(target.quat_wxyz) @ rotation.T)
    wanted = angular_feedback(error, omega, target.angular_velocity_rad_s, target.angular_acceleration_rad_s2,
                              pitch_kp, pitch_kd)
    rhs[4] = float(axes[1] @ (wanted - drift_angular))
    return rows, rhs


def point_jacobian(rotation: np.ndarray, frame_jacobian: np.ndarray, point_in_frame: np.ndarray) -> np.ndarray:
    """3×nv Jacobian (world axes) of a point fixed in a frame, from the frame's 6×nv
    LOCAL_WORLD_ALIGNED Jacobian (linear; angular): J_p = J_v − [R p]× J_ω."""
    return frame_jacobian[:3] - skew(rotation @ point_in_frame) @ frame_jacobian[3:]


def points_jacobian(rotation: np.ndarray, frame_jacobian: np.ndarray, points_in_frame: np.ndarray,
                    out: np.ndarray) -> np.ndarray:
    """:func:`point_jacobian` of k points (k, 3) at once, written into ``out`` (3k, nv): rows
    3i..3i+2 are point i's. One matrix product for all: the stacked [l_i]× (3k, 3), l_i = R p_i."""
    levers = points_in_frame @ rotation.T                      # (k, 3), world axes
    skews = (levers @ _SKEW_OF).reshape(-1, 3)                 # (3k, 3): [l_i]× stacked
    out.reshape(len(levers), 3, -1)[:] = frame_jacobian[:3]
    out -= skews @ frame_jacobian[3:]
    return out


# [l]× = Σ_j l_j E_j: row j of this (3, 9) table is E_j flattened, so (l @ _SKEW_OF) is [l]× flattened.
_SKEW_OF = np.array([[0, 0, 0, 0, 0, -1, 0, 1, 0],
                     [0, 0, 1, 0, 0, 0, -1, 0, 0],
                     [0, -1, 0, 1, 0, 0, 0, 0, 0]], dtype=float)


@dataclass
class _QpLayout:
    """Preallocated QP matrices for a number of stance feet (the QP's size depends only on it):
    decision x = (v̇ (nv), f (nf)); the friction rows and bounds, which never change, are
    written once; the rest is overwritten each tick."""

    nv: int
    nf: int
    cost_h: np.ndarray      # (n, n)
    cost_g: np.ndarray      # (n,)
    contact_jac: np.ndarray  # (nf, nv)
    a_eq: np.ndarray        # (6 + 6 k, n): floating-base dynamics, then each stance foot's no-motion
    b_eq: np.ndarray
    g_ineq: np.ndarray      # (5 p + 2 nj, n): friction pyramid per point, then ±torque rows
    h_ineq: np.ndarray

    @classmethod
    def for_feet(cls, n_feet: int, nv: int, n_joints: int, friction: float, min_normal_force_n: float) -> "_QpLayout":
        nf = 12 * n_feet
        n, n_points = nv + nf, 4 * n_feet
        mu = friction / np.sqrt(2.0)
        cone = np.array([[1, 0, -mu], [-1, 0, -mu], [0, 1, -mu], [0, -1, -mu], [0, 0, -1.0]])
        g_ineq = np.zeros((5 * n_points + 2 * n_joints, n))
        for p in range(n_points):
            g_ineq[5 * p:5 * p + 5, nv + 3 * p:nv + 3 * p + 3] = cone
        h_ineq = np.zeros(5 * n_points + 2 * n_joints)
        h_ineq[:5 * n_points] = np.tile([0, 0, 0, 0, -min_normal_force_n], n_points)
        return cls(nv, nf, np.zeros((n, n)), np.zeros(n), np.zeros((nf, nv)), np.zeros((6 + 6 * n_feet, n)),
                   np.zeros(6 + 6 * n_feet), g_ineq, h_ineq)

    @property
    def n_friction_rows(self) -> int:
        return 5 * self.nf // 3

    @property
    def torque_map(self) -> np.ndarray:
        """The rows τ = torque_map x + h_j of the inequalities (a view: the +τ ≤ τ_max rows)."""
        return self.g_ineq[self.n_friction_rows:self.n_friction_rows + self.nv - 6]


class WholeBodyController:
    """The QP above for one robot; :meth:`solve` once per control tick. Its cost is the sum of
    :attr:`tasks` (:mod:`wbc_node.tasks`, weights and gains from :class:`WbcGains`); its
    constraints are the floating-base dynamics, the stance feet, the friction cones and the
    torque limits."""

    def __init__(self, robot: RobotModel, gains: WbcGains | None = None, solver: str = "daqp",
                 backup_solver: str = "quadprog"):
        self.robot = robot
        self.gains = gains or WbcGains.default()
        self.solver = solver
        self.backup_solver = backup_solver
        self.kinematics = Kinematics(robot)
        self.model, self.data, self.nv = self.kinematics.model, self.kinematics.data, self.kinematics.nv
        self.sole_frames = self.kinematics.sole_frames
        geometry = FootGeometry.from_robot(robot)
        w = geometry.half_width_m
        self.corners_sole = np.array([[geometry.heel_x_m, -w, 0.0], [geometry.heel_x_m, w, 0.0],
                                      [geometry.toe_x_m, -w, 0.0], [geometry.toe_x_m, w, 0.0]])
        # The points the forces act at per stance edge: rolling, the edge's two corners carry the
        # four points' forces (each twice: the QP's layout stays one size).
        heel, toe = self.corners_sole[:2], self.corners_sole[2:]
        self.corners = {"flat": self.corners_sole, "toe": np.vstack([toe, toe]), "heel": np.vstack([heel, heel])}
        self.torque_limit_nm = robot.torque_limit_nm
        self.tasks = tasks_from_gains(self.gains, robot.joint_names)
        self._layouts = {k: _QpLayout.for_feet(k, self.nv, robot.n_joints, self.gains.friction,
                                               self.gains.min_normal_force_n) for k in (1, 2)}

    def com(self) -> tuple[np.ndarray, np.ndarray]:
        """CoM position [m] and velocity [m/s] in the world at the last solve's state."""
        return self.kinematics.com_position_m.copy(), self.kinematics.com_velocity_m_s.copy()

    def solve(self, q: np.ndarray, v: np.ndarray, ref: WbcReference) -> WbcOutput:
        """Torques for Pinocchio state (q, v) tracking ``ref``. A reference or state that is not
        finite, no stance foot, or a QP the solver cannot solve gives ``ok=False`` (no torques
        to apply: the caller falls back)."""
        start = time.perf_counter()
        stance = [side for side in SIDES if ref.feet[side].in_stance]
        if not all_finite(q, v):
            return self._failed("non-finite state or reference", start)
        if not stance:
            return self._failed("no stance foot in the reference", start)
        self.kinematics.update(q, v)
        layout = self._layouts[len(stance)]
        self._write_cost(layout, ref)
        # Every reference value enters the gradient (targets, rates, posture, orientations through
        # log3), so one test here refuses a non-finite reference before it can reach the QP.
        if not math.isfinite(layout.cost_g.sum()):
            return self._failed("non-finite state or reference", start)
        self._write_constraints(layout, stance, ref)
        solution, status = self._solve_layout(layout)
        if solution is None:
            return self._failed(status, start)
        x = solution.x
        torque = layout.torque_map @ x + self.kinematics.bias[6:]
        forces = x[self.nv:].reshape(-1, 4, 3)
        return WbcOutput(True, status, np.clip(torque, -self.torque_limit_nm, self.torque_limit_nm), x[:self.nv],
                         {side: forces[i] for i, side in enumerate(stance)}, time.perf_counter() - start)

    def _write_cost(self, layout: "_QpLayout", ref: WbcReference) -> None:
        """The QP's Hessian and gradient: every active task, then the regularization."""
        nv = self.nv
        cost_h, cost_g = layout.cost_h, layout.cost_g
        cost_h.fill(0.0)
        cost_g.fill(0.0)
        h_vv, g_v = cost_h[:nv, :nv], cost_g[:nv]
        for task in self.tasks:
            if task.active(ref):
                task.add_cost(self.kinematics, ref, h_vv, g_v)
        diagonal = cost_h.reshape(-1)[::cost_h.shape[0] + 1]  # a view: the Hessian's diagonal
        diagonal[:nv] += self.gains.acceleration_regularization
        diagonal[nv:] += self.gains.force_regularization

    def stance_edge(self, target: FootTarget) -> str:
        """How a stance foot meets the ground this tick: ``"flat"``, or rolling on its ``"toe"``
        (planned pitch > ``stance_roll_pitch_rad``, heel up) or ``"heel"`` edge (< −that)."""
        limit = self.gains.stance_roll_pitch_rad
        if limit <= 0.0:
            return "flat"
        pitch = float(quats_sole_pitch(target.quat_wxyz))
        return "toe" if pitch > limit else "heel" if pitch < -limit else "flat"

    def _write_constraints(self, layout: "_QpLayout", stance: list[str], ref: WbcReference) -> None:
        """Equalities (floating-base dynamics, stance feet at rest or rolling) and the torque-limit
        rows of the inequalities (the friction rows never change: :class:`_QpLayout`)."""
        kin, nv = self.kinematics, self.nv
        # Contact Jacobians of the corner points (world axes); each stance foot does not move:
        # J v̇ = −J̇v − K_d v (the damping bleeds off a foot's residual velocity).
        contact_jac, a_eq, b_eq = layout.contact_jac, layout.a_eq, layout.b_eq
        for i, side in enumerate(stance):
            sole, rows = kin.soles[side], slice(6 + 6 * i, 12 + 6 * i)
            edge = self.stance_edge(ref.feet[side])
            points_jacobian(sole.placement.rotation, sole.jacobian, self.corners[edge], contact_jac[12 * i:12 * i + 12])
            if edge == "flat":
                a_eq[rows, :nv] = sole.jacobian  # (the force columns stay zero)
                b_eq[rows] = -sole.drift - self.gains.stance_kd * sole.velocity
            else:
                a_eq[rows, :nv], b_eq[rows] = rolling_stance_rows(
                    sole, self.corners[edge][0] * [1.0, 0.0, 0.0], ref.feet[side], self.gains.stance_kd,
                    self.gains.swing_kp, self.gains.swing_kd)
        mass, bias = kin.mass_matrix, kin.bias
        # Floating-base dynamics rows: M_b v̇ − J_c,bᵀ f = −h_b.
        a_eq[:6, :nv] = mass[:6]
        a_eq[:6, nv:] = -contact_jac[:, :6].T
        b_eq[:6] = -bias[:6]
        # Torque limits |τ| ≤ τ_max with τ = torque_map x + h_j.
        torque_map, h_ineq, rows, nj = layout.torque_map, layout.h_ineq, layout.n_friction_rows, self.robot.n_joints
        torque_map[:, :nv] = mass[6:]
        torque_map[:, nv:] = -contact_jac[:, 6:].T
        np.negative(torque_map, out=layout.g_ineq[rows + nj:])
        np.subtract(self.torque_limit_nm, bias[6:], out=h_ineq[rows:rows + nj])
        np.add(self.torque_limit_nm, bias[6:], out=h_ineq[rows + nj:])

    def _solve_layout(self, layout: "_QpLayout") -> tuple[QpSolution | None, str]:
        """The QP as written in ``layout``, with fallbacks; (solution, status), or (None, the
        reason) when every attempt fails."""
        cost_h, cost_g, a_eq, b_eq, g_ineq, h_ineq = (layout.cost_h, layout.cost_g, layout.a_eq, layout.b_eq,
                                                       layout.g_ineq, layout.h_ineq)
        rows, nv = layout.n_friction_rows, self.nv
        g_fric, h_fric = g_ineq[:rows], h_ineq[:rows]
        # The torque-limit rows are rarely active (none in 1500 ticks of a walk, measured), yet
        # they are most of the constraint matrix and half of DAQP's time. Solve without them
        # first: if that optimum respects the limits it is also the optimum with them (removing
        # inactive constraints from a convex QP does not move its optimum); otherwise solve again
        # with them.
        solution: QpSolution = solve_qp(cost_h, -cost_g, g_fric, h_fric, a_eq, b_eq, solver=self.solver)
        if not (solution.ok and self._within_torque_limits(g_ineq[rows:] @ solution.x, h_ineq[rows:])):
            solution = solve_qp(cost_h, -cost_g, g_ineq, h_ineq, a_eq, b_eq, solver=self.solver)
        if solution.ok:
            return solution, "ok"
        # With free accelerations this QP is essentially always feasible, so a failure is
        # numerical: re-solve with the backup solver, then without the torque-limit rows
        # (torques clipped), rather than drop a walking robot onto the stand controller
        # mid-step. The status says which answer this is.
        failures = [f"{self.solver}: {solution.status}"]
        # Soft stance: the stance feet's no-motion rows as a stiff cost instead of equalities
        # (a hard landing can ask for more than the torque limits allow).
        soft_h, soft_g = cost_h.copy(), cost_g.copy()
        stance_rows, stance_rhs = a_eq[6:, :nv], b_eq[6:]
        soft_h[:nv, :nv] += SOFT_STANCE_WEIGHT * stance_rows.T @ stance_rows
        soft_g[:nv] += SOFT_STANCE_WEIGHT * stance_rows.T @ stance_rhs
        attempts = ((self.backup_solver, cost_h, cost_g, g_ineq, h_ineq, a_eq, b_eq, "backup solver"),
                    (self.solver, soft_h, soft_g, g_ineq, h_ineq, a_eq[:6], b_eq[:6], "soft stance"),
                    (self.backup_solver, cost_h, cost_g, g_fric, h_fric, a_eq, b_eq, "torque limits relaxed"))
        for solver, hessian, gradient, inequalities, bounds, equalities, rhs, label in attempts:
            solution = solve_qp(hessian, -gradient, inequalities, bounds, equalities, rhs, solver=solver)
            if solution.ok:
                return solution, f"ok via {label} ({solver}) after {'; '.join(failures)}"
            failures.append(f"{solver} ({label}): {solution.status}")
        return None, f"QP failed ({'; '.join(failures)})"

    @staticmethod
    def _within_torque_limits(rows_x: np.ndarray, bounds: np.ndarray) -> bool:
        """Whether the ± torque rows hold at x, to the tolerance :func:`wbc_node.qp.solve_qp`
        accepts for a solution."""
        return float(np.max(rows_x - bounds)) <= TORQUE_ROW_TOLERANCE * (1.0 + float(np.max(np.abs(bounds))))

    def _failed(self, status: str, start: float) -> WbcOutput:
        return WbcOutput(False, status, np.zeros(self.robot.n_joints), np.zeros(self.nv), {},
                         time.perf_counter() - start)


def tasks_from_gains(gains: WbcGains, joint_names: list[str]) -> list[Task]:
    """The walking QP's tasks with their weights and gains: CoM, pelvis, each swing foot, posture."""
    return [ComTask(gains.com_weight, gains.com_kp, gains.com_kd),
            PelvisTask(gains.pelvis_weight, gains.pelvis_kp, gains.pelvis_kd, gains.pelvis_rotation_kp,
                       gains.pelvis_rotation_kd, gains.pelvis_feedforward_limit_m_s2),
            *(SwingFootTask(side, gains.swing_weight, gains.swing_kp, gains.swing_kd,
                            gains.swing_horizontal_feedforward_limit_m_s2, gains.swing_vertical_feedforward_limit_m_s2)
              for side in SIDES),
            PostureTask(joint_names, gains.posture_weight, gains.upper_weight, gains.posture_kp, gains.posture_kd)]
