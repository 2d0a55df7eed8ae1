"""The robot walking a style, posed kinematically for the editor's 3D view (issue #17; ROS-free).

Joints by inverse kinematics, no physics: the gait planner (:class:`GaitPlanner`) walks the style
at a constant command, the MPC (:class:`mpc_node.mpc.ComMpc`) plans the CoM on its own prediction
(each plan starts from the previous plan's state at that instant — the robot is assumed to follow
it exactly), and each frame is the whole-body pose the controllers would be asked for at that
instant: the WBC's reference (:func:`wbc_node.reference.wbc_reference`) posed by
:class:`biped_stack.ghost.PlannedPose` (legs by IK, pelvis so the CoM sits on the plan), the pose
the demo video draws as a ghost. MuJoCo's forward kinematics then gives every body's pose, and the
page draws the robot's own geoms (:func:`robot_geometry`) at them.

All poses are in the planner's world frame (z up, metres), quaternions (w, x, y, z).
"""

from __future__ import annotations

import mujoco
import numpy as np

from biped_common.rates import PLANNING_RATE_HZ
from biped_common.robot_model import SIDES, FootGeometry, RobotModel, mujoco_to_pinocchio_q
from biped_common.state import BaseState
from biped_stack.ghost import PlannedPose
from biped_stack.editor.preview import foot_outline, footprint, rounded
from biped_stack.style_tools import new_footholds
from gait_planner_node.planner import GaitPlanner, PlannerConfig, gait_reference
from gait_planner_node.sampler import blend
from gait_planner_node.style import Style
from mpc_node.mpc import ComMpc, MpcConfig
from mpc_node.schedule import support_schedule, velocity_reference
from wbc_node.reference import ReferenceTable, wbc_reference

FRAME_RATE_HZ = 25.0
SETTLE_S = 1.5     # as the 2-D preview's: the planner starts standing and ramps up
CYCLES = 2.0

# MuJoCo geom types the page can draw (three.js primitives); others (meshes, planes) are skipped.
_GEOM_TYPES = {mujoco.mjtGeom.mjGEOM_SPHERE: "sphere", mujoco.mjtGeom.mjGEOM_CAPSULE: "capsule",
               mujoco.mjtGeom.mjGEOM_ELLIPSOID: "ellipsoid", mujoco.mjtGeom.mjGEOM_CYLINDER: "cylinder",
               mujoco.mjtGeom.mjGEOM_BOX: "box"}


def robot_geometry(robot: RobotModel) -> dict:
    """The robot's visible geoms for the page, JSON-able: ``bodies`` the body names (index = the
    body's column in :func:`planned_motion`'s poses; body 0 is MuJoCo's world and not posed);
    ``geoms`` [{body, type, size, pos, quat, rgba}] in the body's frame, MuJoCo's size convention
    (sphere (r), capsule/cylinder (r, half-length), ellipsoid (semi-axes), box (half-sizes));
    ``base_body`` the floating base's (pelvis's) index.
    Geoms of the floor (body 0) and of visual group 3 and above (collision-only) are left out."""
    model = robot.mj_model
    bodies = [mujoco.mj_id2name(model, mujoco.mjtObj.mjOBJ_BODY, b) or f"body{b}" for b in range(model.nbody)]
    geoms = []
    for g in range(model.ngeom):
        kind = _GEOM_TYPES.get(int(model.geom_type[g]))
        body = int(model.geom_bodyid[g])
        if kind is None or body == 0 or model.geom_group[g] >= 3 or model.geom_rgba[g][3] == 0.0:
            continue
        geoms.append({"body": body, "type": kind, "size": rounded(model.geom_size[g]),
                      "pos": rounded(model.geom_pos[g]), "quat": rounded(model.geom_quat[g]),
                      "rgba": rounded(model.geom_rgba[g], 3)})
    free = [j for j in range(model.njnt) if model.jnt_type[j] == mujoco.mjtJoint.mjJNT_FREE]
    base = int(model.jnt_bodyid[free[0]]) if free else 1
    return {"robot": robot.name, "bodies": bodies, "base_body": base, "geoms": geoms}


def _pose_bodies(model: mujoco.MjModel, data: mujoco.MjData, qpos: np.ndarray) -> None:
    """Forward kinematics of ``qpos`` into ``data`` (xpos, xquat, subtree_com)."""
    data.qpos[:] = qpos
    mujoco.mj_kinematics(model, data)
    mujoco.mj_comPos(model, data)


def measured_pose(robot: RobotModel, base: BaseState, joint_names, joint_positions_rad) -> dict:
    """The robot's measured pose for the 3D view, JSON-able like a frame of :func:`planned_motion`:
    ``stamp_s`` (the base state's), ``qpos``, ``body_pos_m``, ``body_quat_wxyz``, ``com_m``, from
    the base pose (``/odom``: world frame) and the joint angles (``/joint_states``, any order). ValueError when a
    joint is missing or unknown, or a number is not finite."""
    joints = robot.joint_vector(tuple(joint_names), np.asarray(joint_positions_rad, dtype=float))
    qpos = np.concatenate([base.position_m, base.orientation_wxyz, joints])
    if not np.all(np.isfinite(qpos)):
        raise ValueError("measured pose: a non-finite base pose or joint angle")
    model = robot.mj_model
    data = mujoco.MjData(model)
    _pose_bodies(model, data, qpos)
    return {"stamp_s": round(float(base.stamp_s), 4), "qpos": rounded(qpos), "body_pos_m": rounded(data.xpos, 4),
            "body_quat_wxyz": rounded(data.xquat, 4), "com_m": rounded(data.subtree_com[0], 4)}


