"""Source 000's example: one joint, a flexor and an extensor, PD → static optimization → muscles.

The source's model as it prints it cannot produce force: it passes the whole muscle-tendon length
(0.25 m) as the fibre length of an 0.08 m optimal fibre, where its Gaussian f_L is ≈ 1e-10 (its
reported RMSE cannot come from that code). Here the unit is the source's numbers made consistent:
F_max 300 N (flexor) and 400 N (extensor), optimal fibre 0.08 m, tendon slack 0.25 m (rigid), a
constant 0.03 m moment arm with the fibres at their optimal length at q = 0, the source's load
(inertia 0.1 kg·m², quadratic damping 0.5 q̇|q̇|), PD gains (500, 50), reference
0.6 sin(2π·0.8 t), activation bounds [0.02, 1] and 0.5 ms steps — with our Hill curves (De Groote
2016), activation dynamics and allocation QP instead of the source's SLSQP with no dynamics.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from muscle_allocator_node.activation import DEFAULT_TIMES, anticipating_excitation, step_activation
from muscle_allocator_node.allocation import Allocator
from muscle_allocator_node.hill import MuscleTendonUnit

MOMENT_ARM_M = 0.03
INERTIA_KG_M2 = 0.1
DAMPING_NM_S2 = 0.5
A_MIN = 0.02
FLEXOR = MuscleTendonUnit(300.0, 0.08, 0.25)
EXTENSOR = MuscleTendonUnit(400.0, 0.08, 0.25)


@dataclass(frozen=True)
class SingleJointRun:
    """Traces of a run (SI units): time, reference and joint angle, activations (flexor,
    extensor), the muscles' torque and the allocation's residual."""

    time_s: np.ndarray
    reference_rad: np.ndarray
    angle_rad: np.ndarray
    activations: np.ndarray
    torque_nm: np.ndarray
    residual_nm: np.ndarray


def muscle_lengths(q: float):
    """Flexor and extensor muscle-tendon lengths [m] at joint angle q [rad] (flexion positive)."""
    rest = FLEXOR.tendon_slack_length_m + FLEXOR.optimal_fiber_length_m
    return rest - MOMENT_ARM_M * q, rest + MOMENT_ARM_M * q


def run(duration_s: float = 2.0, dt_s: float = 0.0005, kp: float = 400.0, kd: float = 40.0,
        start_on_reference: bool = True) -> SingleJointRun:
    """Simulate the loop (semi-implicit Euler on I q̈ = τ − 0.5 q̇|q̇|). The joint starts on the
    reference (q = 0, q̇ = q̇_ref(0) = 3 rad/s) by default; from rest, as the source does, the
    first 0.1 s is a catch-up the muscles' ≈ 6 N·m at that shortening speed cannot avoid
    (RMSE ≈ 0.023 rad over 2 s, ≈ 0.001 rad after the first 0.3 s)."""
    allocator = Allocator(1, 2)
    moment_arms = np.array([[MOMENT_ARM_M, -MOMENT_ARM_M]])  # flexor pulls to flex, extensor to extend
    q, dq = 0.0, (0.6 * 2 * np.pi * 0.8 if start_on_reference else 0.0)
    activation = np.full(2, 0.1)
    out = {k: [] for k in ("time_s", "reference_rad", "angle_rad", "activations", "torque_nm", "residual_nm")}
    for k in range(int(round(duration_s / dt_s))):
        t = k * dt_s
        w = 2 * np.pi * 0.8
        q_ref, dq_ref, ddq_ref = 0.6 * np.sin(w * t), 0.6 * w * np.cos(w * t), -0.6 * w * w * np.sin(w * t)
        # PD on the reference as a desired acceleration, through the load's inverse dynamics.
        torque_wanted = INERTIA_KG_M2 * (ddq_ref + kp * (q_ref - q) + kd * (dq_ref - dq)) + DAMPING_NM_S2 * dq * abs(dq)
        lengths, velocities = muscle_lengths(q), (-MOMENT_ARM_M * dq, MOMENT_ARM_M * dq)
        forces = [m.rigid_tendon_forces(l, v) for m, l, v in zip((FLEXOR, EXTENSOR), lengths, velocities)]
        active, passive = np.array([f[0] for f in forces]), np.array([f[1] for f in forces])
        allocation = allocator.solve(moment_arms, active, passive, [float(np.clip(torque_wanted, -50.0, 50.0))],
                                     a_min=A_MIN)
        excitation = anticipating_excitation(allocation.activations, activation, dt_s, DEFAULT_TIMES)
        activation = step_activation(excitation, activation, dt_s, DEFAULT_TIMES)
        torque = float((moment_arms @ (activation * active + passive))[0])
        dq += dt_s * (torque - DAMPING_NM_S2 * dq * abs(dq)) / INERTIA_KG_M2
        q += dt_s * dq
        for key, value in (("time_s", t + dt_s), ("reference_rad", 0.6 * np.sin(w * (t + dt_s))), ("angle_rad", q),
                           ("activations", activation.copy()), ("torque_nm", torque),
                           ("residual_nm", float(allocation.residual_torque[0]))):
            out[key].append(value)
    return SingleJointRun(**{k: np.array(v) for k, v in out.items()})
