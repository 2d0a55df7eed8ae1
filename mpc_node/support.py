"""Support polygons of a contact schedule, as half-planes on the ground (world frame, metres).

A foot in stance supports the CoP over its sole rectangle (heel to toe, ± half width, shrunk by
a safety margin); in double support the polygon is the convex hull of both rectangles. Every
polygon is returned as exactly :data:`MAX_EDGES` half-planes a·p ≤ b (edges repeated to pad), so
the MPC's constraint matrix keeps one sparsity pattern from solve to solve (OSQP warm start and
in-place updates need that).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from biped_common.robot_model import FootGeometry
from biped_common.support_polygon import convex_hull, hull_of, sole_corners  # noqa: F401 (sole_corners, convex_hull: this module's API too)

MAX_EDGES = 8  # the hull of two rectangles has at most 8 edges


@dataclass(frozen=True)
class SupportSchedule:
    """Contacts over a preview: times [s] (N,), per foot the stance flag (N,) and the sole's planar
    pose x, y [m], yaw [rad] (N, 3) in the world."""

    times_s: np.ndarray
    left_stance: np.ndarray
    right_stance: np.ndarray
    left_pose: np.ndarray
    right_pose: np.ndarray

    def __post_init__(self):
        n = np.asarray(self.times_s).size
        for name in ("left_stance", "right_stance"):
            if np.asarray(getattr(self, name)).shape != (n,):
                raise ValueError(f"{name} must have shape ({n},)")
        for name in ("left_pose", "right_pose"):
            pose = np.asarray(getattr(self, name), dtype=float)
            if pose.shape != (n, 3) or not np.all(np.isfinite(pose)):
                raise ValueError(f"{name} must be finite with shape ({n}, 3)")
        if not np.all(np.isfinite(self.times_s)):
            raise ValueError("times_s must be finite")


def half_planes(polygon: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Half-planes (A (MAX_EDGES, 2), b (MAX_EDGES,)) with A p ≤ b inside a CCW convex polygon;
    outward unit normals; padded by repeating the first edge."""
    normals, offsets = _half_planes(np.asarray(polygon, dtype=float).tolist())
    return np.array(normals), np.array(offsets)


# On lists of (x, y), as biped_common.support_polygon.hull_of (numpy's per-call overhead does not
# pay for a double support's 8 corners).
def _half_planes(polygon: list) -> tuple[list, list]:
    if len(polygon) > MAX_EDGES:
        raise ValueError(f"support polygon with {len(polygon)} edges (at most {MAX_EDGES})")
    normals, offsets = [], []
    for (x0, y0), (x1, y1) in zip(polygon, polygon[1:] + polygon[:1]):
        length = math.hypot(x1 - x0, y1 - y0)
        nx, ny = (y1 - y0) / length, -(x1 - x0) / length
        normals.append((nx, ny))
        offsets.append(nx * x0 + ny * y0)
    pad = MAX_EDGES - len(normals)
    return normals + normals[:1] * pad, offsets + offsets[:1] * pad


def _corners_many(poses: np.ndarray, foot: FootGeometry, margin_m: float) -> np.ndarray:
    """:func:`sole_corners` for poses (n, 3) → (n, 4, 2)."""
    x0, x1 = foot.heel_x_m + margin_m, foot.toe_x_m - margin_m
    w = max(foot.half_width_m - margin_m, 1e-3)
    local = np.array([[x0, -w], [x1, -w], [x1, w], [x0, w]])
    c, s = np.cos(poses[:, 2])[:, None], np.sin(poses[:, 2])[:, None]
    return np.stack([c * local[:, 0] - s * local[:, 1], s * local[:, 0] + c * local[:, 1]], axis=-1) + poses[:, None, :2]


def support_polygons(schedule: SupportSchedule, foot: FootGeometry, margin_m: float = 0.01,
                     cache: dict | None = None):
    """Per schedule time: half-planes (N, MAX_EDGES, 2), (N, MAX_EDGES) and the polygon's centroid
    (N, 2) (the CoP reference). A time with no foot in stance (a planner flight phase, which
    walking styles cannot represent) raises ValueError. Single supports are computed for all
    times at once; double supports through the hull (repeated polygons computed once; pass a
    ``cache`` dict to remember them across calls — it is emptied when it grows past 512)."""
    left, right = np.asarray(schedule.left_stance, bool), np.asarray(schedule.right_stance, bool)
    none = ~(left | right)
    if none.any():
        raise ValueError(f"no foot in stance at t = {schedule.times_s[np.argmax(none)]:.3f} s")
    corners = {"left": _corners_many(np.asarray(schedule.left_pose, float), foot, margin_m),
               "right": _corners_many(np.asarray(schedule.right_pose, float), foot, margin_m)}
    # Single support: the sole rectangle (counter-clockwise), padded by repeating its first edge.
    single = np.where(left[:, None, None], corners["left"], corners["right"])
    edges = np.roll(single, -1, axis=1) - single
    rect_normals = np.stack([edges[..., 1], -edges[..., 0]], axis=-1)
    rect_normals /= np.linalg.norm(rect_normals, axis=-1, keepdims=True)
    rect_offsets = np.einsum("nij,nij->ni", rect_normals, single)
    pad = MAX_EDGES - 4
    normals = np.concatenate([rect_normals, np.repeat(rect_normals[:, :1], pad, axis=1)], axis=1)
    offsets = np.concatenate([rect_offsets, np.repeat(rect_offsets[:, :1], pad, axis=1)], axis=1)
    centres = single.mean(axis=1)
    cache = {} if cache is None else cache
    if len(cache) > 512:
        cache.clear()
    double = np.flatnonzero(left & right)
    if double.size:
        poses = np.hstack([np.asarray(schedule.left_pose, float)[double],
                           np.asarray(schedule.right_pose, float)[double]]).tolist()
        ds_corners = np.concatenate([corners["left"][double], corners["right"][double]], axis=1).tolist()
        for k, pose_pair, points in zip(double.tolist(), poses, ds_corners):
            key = tuple(pose_pair)  # a double support repeats over the nodes it spans (and standing, over calls)
            if key not in cache:
                hull = hull_of(points)
                hull_normals, hull_offsets = _half_planes(hull)
                centre = (sum(x for x, _ in hull) / len(hull), sum(y for _, y in hull) / len(hull))
                cache[key] = (hull_normals, hull_offsets, centre)
            normals[k], offsets[k], centres[k] = cache[key]
    return normals, offsets, centres
