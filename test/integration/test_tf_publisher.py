"""Issue #19 bar 2 over DDS: the walking stack with its TF publisher (``sim.launch.xml tf:=true``,
lockstep, the estimator in the loop). (The same run checks that the gait planner's and the MPC's
rviz markers arrive, every namespace of biped_common.markers.) ``/tf`` + ``/tf_static`` form one tree — every link connected to
``world``, no frame with two parents — whose joint edges are rotations about their joints' axes,
with the soles, heels and toes they compose to equal to Pinocchio's forward kinematics of the
angles they encode (1e-6) and those angles equal to the joint state of the same stamp wherever the
probe received it (1e-9); the base edge equals its /odom; every stamp on the sensor grid."""

import numpy as np
import pinocchio as pin
import pytest
from nav_msgs.msg import Odometry
from rclpy.qos import QoSProfile, ReliabilityPolicy
from sensor_msgs.msg import JointState

from biped_common import conversions as conv
from biped_common.robot_model import load_robot
from biped_common.ros_node_tools import LATCHED_QOS
from biped_common.rotations import quat_to_matrix
from biped_common.tf_frames import FrameTree
from dds_helpers import Probe, Processes

pytestmark = pytest.mark.dds


def as_matrix(t):
    m = np.eye(4)
    r = t.transform.rotation
    m[:3, :3] = quat_to_matrix(np.array([r.w, r.x, r.y, r.z]))
    m[:3, 3] = (t.transform.translation.x, t.transform.translation.y, t.transform.translation.z)
    return m


def world_pose(frame, edges):
    pose = np.eye(4)
    while frame != "world":
        parent, local = edges[frame]
        pose, frame = local @ pose, parent
    return pose


def test_tf_over_dds_is_one_tree_on_forward_kinematics(tmp_path, ros_domain_id):
    from tf2_msgs.msg import TFMessage
    robot = load_robot("biped")
    processes, probe = Processes(tmp_path), Probe(ros_domain_id)
    tf, static, joints, odom = [], [], {}, {}
    node = probe.node
    node.create_subscription(TFMessage, "/tf", tf.append, QoSProfile(depth=1000, reliability=ReliabilityPolicy.RELIABLE))
    node.create_subscription(TFMessage, "/tf_static", static.append, LATCHED_QOS)
    node.create_subscription(JointState, "/joint_states", lambda m: joints.__setitem__(conv.stamp_to_ns(m.header.stamp), m), 1000)
    node.create_subscription(Odometry, "/odom", lambda m: odom.__setitem__(conv.stamp_to_ns(m.header.stamp), m), 1000)
    from visualization_msgs.msg import MarkerArray
    marker_ns = set()
    for topic in ("/mpc/markers", "/gait/markers"):
        node.create_subscription(MarkerArray, topic, lambda m: marker_ns.update(x.ns for x in m.markers), 10)
    try:
        launcher = processes.launch("launch", "sim.launch.xml", "robot:=biped", "tf:=true")
        # (standing: no footholds are planned, so no "footholds" markers)
        markers_in = {"sole_paths", "com_plan", "cop_plan", "com", "dcm", "cop", "support", "push"}
        assert probe.spin_until(lambda: probe.sim_time_s() >= 3.0 and static and len(tf) >= 200 and markers_in <= marker_ns,
                                timeout_s=120, alive=[launcher]), (marker_ns, len(tf), processes.output("launch")[-3000:])
    finally:
        processes.stop_all()
        probe.close()
    edges = {}  # child → (parent, 4×4), from /tf_static
    for msg in static:
        for t in msg.transforms:
            edges[t.child_frame_id] = (t.header.frame_id, as_matrix(t))
    parents = {}
    for msg in static + tf:
        for t in msg.transforms:
            assert parents.setdefault(t.child_frame_id, t.header.frame_id) == t.header.frame_id, t.child_frame_id
    # Group /tf by stamp: one stamp per message.
    by_stamp = {}
    for msg in tf:
        ns = {conv.stamp_to_ns(t.header.stamp) for t in msg.transforms}
        assert len(ns) == 1
        by_stamp.setdefault(ns.pop(), []).extend(msg.transforms)
    tree = FrameTree(robot)
    latest = {}
    for stamp in sorted(by_stamp):
        for t in by_stamp[stamp]:
            latest[t.child_frame_id] = (t.header.frame_id, as_matrix(t))
    for frame in tree.frame_names + ("com",):  # the tree is connected: every frame reaches the world
        world_pose(frame, {**edges, **latest})
    # Each joint edge is a rotation about its joint's axis on the model's placement: the angles are
    # read back from /tf, and Pinocchio on them gives the soles, heels and toes the received edges
    # compose to. (The probe, like any slow subscriber of the sensors' latest-only QoS, sees only
    # some of the joint states and estimates: where it has the one a /tf stamp came from, the
    # angles and the base pose are compared with it too.)
    model, data = robot.pin_model, robot.pin_model.createData()
    zero = {t.child: quat_to_matrix(t.quat_wxyz) for t in tree.joint_transforms(np.zeros(robot.n_joints))}
    checked_joints = matched_joints = matched_base = 0
    for stamp, transforms in by_stamp.items():
        frames = {t.child_frame_id: (t.header.frame_id, as_matrix(t)) for t in transforms}
        if "l_foot" in frames:
            angles = np.zeros(robot.n_joints)
            for child, rotation in zero.items():
                joint = model.frames[model.getFrameId(child)].parentJoint
                axis = "XYZ".index(model.joints[joint].shortname()[-1])  # JointModelRX / RY / RZ
                w = pin.log3(rotation.T @ frames[child][1][:3, :3])
                assert np.linalg.norm(np.delete(w, axis)) < 1e-9, child  # about the joint axis only
                angles[robot.joint_index[model.names[joint]]] = w[axis]
            pin.framesForwardKinematics(model, data, robot.pinocchio_configuration(np.zeros(3), np.array([1.0, 0, 0, 0]),
                                                                                   angles))
            chain = {**edges, **frames, "pelvis": ("world", np.eye(4))}
            for foot in robot.description.feet.values():
                for frame in (foot.sole_site, foot.heel_site, foot.toe_site):
                    np.testing.assert_allclose(world_pose(frame, chain), data.oMf[model.getFrameId(frame)].homogeneous,
                                               atol=1e-6, err_msg=frame)
            checked_joints += 1
            if stamp in joints:
                js = joints[stamp]
                np.testing.assert_allclose(angles, robot.joint_vector(tuple(js.name), np.asarray(js.position)), atol=1e-9)
                matched_joints += 1
        if "pelvis" in frames and stamp in odom:  # the base edge: the estimate it comes from
            state = conv.base_state_from_odometry(odom[stamp])
            parent, pose = frames["pelvis"]
            assert parent == "odom"
            np.testing.assert_allclose(pose[:3, 3], state.position_m, atol=1e-9)
            np.testing.assert_allclose(pose[:3, :3], quat_to_matrix(state.orientation_wxyz), atol=1e-9)
            matched_base += 1
    assert checked_joints >= 20, (checked_joints, len(by_stamp))
    print(f"joint edges checked at {checked_joints} stamps, {matched_joints} against the joint state itself; "
          f"base edge against /odom at {matched_base}")
    # Each /tf message is stamped with a sensor frame's instant: the bridge's 5 ms control grid.
    period_ns = round(1e9 / 200.0)
    assert all(s % period_ns == 0 for s in by_stamp)
