"""Support polygons: hulls contain the soles, half-planes are outward and padded to a fixed count."""

import numpy as np
import pytest

from biped_common.robot_model import FootGeometry
from mpc_node.support import MAX_EDGES, SupportSchedule, convex_hull, half_planes, sole_corners, support_polygons

FOOT = FootGeometry(heel_x_m=-0.06, toe_x_m=0.12, half_width_m=0.045)


def test_hull_of_two_soles_contains_every_corner_and_is_counter_clockwise():
    rng = np.random.default_rng(0)
    for _ in range(200):
        left = np.array([rng.uniform(-0.2, 0.2), rng.uniform(0.0, 0.2), rng.uniform(-1, 1)])
        right = np.array([rng.uniform(-0.2, 0.2), rng.uniform(-0.2, 0.0), rng.uniform(-1, 1)])
        points = np.vstack([sole_corners(left, FOOT, 0.0), sole_corners(right, FOOT, 0.0)])
        hull = convex_hull(points)
        normals, offsets = half_planes(hull)
        assert normals.shape == (MAX_EDGES, 2) and offsets.shape == (MAX_EDGES,)
        np.testing.assert_allclose(np.linalg.norm(normals, axis=1), 1.0)
        assert np.all(points @ normals.T <= offsets + 1e-9)  # every corner inside
        assert np.all(hull.mean(axis=0) @ normals.T < offsets)  # the centroid strictly inside
        edges = np.roll(hull, -1, axis=0) - hull
        cross = edges[:, 0] * np.roll(edges, -1, axis=0)[:, 1] - edges[:, 1] * np.roll(edges, -1, axis=0)[:, 0]
        assert np.all(cross > 0)  # counter-clockwise, strictly convex


def test_single_support_is_the_shrunk_sole_and_no_support_is_an_error():
    times = np.array([0.0, 0.1])
    pose = np.array([[0.3, 0.1, 0.5], [0.3, 0.1, 0.5]])
    schedule = SupportSchedule(times, np.array([True, False]), np.array([False, False]), pose, pose)
    with pytest.raises(ValueError, match="no foot in stance at t = 0.100"):
        support_polygons(schedule, FOOT, 0.01)
    schedule = SupportSchedule(times[:1], np.array([True]), np.array([False]), pose[:1], pose[:1])
    normals, offsets, centre = support_polygons(schedule, FOOT, 0.01)
    corners = sole_corners(pose[0], FOOT, 0.01)
    np.testing.assert_allclose(np.max(corners @ normals[0].T - offsets[0], axis=0), 0.0, atol=1e-12)
    np.testing.assert_allclose(centre[0], corners.mean(axis=0))


def test_schedule_rejects_bad_shapes_and_nan():
    with pytest.raises(ValueError, match="left_pose"):
        SupportSchedule(np.zeros(2), np.ones(2, bool), np.ones(2, bool), np.full((2, 3), np.nan), np.zeros((2, 3)))
    with pytest.raises(ValueError, match="right_stance"):
        SupportSchedule(np.zeros(2), np.ones(2, bool), np.ones(3, bool), np.zeros((2, 3)), np.zeros((2, 3)))
