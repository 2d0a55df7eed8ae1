"""rviz markers of the walking stack's plans and state (visualization_msgs): the one module that
knows how they are drawn, as :mod:`biped_common.conversions` is for the data messages.

All in the ``world`` frame, metres. Namespaces (rviz lists them under the MarkerArray display):
``footholds`` (planned touch-downs, blue left / red right), ``sole_paths`` (the planned sole
paths), ``com_plan`` / ``cop_plan`` (the MPC's CoM and CoP over its horizon), ``com``, ``dcm``,
``cop`` (spheres at the measured CoM, its divergent component ξ = c + ċ/ω and the planned CoP now,
on the ground), ``support`` (the support polygon of the feet down now), ``push`` (an arrow along
the MPC's push estimate δ, 0.1 m per m/s², from the CoM).
"""

from __future__ import annotations

import numpy as np
from geometry_msgs.msg import Point
from visualization_msgs.msg import Marker, MarkerArray

from biped_common.com_plan import ComPlan
from biped_common.state import WORLD_FRAME

LEFT, RIGHT = (0.1, 0.3, 1.0), (1.0, 0.2, 0.1)
PUSH_ARROW_M_PER_M_S2 = 0.1


def _marker(ns: str, marker_id: int, kind: int, rgb, alpha: float = 1.0) -> Marker:
    m = Marker(ns=ns, id=marker_id, type=kind, action=Marker.ADD)
    m.header.frame_id = WORLD_FRAME
    m.pose.orientation.w = 1.0
    m.color.r, m.color.g, m.color.b = (float(c) for c in rgb)
    m.color.a = float(alpha)
    return m


def _points(xyz) -> list[Point]:
    return [Point(x=float(p[0]), y=float(p[1]), z=float(p[2])) for p in np.asarray(xyz, dtype=float)]


def footprint_markers(footholds, heel_x_m: float, toe_x_m: float, half_width_m: float) -> list[Marker]:
    """A flat box per planned touch-down (objects with ``side`` and ``pose.x/y/yaw``, world)."""
    out = []
    for i, foothold in enumerate(footholds):
        m = _marker("footholds", i, Marker.CUBE, RIGHT if foothold.side == "right" else LEFT, 0.6)
        yaw = foothold.pose.yaw
        centre = 0.5 * (heel_x_m + toe_x_m)
        m.pose.position.x = foothold.pose.x + centre * np.cos(yaw)
        m.pose.position.y = foothold.pose.y + centre * np.sin(yaw)
        m.pose.position.z = 0.002
        m.pose.orientation.w, m.pose.orientation.z = float(np.cos(yaw / 2)), float(np.sin(yaw / 2))
        m.scale.x, m.scale.y, m.scale.z = toe_x_m - heel_x_m, 2 * half_width_m, 0.004
        out.append(m)
    return out


def path_marker(ns: str, marker_id: int, points_m, rgb, width_m: float = 0.005) -> Marker:
    """A line strip through ``points_m`` (N, 3) [m, world]."""
    m = _marker(ns, marker_id, Marker.LINE_STRIP, rgb)
    m.scale.x = width_m
    m.points = _points(points_m)
    return m


def sphere_marker(ns: str, position_m, rgb, diameter_m: float = 0.03) -> Marker:
    """A sphere at ``position_m`` (3,) [m, world]."""
    m = _marker(ns, 0, Marker.SPHERE, rgb)
    m.pose.position.x, m.pose.position.y, m.pose.position.z = (float(v) for v in position_m)
    m.scale.x = m.scale.y = m.scale.z = diameter_m
    return m


def polygon_marker(ns: str, vertices_m, rgb, z_m: float = 0.001) -> Marker:
    """A closed line loop through the polygon's vertices (M, 2) [m, world], on the ground."""
    vertices = np.asarray(vertices_m, dtype=float).reshape(-1, 2)
    closed = np.vstack([vertices, vertices[:1]]) if len(vertices) else vertices
    return path_marker(ns, 0, np.column_stack([closed, np.full(len(closed), z_m)]), rgb, 0.004)


def arrow_marker(ns: str, start_m, end_m, rgb) -> Marker:
    """An arrow from ``start_m`` to ``end_m`` (3,) [m, world]."""
    m = _marker(ns, 0, Marker.ARROW, rgb)
    m.points = _points([start_m, end_m])
    m.scale.x, m.scale.y, m.scale.z = 0.01, 0.02, 0.03  # shaft diameter, head diameter, head length
    return m


def gait_markers(reference, foot) -> MarkerArray:
    """The gait planner's: its planned footprints and sole paths (``reference``: a
    :class:`gait_planner_node.planner.Reference`; ``foot``: its sole geometry)."""
    markers = footprint_markers(reference.footholds, foot.heel_x_m, foot.toe_x_m, foot.half_width_m)
    for j, side in enumerate(("left", "right")):
        markers.append(path_marker("sole_paths", j, reference.foot_position_m[side], RIGHT if side == "right" else LEFT))
    return MarkerArray(markers=markers)


def mpc_markers(plan: ComPlan, com_m, com_velocity_m_s, support_m=None) -> MarkerArray:
    """The MPC's: its CoM and CoP plans, the measured CoM and DCM ξ = c + ċ/ω, the CoP now, the
    support polygon (M, 2) when given, and the push estimate as an arrow from the CoM."""
    com, velocity = np.asarray(com_m, dtype=float), np.asarray(com_velocity_m_s, dtype=float)
    height = plan.com_height_m
    states = plan.states
    markers = [
        path_marker("com_plan", 0, np.column_stack([states[:, 0], states[:, 2], np.full(len(states), height)]),
                    (0.1, 0.8, 0.2)),
        path_marker("cop_plan", 0, np.column_stack([plan.cop, np.full(len(plan.cop), 0.003)]), (0.9, 0.7, 0.1)),
        sphere_marker("com", com, (0.1, 0.8, 0.2), 0.04),
        sphere_marker("dcm", [*(com[:2] + velocity[:2] / plan.omega_per_s), 0.005], (0.8, 0.1, 0.8)),
        sphere_marker("cop", [*plan.cop[0], 0.005], (0.9, 0.7, 0.1)),
    ]
    if support_m is not None:
        markers.append(polygon_marker("support", support_m, (0.5, 0.5, 0.5)))
    push = np.asarray(plan.disturbance_m_s2, dtype=float)
    end = com + PUSH_ARROW_M_PER_M_S2 * np.array([push[0], push[1], 0.0])
    markers.append(arrow_marker("push", com, end, (1.0, 0.0, 0.0)))
    return MarkerArray(markers=markers)
