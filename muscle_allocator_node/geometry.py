"""Muscle paths through via points fixed on bodies (source 001; Geijtenbeek et al. 2013).

A path is a polyline through points, each fixed in a body frame. At a state (here: a MuJoCo
model's kinematics, world frame, SI units):

- length L = Σ_i |p_{i+1} − p_i|;
- lengthening velocity dL/dt = Σ_i ŝ_i · (ṗ_{i+1} − ṗ_i), ŝ_i = (p_{i+1} − p_i)/|p_{i+1} − p_i|;
- moment arm about hinge joint k (anchor j, unit axis a): r_k = −∂L/∂q_k. A segment whose two
  points lie on opposite sides of the joint contributes ((p − j) × ŝ)·a, with p its point on the
  distal side and ŝ pointing from that point along the segment towards the proximal one (the
  direction the muscle pulls it) — source 001's r = (p − j) × s/|s|, projected on the axis.
  Positive r: shortening the muscle turns the joint positively.
"""

from __future__ import annotations

from dataclasses import dataclass

import mujoco
import numpy as np


@dataclass(frozen=True)
class ViaPoint:
    """A path point: a body's name and the point in that body's frame [m]."""

    body: str
    position_m: tuple[float, float, float]


@dataclass(frozen=True)
class PathState:
    """Length [m], lengthening velocity [m/s] and moment arms (nv,) [m] (hinge dofs; zero for
    the others) of a path at one state."""

    length_m: float
    velocity_m_s: float
    moment_arms_m: np.ndarray


class ViaPointPath:
    """A muscle path on a MuJoCo model's bodies (names checked at construction)."""

    def __init__(self, model: mujoco.MjModel, points: list[ViaPoint]):
        if len(points) < 2:
            raise ValueError("a path needs at least two points")
        self.model = model
        self.bodies = []
        for point in points:
            body = mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_BODY, point.body)
            if body < 0:
                raise ValueError(f"path point on unknown body {point.body!r}")
            self.bodies.append(body)
        self.local = np.array([p.position_m for p in points], dtype=float)

    def state(self, data: mujoco.MjData) -> PathState:
        """The path at ``data``'s state (positions and velocities; after ``mj_forward``)."""
        model = self.model
        world = np.array([data.xpos[b] + data.xmat[b].reshape(3, 3) @ p for b, p in zip(self.bodies, self.local)])
        velocity = np.zeros_like(world)
        for i, (body, point) in enumerate(zip(self.bodies, world)):
            jac = np.zeros((3, model.nv))
            mujoco.mj_jac(model, data, jac, None, point, body)
            velocity[i] = jac @ data.qvel
        segments = np.diff(world, axis=0)
        lengths = np.linalg.norm(segments, axis=1)
        if np.any(lengths < 1e-12):
            raise ValueError("two consecutive path points coincide")
        directions = segments / lengths[:, None]
        rate = float(np.sum(directions * np.diff(velocity, axis=0)))
        return PathState(float(lengths.sum()), rate, self._moment_arms(data, world, directions))

    def _moment_arms(self, data, world, directions) -> np.ndarray:
        model = self.model
        arms = np.zeros(model.nv)
        hinge = int(mujoco.mjtJoint.mjJNT_HINGE)
        for joint in range(model.njnt):
            if int(model.jnt_type[joint]) != hinge:
                continue
            body = model.jnt_bodyid[joint]
            anchor, axis = data.xanchor[joint], data.xaxis[joint]
            moved = [self._below(b, body) for b in self.bodies]  # points the joint moves
            for i in range(len(self.bodies) - 1):
                if moved[i] == moved[i + 1]:
                    continue
                # The moved point, pulled along the segment towards the other one.
                p, pull = (world[i], directions[i]) if moved[i] else (world[i + 1], -directions[i])
                arms[model.jnt_dofadr[joint]] += float(np.cross(p - anchor, pull) @ axis)
        return arms

    def _below(self, body: int, ancestor: int) -> bool:
        """Whether ``body`` is ``ancestor`` or one of its descendants."""
        while body > 0:
            if body == ancestor:
                return True
            body = self.model.body_parentid[body]
        return ancestor == 0