class _KinematicComPlan:
    """The MPC re-planned at the planning rate from its own last plan's state (no robot)."""

    def __init__(self, robot: RobotModel, com_xy_m: np.ndarray):
        self.mpc = ComMpc(MpcConfig.default(robot.standing_com_height_m), FootGeometry.from_robot(robot))
        self.state = np.array([com_xy_m[0], 0.0, com_xy_m[1], 0.0])
        self.cop = np.asarray(com_xy_m, dtype=float)
        self.plan = None

    def update(self, now_s: float, reference) -> None:
        if self.plan is not None:
            c, v, _ = self.plan.at(now_s)
            self.state = np.array([c[0], v[0], c[1], v[1]])
            self.cop = self.plan.cop_at(now_s)
        result = self.mpc.solve(now_s, self.state, self.cop, support_schedule(reference),
                                velocity_reference(reference), reference.body)
        if result.ok or self.plan is None:
            self.plan = result.plan


def planned_motion(style: Style, config: PlannerConfig, robot: RobotModel, velocity,
                   frame_rate_hz: float = FRAME_RATE_HZ, cycles: float = CYCLES, settle_s: float = SETTLE_S) -> dict:
    """The robot's planned whole-body motion walking ``style`` at ``velocity`` (ẋ [m/s], ẏ [m/s],
    ω [rad/s], body frame; clamped to the style's range), ``cycles`` cycles after ``settle_s`` of
    settling, at ``frame_rate_hz``. JSON-able: ``time_s`` (n,) from the first frame;
    ``qpos`` (n, nq) MuJoCo configurations; ``body_pos_m`` (n, nbody, 3) and ``body_quat_wxyz``
    (n, nbody, 4) world poses of the bodies of :func:`robot_geometry`; ``com_m`` (n, 3) the posed
    CoM; ``sole_m`` {side: (n, 3)} the planned sole centres; ``footprints`` [(side, x, y, yaw)]
    the touch-downs from the first frame on; ``foot_outline_m`` the sole rectangle; ``velocity``
    the walked command; ``cycle_s``."""
    gait = blend(style, velocity)
    planner = GaitPlanner(style, config)
    planner.set_command(gait.velocity)
    model = robot.mj_model
    data = mujoco.MjData(model)
    standing = robot.standing_qpos()
    com0, _ = robot.com_state(mujoco_to_pinocchio_q(standing), np.zeros(robot.pin_model.nv))
    com_plan = _KinematicComPlan(robot, com0[:2])
    ghost = PlannedPose(robot)
    upper_index = None
    dt = 1.0 / PLANNING_RATE_HZ
    every = max(1, round(PLANNING_RATE_HZ / frame_rate_hz))
    n_ticks = int(round((settle_s + cycles * gait.timing.cycle_s) / dt))
    first_frame = int(round(settle_s / dt))
    pelvis_xy = np.array(standing[:2], dtype=float)
    times, qposes, positions, quats, coms, footprints = [], [], [], [], [], []
    soles = {side: [] for side in SIDES}
    last_footholds = dict(planner.footholds)
    for tick in range(n_ticks + 1):
        now = tick * dt
        if tick:
            planner.step(dt)
            touchdowns = new_footholds(planner, last_footholds)
            if tick >= first_frame:
                footprints.extend(footprint(side, pose) for side, pose in touchdowns)
        contract = gait_reference(planner.reference(), now)
        com_plan.update(now, contract)
        if tick < first_frame or (tick - first_frame) % every:
            continue
        if upper_index is None:
            upper_index = np.array([robot.joint_index[n] for n in contract.upper_joint_names], dtype=int)
        motion = ReferenceTable(contract).motion(0.0)
        reference = wbc_reference(motion, com_plan.plan.at(now), robot.standing_posture_rad, upper_index)
        qpos = ghost.qpos(reference, (np.eye(3), np.zeros(3)), pelvis_xy)
        pelvis_xy = qpos[:2]
        _pose_bodies(model, data, qpos)
        times.append(now - settle_s)
        qposes.append(qpos)
        for side in SIDES:
            soles[side].append(contract.sole_position_m[side][0])
        positions.append(data.xpos.copy())
        quats.append(data.xquat.copy())
        coms.append(data.subtree_com[0].copy())
    return {"velocity": rounded(gait.velocity), "cycle_s": round(gait.timing.cycle_s, 5),
            "foot_outline_m": foot_outline(config),
            "time_s": rounded(times, 4), "qpos": rounded(qposes),
            "sole_m": {side: rounded(xyz, 4) for side, xyz in soles.items()}, "footprints": footprints,
            "body_pos_m": rounded(positions, 4),
            "body_quat_wxyz": rounded(quats, 4), "com_m": rounded(coms, 4)}
