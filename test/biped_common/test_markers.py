"""rviz markers (biped_common.markers): in the world frame, where the plans say."""

import numpy as np
from visualization_msgs.msg import Marker

from biped_common import markers
from biped_common.com_plan import ComPlan


def test_mpc_markers_draw_the_plans_the_dcm_and_the_push():
    states = np.array([[0.0, 0.3, 0.0, 0.0], [0.015, 0.3, 0.001, 0.02], [0.03, 0.3, 0.002, 0.0]])
    cop = np.array([[0.02, 0.0], [0.04, 0.01]])
    plan = ComPlan(1.0, 0.05, states, cop, 4.2, (1.5, -0.5))
    support = np.array([[0.0, -0.1], [0.2, -0.1], [0.2, 0.1], [0.0, 0.1]])
    array = markers.mpc_markers(plan, np.array([0.01, 0.0, 0.55]), np.array([0.42, 0.0, 0.0]), support)
    by_ns = {m.ns: m for m in array.markers}
    assert set(by_ns) == {"com_plan", "cop_plan", "com", "dcm", "cop", "support", "push"}
    assert all(m.header.frame_id == "world" for m in array.markers)
    com_plan = by_ns["com_plan"]
    assert com_plan.type == Marker.LINE_STRIP and [p.x for p in com_plan.points] == [0.0, 0.015, 0.03]
    assert com_plan.points[0].z == plan.com_height_m
    assert by_ns["dcm"].pose.position.x == 0.01 + 0.42 / 4.2  # ξ = c + ċ/ω
    loop = by_ns["support"].points
    assert len(loop) == 5 and (loop[0].x, loop[0].y) == (loop[-1].x, loop[-1].y)
    tip = by_ns["push"].points[1]
    assert np.allclose((tip.x, tip.y), (0.01 + 0.15, -0.05))  # 0.1 m per m/s² along δ


def test_footprints_are_centred_on_the_sole_and_coloured_by_side():
    class Pose:
        x, y, yaw = 1.0, 0.5, np.pi / 2

    class Foothold:
        side, pose = "left", Pose()
    (m,) = markers.footprint_markers([Foothold()], -0.06, 0.12, 0.045)
    assert np.isclose(m.pose.position.x, 1.0) and np.isclose(m.pose.position.y, 0.53)  # 3 cm ahead, heading +y
    assert np.isclose(m.scale.x, 0.18) and np.isclose(m.scale.y, 0.09) and m.color.b > m.color.r
