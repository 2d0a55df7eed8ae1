"""Rotation helpers: group laws and round trips on seeded random samples."""

import numpy as np
import pytest

from biped_common import rotations as rot

RNG = np.random.default_rng(3)
QUATS = [rot.quat_normalize(RNG.normal(size=4)) for _ in range(50)]


@pytest.mark.parametrize("q", QUATS)
def test_quaternion_matrix_round_trip(q):
    m = rot.quat_to_matrix(q)
    np.testing.assert_allclose(m @ m.T, np.eye(3), atol=1e-12)
    assert np.linalg.det(m) == pytest.approx(1.0)
    np.testing.assert_allclose(rot.matrix_to_quat(m), q, atol=1e-12)


def test_product_matches_matrix_product():
    for a, b in zip(QUATS, QUATS[1:]):
        np.testing.assert_allclose(rot.quat_to_matrix(rot.quat_multiply(a, b)),
                                   rot.quat_to_matrix(a) @ rot.quat_to_matrix(b), atol=1e-12)
        np.testing.assert_allclose(rot.quat_to_matrix(rot.quat_multiply(a, rot.quat_conjugate(a))),
                                   np.eye(3), atol=1e-12)


def test_exp_log_and_rpy_round_trip():
    for _ in range(50):
        w = RNG.normal(size=3)
        w *= RNG.uniform(0, np.pi - 1e-3) / np.linalg.norm(w)
        np.testing.assert_allclose(rot.so3_log(rot.so3_exp(w)), w, atol=1e-9)
        rpy = RNG.uniform([-np.pi, -1.5, -np.pi], [np.pi, 1.5, np.pi])
        np.testing.assert_allclose(rot.matrix_to_rpy(rot.rpy_to_matrix(*rpy)), rpy, atol=1e-9)


def test_order_conversions_and_skew():
    q = QUATS[0]
    np.testing.assert_array_equal(rot.quat_xyzw_to_wxyz(rot.quat_wxyz_to_xyzw(q)), q)
    a, b = RNG.normal(size=3), RNG.normal(size=3)
    np.testing.assert_allclose(rot.skew(a) @ b, np.cross(a, b))
    with pytest.raises(ValueError):
        rot.quat_normalize(np.zeros(4))


def test_batched_matrices_match():
    batch = rot.quats_to_matrices(np.array(QUATS))
    for q, m in zip(QUATS, batch):
        np.testing.assert_allclose(m, rot.quat_to_matrix(q), atol=1e-15)


def test_rotation_vector_to_quat_is_the_quaternion_of_so3_exp():
    rng = np.random.default_rng(11)
    for scale in (1e-9, 1e-5, 1e-3, 0.3, 2.0):
        for _ in range(20):
            v = rng.normal(size=3) * scale
            q = rot.rotation_vector_to_quat(v)
            if np.linalg.norm(v) > np.pi:  # the other hemisphere: the same rotation
                q = -q
            np.testing.assert_allclose(q, rot.matrix_to_quat(rot.so3_exp(v)), atol=1e-15)
    np.testing.assert_array_equal(rot.rotation_vector_to_quat(np.zeros(3)), [1.0, 0.0, 0.0, 0.0])
