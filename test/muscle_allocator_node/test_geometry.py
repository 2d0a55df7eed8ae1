"""Via-point paths: length, lengthening velocity and moment arms against MuJoCo's own spatial
tendon through the same points and against finite differences of the length."""

import mujoco
import numpy as np
import pytest

from muscle_allocator_node.geometry import ViaPoint, ViaPointPath

ARM = """<mujoco><worldbody>
  <body name="upper"><joint name="shoulder" type="hinge" axis="0 1 0"/>
    <geom type="capsule" fromto="0 0 0 0 0 -0.3" size="0.03" mass="2"/>
    <site name="s0" pos="0.03 0 -0.02"/><site name="s1" pos="0.04 0 -0.2"/>
    <body name="fore" pos="0 0 -0.3"><joint name="elbow" type="hinge" axis="0 1 0"/>
      <geom type="capsule" fromto="0 0 0 0 0 -0.25" size="0.025" mass="1"/>
      <site name="s2" pos="0.02 0 -0.04"/><site name="s3" pos="0.015 0 -0.12"/>
    </body>
  </body>
  <site name="origin" pos="0.05 0 0.08"/>
</worldbody>
<tendon><spatial name="biarticular"><site site="origin"/><site site="s1"/><site site="s2"/><site site="s3"/></spatial></tendon>
</mujoco>"""


@pytest.fixture(scope="module")
def arm():
    model = mujoco.MjModel.from_xml_string(ARM)
    points = [ViaPoint("world", (0.05, 0, 0.08)), ViaPoint("upper", (0.04, 0, -0.2)),
              ViaPoint("fore", (0.02, 0, -0.04)), ViaPoint("fore", (0.015, 0, -0.12))]
    return model, ViaPointPath(model, points)


def test_length_velocity_and_moment_arms_match_mujoco_and_finite_differences(arm):
    model, path = arm
    data = mujoco.MjData(model)
    rng = np.random.default_rng(9)
    for _ in range(30):
        data.qpos[:] = rng.uniform(-1.2, 1.2, model.nq)
        data.qvel[:] = rng.uniform(-2.0, 2.0, model.nv)
        mujoco.mj_forward(model, data)
        state = path.state(data)
        assert state.length_m == pytest.approx(data.ten_length[0], abs=1e-12)
        assert state.velocity_m_s == pytest.approx(data.ten_velocity[0], abs=1e-10)
        np.testing.assert_allclose(state.moment_arms_m, -data.ten_J.reshape(model.ntendon, model.nv)[0], atol=1e-10)  # r = −∂L/∂q
        # Finite differences of the length, joint by joint.
        for k in range(model.nv):
            q = data.qpos.copy()
            lengths = []
            for h in (1e-6, -1e-6):
                data.qpos[:] = q
                data.qpos[k] += h
                mujoco.mj_kinematics(model, data)
                lengths.append(path.state(data).length_m)
            data.qpos[:] = q
            mujoco.mj_forward(model, data)
            assert -(lengths[0] - lengths[1]) / 2e-6 == pytest.approx(state.moment_arms_m[k], abs=1e-7)


def test_bad_paths_are_refused(arm):
    model, _ = arm
    with pytest.raises(ValueError, match="unknown body"):
        ViaPointPath(model, [ViaPoint("world", (0, 0, 0)), ViaPoint("hand", (0, 0, 0))])
    with pytest.raises(ValueError, match="two points"):
        ViaPointPath(model, [ViaPoint("world", (0, 0, 0))])
