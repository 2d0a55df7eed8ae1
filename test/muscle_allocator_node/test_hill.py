"""Hill curves: our model with MuJoCo's curve family reproduces MuJoCo's muscle actuators, and the
De Groote 2016 curves have their published shape."""

import mujoco
import numpy as np
import pytest

from muscle_allocator_node.hill import (DE_GROOTE_2016, MujocoMuscle, MujocoShape, de_groote_force_length,
                                        de_groote_force_velocity, de_groote_passive_force_length,
                                        mujoco_actuator_force)


def random_muscle(rng):
    shape = MujocoShape(rng.uniform(0.3, 0.9), rng.uniform(1.1, 2.0), rng.uniform(0.5, 3.0), rng.uniform(0.5, 2.0),
                        rng.uniform(1.05, 1.8))
    force = float(rng.choice([rng.uniform(10.0, 2000.0), -1.0]))  # negative: F_max = scale / acc0
    lengths = np.sort(rng.uniform(0.05, 0.5, 2))
    return MujocoMuscle(force, (lengths[0], lengths[1]), (rng.uniform(0.5, 0.9), rng.uniform(1.0, 1.3)), shape,
                        rng.uniform(50.0, 300.0), rng.uniform(0.1, 50.0))


def test_reproduces_mujocos_muscle_functions_to_1e_9_relative():
    rng = np.random.default_rng(7)
    for _ in range(3000):
        m = random_muscle(rng)
        span = m.length_range_m[1] - m.length_range_m[0]
        length = rng.uniform(m.length_range_m[0] - 0.3 * span, m.length_range_m[1] + 0.5 * span)
        velocity = rng.uniform(-1.5, 1.5) * m.optimal_length_m * m.shape.vmax
        activation = rng.uniform()
        prm = np.array([*m.normalized_range, m.force, m.scale, m.shape.lmin, m.shape.lmax, m.shape.vmax,
                        m.shape.fpmax, m.shape.fvmax])
        lengthrange = np.array(m.length_range_m)
        expected = (activation * mujoco.mju_muscleGain(length, velocity, lengthrange, m.acc0, prm)
                    + mujoco.mju_muscleBias(length, lengthrange, m.acc0, prm))
        ours = float(mujoco_actuator_force(m, activation, length, velocity))
        assert ours == pytest.approx(expected, rel=1e-9, abs=1e-12)


def test_reproduces_a_compiled_mujoco_muscle_actuator():
    xml = """<mujoco><worldbody><body><joint name="hinge" type="hinge" axis="0 1 0"/>
      <geom type="capsule" size="0.02" fromto="0 0 0 0.3 0 0" mass="1"/>
      <site name="insertion" pos="0.1 0 0.02"/></body><site name="origin" pos="-0.2 0 0.05"/></worldbody>
      <tendon><spatial name="path"><site site="origin"/><site site="insertion"/></spatial></tendon>
      <actuator><muscle name="m" tendon="path" force="300" lmin="0.6" lmax="1.5"/></actuator></mujoco>"""
    model = mujoco.MjModel.from_xml_string(xml)
    data = mujoco.MjData(model)
    muscle = MujocoMuscle.from_model(model, 0)
    rng = np.random.default_rng(3)
    for _ in range(200):
        data.qpos[0], data.qvel[0], data.act[0] = rng.uniform(-1.0, 1.0), rng.uniform(-3.0, 3.0), rng.uniform()
        mujoco.mj_forward(model, data)
        ours = mujoco_actuator_force(muscle, data.act[0], data.actuator_length[0], data.actuator_velocity[0])
        assert float(ours) == pytest.approx(data.actuator_force[0], rel=1e-9, abs=1e-12)


def test_de_groote_curves_have_their_published_shape():
    assert de_groote_force_length(1.0) == pytest.approx(1.0, abs=0.01)  # peak ≈ 1 at the optimal length
    lengths = np.linspace(0.4, 1.8, 281)
    assert abs(lengths[np.argmax(de_groote_force_length(lengths))] - 1.0) < 0.05
    assert de_groote_force_velocity(0.0) == pytest.approx(1.0, abs=0.01)        # isometric
    assert de_groote_force_velocity(-1.0) == pytest.approx(0.0, abs=0.02)       # at maximal shortening
    assert 1.5 < de_groote_force_velocity(1.0) < 1.9                           # eccentric plateau ≈ 1.8
    assert np.all(np.diff(de_groote_force_velocity(np.linspace(-1, 1, 101))) > 0)
    assert de_groote_passive_force_length(1.0) == pytest.approx(0.0)
    assert de_groote_passive_force_length(1.6) == pytest.approx(1.0)            # e0 = 0.6 strain → F_max
    assert DE_GROOTE_2016.name == "de_groote_2016"


def test_compliant_tendon_equilibrium_converges_everywhere_in_the_valid_range():
    """Property: for random units, activations, lengths and fibre velocities, the equilibrium is
    found and balances tendon and fibre force to 1e-9 F_max; the force grows with activation."""
    from muscle_allocator_node.hill import MuscleTendonUnit, de_groote_tendon_force_length
    rng = np.random.default_rng(12)
    taut = 0
    for _ in range(400):
        unit = MuscleTendonUnit(rng.uniform(100, 3000), rng.uniform(0.03, 0.15), rng.uniform(0.02, 0.4),
                                rng.uniform(0.0, 0.5))
        rest = unit.tendon_slack_length_m + unit.optimal_fiber_length_m * np.cos(unit.pennation_at_optimal_rad)
        length = rest + rng.uniform(-0.4, 0.5) * unit.optimal_fiber_length_m
        velocity = rng.uniform(-0.8, 0.8) * unit.max_contraction_velocity * unit.optimal_fiber_length_m
        a = rng.uniform()
        fiber, force = unit.compliant_equilibrium(a, length, velocity)
        height = unit.optimal_fiber_length_m * np.sin(unit.pennation_at_optimal_rad)
        along = np.sqrt(fiber**2 - height**2)
        tendon = unit.max_isometric_force_n * de_groote_tendon_force_length((length - along) / unit.tendon_slack_length_m)
        assert force == pytest.approx(float(tendon), abs=1e-9 * unit.max_isometric_force_n)
        cos_alpha = along / fiber
        l_norm, v_norm = fiber / unit.optimal_fiber_length_m, velocity / (unit.max_contraction_velocity * unit.optimal_fiber_length_m)
        fibre = unit.max_isometric_force_n * cos_alpha * (a * de_groote_force_length(l_norm) * de_groote_force_velocity(v_norm)
                                                          + de_groote_passive_force_length(l_norm))
        if force > 0.0:
            taut += 1
            assert force == pytest.approx(float(fibre), abs=1e-6 * unit.max_isometric_force_n)
        else:  # slack: the fibre would not pull even with the tendon at its slack length
            assert fibre <= 1e-9 * unit.max_isometric_force_n
        assert unit.compliant_equilibrium(min(1.0, a + 0.2), length, velocity)[1] >= force - 1e-9
    assert taut > 300  # the property is mostly exercised on taut units
