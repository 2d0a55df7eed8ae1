"""Support polygons on the ground (ROS-free): sole rectangles, their convex hull, and how far a
point is inside one. Shared by the MPC (:mod:`mpc_node.support`, CoP constraints) and the gait
planner's feedback (a standing robot steps when its DCM nears the edge). World frame, metres."""

from __future__ import annotations

import numpy as np

from biped_common.robot_model import FootGeometry


def sole_corners(pose: np.ndarray, foot: FootGeometry, margin_m: float) -> np.ndarray:
    """The four corners (4, 2) of a sole rectangle at planar pose (x, y, yaw), shrunk by margin."""
    x0, x1 = foot.heel_x_m + margin_m, foot.toe_x_m - margin_m
    w = max(foot.half_width_m - margin_m, 1e-3)
    local = np.array([[x0, -w], [x1, -w], [x1, w], [x0, w]])
    c, s = np.cos(pose[2]), np.sin(pose[2])
    return local @ np.array([[c, s], [-s, c]]) + pose[:2]


def convex_hull(points: np.ndarray) -> np.ndarray:
    """Counter-clockwise convex hull (Andrew's monotone chain) of points (n, 2)."""
    return np.array(hull_of(np.asarray(points, dtype=float).tolist()))


def support_hull(poses, foot: FootGeometry, margin_m: float = 0.0) -> np.ndarray:
    """The support polygon (M, 2) [m, world], counter-clockwise, of soles at planar poses
    (x, y, yaw) (n ≥ 1): the convex hull of their :func:`sole_corners`."""
    return convex_hull(np.vstack([sole_corners(np.asarray(pose, dtype=float), foot, margin_m) for pose in poses]))


def inside_polygon_m(point: np.ndarray, hull: np.ndarray) -> float:
    """Signed distance [m] of ``point`` (2,) inside the convex polygon ``hull`` (M, 2,
    counter-clockwise): the smallest distance to an edge's line, negative outside."""
    edges = np.roll(hull, -1, axis=0) - hull
    normals = np.column_stack([edges[:, 1], -edges[:, 0]]) / np.linalg.norm(edges, axis=1)[:, None]  # outward
    return -float(np.max(np.einsum("ij,ij->i", np.asarray(point, dtype=float)[None, :] - hull, normals)))


# On lists of (x, y): a double support's 8 corners are too few for numpy's per-call overhead to
# pay (the MPC builds ≈ 4 such polygons at 125 Hz; ≈ 10× faster this way).
def hull_of(points: list) -> list:
    """:func:`convex_hull` on a list of (x, y) tuples, returning a list."""
    pts = sorted((round(x, 12), round(y, 12)) for x, y in points)
    if len(pts) <= 2:
        return pts

    def half(sequence):
        chain = []
        for p in sequence:
            while len(chain) >= 2 and ((chain[-1][0] - chain[-2][0]) * (p[1] - chain[-2][1])
                                       - (chain[-1][1] - chain[-2][1]) * (p[0] - chain[-2][0])) <= 0:
                chain.pop()
            chain.append(p)
        return chain
    lower, upper = half(pts), half(reversed(pts))
    return lower[:-1] + upper[:-1]
