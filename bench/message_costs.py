"""What a planning-rate message costs in Python: the gait reference and the CoM plan as tables
(std_msgs/Float64MultiArray, what the stack sends) against the same content as trajectory messages
(trajectory_msgs/MultiDOFJointTrajectory, what it sent before): build, serialize, deserialize,
decode — medians and p99 over repeated calls, humanoid walking at 0.3 m/s.

Run: .venv/bin/python bench/message_costs.py
"""

from __future__ import annotations

import time

import numpy as np
from geometry_msgs.msg import Transform
from rclpy.serialization import deserialize_message, serialize_message
from std_msgs.msg import Float64MultiArray
from trajectory_msgs.msg import MultiDOFJointTrajectory, MultiDOFJointTrajectoryPoint

from biped_common import conversions as conv
from biped_common.robot_model import load_robot, mujoco_to_pinocchio_q
from gait_planner_node.planner import GaitPlanner, PlannerConfig, gait_reference
from gait_planner_node.style import load_style
from mpc_node.planning import ComPlanner

REPEATS = 300


def timed_ms(function) -> np.ndarray:
    samples = []
    for _ in range(REPEATS):
        started = time.perf_counter()
        function()
        samples.append(time.perf_counter() - started)
    return np.asarray(samples) * 1e3


def trajectory_of(reference) -> MultiDOFJointTrajectory:
    """The reference's poses as a trajectory message of one point per time (3 transforms each),
    as the stack encoded it before tables (contacts and upper body went in two more messages)."""
    msg = MultiDOFJointTrajectory(joint_names=["pelvis", "left_sole", "right_sole"])
    msg.header.stamp = conv.seconds_to_stamp(reference.stamp_s)
    for i, t in enumerate(reference.times_s):
        transforms = []
        for position, quat in (((*reference.body[i, :2], reference.pelvis_height_m[i]), reference.pelvis_quat_wxyz[i]),
                               (reference.sole_position_m["left"][i], reference.sole_quat_wxyz["left"][i]),
                               (reference.sole_position_m["right"][i], reference.sole_quat_wxyz["right"][i])):
            tr = Transform()
            tr.translation.x, tr.translation.y, tr.translation.z = (float(v) for v in position)
            tr.rotation.w, tr.rotation.x, tr.rotation.y, tr.rotation.z = (float(v) for v in quat)
            transforms.append(tr)
        msg.points.append(MultiDOFJointTrajectoryPoint(transforms=transforms, time_from_start=conv._duration(float(t))))
    return msg


def report(label: str, ms: np.ndarray) -> None:
    print(f"  {label:52s} median {np.median(ms):7.3f} ms  p99 {np.percentile(ms, 99):7.3f} ms")


def main() -> None:
    robot = load_robot("humanoid")
    planner = GaitPlanner(load_style("neutral"), PlannerConfig.for_robot(robot))
    planner.set_command([0.3, 0.0, 0.0])
    for _ in range(200):
        planner.step(0.008)
    reference = gait_reference(planner.reference(), 3.0)
    plan = ComPlanner(robot, log=lambda m: None).update(
        3.0, reference, mujoco_to_pinocchio_q(robot.standing_qpos()), np.zeros(robot.pin_model.nv))
    print(f"gait reference: {len(reference)} rows × {len(conv.REFERENCE_COLUMNS) + len(reference.upper_joint_names)} "
          f"columns; CoM plan: {plan.states.shape[0]} rows")
    table = conv.gait_reference_message(reference)
    table_bytes = serialize_message(table)
    trajectory = trajectory_of(reference)
    trajectory_bytes = serialize_message(trajectory)
    print(f"serialized: table {len(table_bytes)} B, trajectory (poses only) {len(trajectory_bytes)} B")
    report("reference table: build", timed_ms(lambda: conv.gait_reference_message(reference)))
    report("reference table: serialize", timed_ms(lambda: serialize_message(table)))
    report("reference table: deserialize", timed_ms(lambda: deserialize_message(table_bytes, Float64MultiArray)))
    report("reference table: decode + check (GaitReference)", timed_ms(lambda: conv.gait_reference_from_message(table, robot)))
    report("reference as trajectory (poses only): build", timed_ms(lambda: trajectory_of(reference)))
    report("reference as trajectory (poses only): serialize", timed_ms(lambda: serialize_message(trajectory)))
    report("reference as trajectory (poses only): deserialize",
           timed_ms(lambda: deserialize_message(trajectory_bytes, MultiDOFJointTrajectory)))
    plan_table = conv.com_plan_message(plan)
    plan_bytes = serialize_message(plan_table)
    report("CoM plan table: build", timed_ms(lambda: conv.com_plan_message(plan)))
    report("CoM plan table: deserialize + decode",
           timed_ms(lambda: conv.com_plan_from_message(deserialize_message(plan_bytes, Float64MultiArray))))


if __name__ == "__main__":
    main()
