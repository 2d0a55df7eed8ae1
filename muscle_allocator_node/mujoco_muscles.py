"""Muscle state of a MuJoCo musculoskeletal model, in the allocator's terms.

MuJoCo's muscle actuators act along tendons (or joints); at the current state MuJoCo knows each
actuator's length, velocity and moment arms (``actuator_moment`` = ∂length/∂q). Muscles pull, so
the allocator's moment-arm matrix is R = −actuator_momentᵀ (dofs × muscles): the classic
r = −∂l/∂q, positive when shortening the muscle turns the joint positively. The forces come from
our Hill model with MuJoCo's curve family (:func:`hill.mujoco_active_passive`), which reproduces
MuJoCo's actuator force exactly (tested), so an allocation computed here is what MuJoCo applies.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import mujoco
import numpy as np

from biped_common.resources import myo_sim_models_dir
from muscle_allocator_node.hill import MujocoMuscle, mujoco_active_passive


def myo_model_path(relative: str) -> Path:
    """A model file of the ``myo-sim`` wheel, e.g. ``legacy/elbow/myoelbow_1dof6muscles.xml``
    (relative to its ``models`` folder); FileNotFoundError with the folder when absent."""
    root = myo_sim_models_dir()
    path = root / relative
    if not path.is_file():
        raise FileNotFoundError(f"no model {relative!r} under {root}")
    return path


_MYOLEGS_TOP = """<mujoco model="myolegs">
  <compiler angle="radian" meshdir="meshes" texturedir="textures"/>
  <include file="assets/myolegs_assets.xml"/>
  <worldbody>
    <body name="root" pos="0 0 1">
      <include file="assets/myolegs_chain.xml"/>
      <freejoint name="root"/>
    </body>
  </worldbody>
  <include file="assets/myolegs_tendon.xml"/>
  <include file="assets/myolegs_muscle.xml"/>
</mujoco>
"""


def load_myolegs() -> mujoco.MjModel:
    """myo-sim's MyoLeg (Rajagopal 2016: 80 muscles, 29 joints with the knee couplings, a free
    pelvis). The wheel ships its parts only (assets, chain, tendons, muscles); they are composed
    here the way myo-sim's own scenes do, in a temporary folder of links."""
    import os
    import tempfile
    leg_assets = myo_model_path("leg/assets/myolegs_chain.xml").parent
    models = leg_assets.parent.parent
    with tempfile.TemporaryDirectory(prefix="myolegs_") as folder:
        assets = Path(folder) / "assets"
        assets.mkdir()
        for item in leg_assets.iterdir():
            os.symlink(item, assets / item.name)
        # Included files resolve meshes next to themselves: give them the wheel's mesh folders.
        os.symlink(models / "meshes", assets / "meshes")
        os.symlink(models / "textures", assets / "textures")
        top = Path(folder) / "myolegs.xml"
        top.write_text(_MYOLEGS_TOP)
        return mujoco.MjModel.from_xml_path(str(top))


@dataclass(frozen=True)
class MuscleState:
    """The allocator's inputs at one state: moment arms R (dofs × muscles) [m], each muscle's
    pulling force at full activation and its passive force [N] (muscles,)."""

    moment_arms: np.ndarray
    active_force: np.ndarray
    passive_force: np.ndarray


class MujocoMuscles:
    """The muscle actuators of a compiled model (every actuator must be a muscle)."""

    def __init__(self, model: mujoco.MjModel):
        muscle_gain = int(mujoco.mjtGain.mjGAIN_MUSCLE)
        others = [model.actuator(i).name for i in range(model.nu) if int(model.actuator_gaintype[i]) != muscle_gain]
        if others:
            raise ValueError(f"not muscle actuators: {', '.join(others)}")
        self.model = model
        self.names = tuple(model.actuator(i).name for i in range(model.nu))
        self.muscles = tuple(MujocoMuscle.from_model(model, i) for i in range(model.nu))
        self.peak_forces_n = np.array([m.peak_force_n for m in self.muscles])  # F_max per muscle

    def state(self, data: mujoco.MjData) -> MuscleState:
        """The allocator's inputs at ``data``'s state (after ``mj_forward`` or a step's kinematics)."""
        moment = _dense_moment(self.model, data)  # (muscles, dofs): ∂length/∂q
        active, passive = np.empty(self.model.nu), np.empty(self.model.nu)
        for i, muscle in enumerate(self.muscles):
            active[i], passive[i] = mujoco_active_passive(muscle, data.actuator_length[i], data.actuator_velocity[i])
        return MuscleState(-moment.T, active, passive)


def _dense_moment(model: mujoco.MjModel, data: mujoco.MjData) -> np.ndarray:
    """``actuator_moment`` as a dense (nu, nv) array (MuJoCo ≥ 3.2 stores it compressed)."""
    if data.actuator_moment.shape == (model.nu, model.nv):
        return np.array(data.actuator_moment)
    dense = np.zeros((model.nu, model.nv))
    mujoco.mju_sparse2dense(dense, data.actuator_moment, data.moment_rownnz, data.moment_rowadr, data.moment_colind)
    return dense


SHORTCUTS = {"myoelbow": "legacy/elbow/myoelbow_1dof6muscles.xml"}


def load_model(name_or_path: str) -> mujoco.MjModel:
    """A MuJoCo model: ``myoelbow``, ``myolegs`` (myo-sim) or an MJCF file path."""
    if name_or_path == "myolegs":
        return load_myolegs()
    if name_or_path in SHORTCUTS:
        return mujoco.MjModel.from_xml_path(str(myo_model_path(SHORTCUTS[name_or_path])))
    path = Path(name_or_path)
    if not path.is_file():
        raise FileNotFoundError(f"no model {name_or_path!r} (a file, or one of myoelbow, myolegs)")
    return mujoco.MjModel.from_xml_path(str(path))
