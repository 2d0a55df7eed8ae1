"""One MPC tick: the gait reference and the robot's state in, a CoM plan out (ROS-free).

The node (:mod:`mpc_node.node`) and the in-process stack (:mod:`biped_stack.walking`) both run
this at the planning rate. It computes the CoM from the full configuration (Pinocchio), resamples
the reference's contacts, and keeps the previous plan — logged — when the reference is not finite
or OSQP fails.

It also estimates a push: the external acceleration δ (force / mass) that the measured contact
forces do not explain, δ = c̈ − Σf_contact/m − g (horizontal: δ = Δċ/Δt − Σf_xy/m between two ticks,
ċ the measured CoM velocity, f the feet's measured ground reactions), low-passed (time constant
``disturbance_time_constant_s``, bounded by ``max_disturbance_m_s2``) — a disturbance observer, the
integral action the MPC lacks against a sustained push. The next plan allows for δ̂
(:meth:`mpc_node.mpc.ComMpc.solve`): the CoP leans into the push instead of being outrun by it.
(Measured forces, not the plan's CoP: when the whole-body controller cannot realize the planned
CoP, an estimate from the plan's prediction winds up — seen: 4 m/s² for a 1.4 m/s² push.)
"""

from __future__ import annotations

import math
from typing import Callable

import numpy as np

from biped_common.com_plan import ComPlan
from biped_common.gait_reference import GaitReference
from biped_common.robot_model import FootGeometry, RobotModel
from mpc_node.mpc import ComMpc, MpcConfig, MpcResult
from mpc_node.schedule import support_schedule, velocity_reference


class ComPlanner:
    """The MPC for one robot, with its inputs prepared and its failures handled."""

    def __init__(self, robot: RobotModel, config: MpcConfig | None = None, log: Callable[[str], None] = print):
        self.robot = robot
        self.mpc = ComMpc(config or MpcConfig.default(robot.standing_com_height_m), FootGeometry.from_robot(robot))
        self._log = log
        self.plan: ComPlan | None = None
        self.last_result: MpcResult | None = None
        self.disturbance_m_s2 = np.zeros(2)  # δ̂, world
        self._previous_velocity = None  # (time [s], CoM velocity (2,), contact force (2,)) of the last tick

    def com_state(self, q: np.ndarray, v: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """CoM position and velocity [m, m/s] in the world from Pinocchio (q, v)."""
        return self.robot.com_state(q, v)

    def update(self, now_s: float, reference: GaitReference, q: np.ndarray, v: np.ndarray,
               contact_force_n: np.ndarray | None = None) -> ComPlan | None:
        """Re-plan at ``now_s`` [s, sim time] — the instant of the state (q, v) — from the gait
        ``reference`` (re-timed to ``now_s`` when it was stamped at another instant, as over DDS).
        ``contact_force_n`` (3,): the sum of the feet's ground reactions [N, world] over the time
        since the last update (its mean; the latest sample will do), for the push estimate (None:
        no estimate this tick). Returns the plan to follow
        (the previous one when this tick could not plan; None before any plan exists)."""
        if not reference.finite():
            self._log("MPC: non-finite gait reference: continuing the previous plan")
            return self.plan
        if reference.stamp_s != now_s:
            reference = reference.retimed(now_s)
        if not (np.all(np.isfinite(q)) and np.all(np.isfinite(v))):
            self._log("MPC: non-finite state: continuing the previous plan")
            return self.plan
        com, vcom = self.com_state(q, v)
        self._estimate_disturbance(now_s, vcom, contact_force_n)
        cop = self.plan.cop_at(now_s) if self.plan is not None else com[:2]
        try:
            result = self.mpc.solve(now_s, np.array([com[0], vcom[0], com[1], vcom[1]]), cop,
                                    support_schedule(reference), velocity_reference(reference), reference.body,
                                    self.disturbance_m_s2)
        except ValueError as error:
            self._log(f"MPC: reference rejected ({error}): continuing the previous plan")
            return self.plan
        self.last_result = result
        if not result.ok:
            self._log(f"MPC solve failed ({result.status}): continuing the previous plan")
        self.plan = result.plan
        return self.plan

    def _estimate_disturbance(self, now_s: float, vcom: np.ndarray, contact_force_n: np.ndarray | None) -> None:
        """Update δ̂ from the CoM velocity's change since the last tick and the contact force (see
        the module docstring)."""
        cfg = self.mpc.config
        previous, self._previous_velocity = self._previous_velocity, None
        if contact_force_n is None or cfg.max_disturbance_m_s2 <= 0.0:
            return
        force = np.asarray(contact_force_n, dtype=float)
        if force.shape != (3,) or not np.all(np.isfinite(force)):
            return
        self._previous_velocity = (now_s, vcom[:2].copy(), force[:2].copy())
        if previous is None:
            return
        then_s, then_velocity, then_force = previous
        dt = now_s - then_s
        if not 0.0 < dt <= 0.1:  # a gap (a restart, a stall): nothing to compare
            return
        raw = (vcom[:2] - then_velocity) / dt - force[:2] / self.robot.mass_kg
        estimate = self.disturbance_m_s2 + min(1.0, dt / cfg.disturbance_time_constant_s) * (raw - self.disturbance_m_s2)
        norm = float(np.linalg.norm(estimate))
        if norm > cfg.max_disturbance_m_s2:
            estimate *= cfg.max_disturbance_m_s2 / norm
        self.disturbance_m_s2 = estimate
