"""The demo's video: offscreen MuJoCo frames of a run, tracking the pelvis, written as an MP4,
with the planned pose (:mod:`biped_stack.ghost`) drawn as a translucent ghost beside the robot."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Callable

import mujoco
import numpy as np

from biped_common.rotations import quats_yaw
from biped_stack.ghost import GHOST_BESIDE_M

VIDEO_FPS = 30
GHOST_RGBA = np.array([1.0, 0.55, 0.1, 0.4], dtype=np.float32)  # translucent orange: apart from the robot and floor


class WalkVideo:
    """Offscreen MuJoCo frames at :data:`VIDEO_FPS`, tracking the pelvis, into an MP4; silently
    disabled (with one message) where offscreen rendering or ffmpeg is unavailable."""

    def __init__(self, model, data, path: Path):
        self.model, self.data, self.path, self.frames, self.next_s = model, data, path, [], 0.0
        self.ghost_data = mujoco.MjData(model)
        self.ghost_option, self.ghost_perturb = mujoco.MjvOption(), mujoco.MjvPerturb()
        self.busy_s = 0.0  # wall time spent rendering (excluded from the real-time factor)
        try:
            self.renderer = mujoco.Renderer(model, 480, 640)
            self.camera = mujoco.MjvCamera()
            self.camera.type = mujoco.mjtCamera.mjCAMERA_TRACKING
            self.camera.trackbodyid = 1
            self.camera.distance, self.camera.elevation, self.camera.azimuth = 2.2, -15.0, 135.0
        except Exception as error:  # noqa: BLE001 — any GL failure means "no video here"
            print(f"  no video: offscreen rendering unavailable ({error})")
            self.renderer = None

    def maybe_capture(self, now_s: float, ghost_qpos: Callable[[], np.ndarray | None] | None = None) -> None:
        """A frame if one is due at sim time ``now_s``; ``ghost_qpos`` (called only then) gives
        the planned pose's qpos to draw over the robot, or None for no ghost."""
        if self.renderer is None or now_s < self.next_s:
            return
        started = time.perf_counter()
        self.next_s += 1.0 / VIDEO_FPS
        self.renderer.update_scene(self.data, self.camera)
        qpos = ghost_qpos() if ghost_qpos is not None else None
        if qpos is not None and np.all(np.isfinite(qpos)):
            self._add_ghost(qpos)
        self.frames.append(self.renderer.render().copy())
        self.busy_s += time.perf_counter() - started

    def _add_ghost(self, qpos: np.ndarray) -> None:
        """The robot's geoms once more at ``qpos`` moved :data:`GHOST_BESIDE_M` to its left,
        translucent, into the scene just updated."""
        self.ghost_data.qpos[:] = qpos
        yaw = float(quats_yaw(qpos[None, 3:7])[0])
        self.ghost_data.qpos[:2] += GHOST_BESIDE_M * np.array([-np.sin(yaw), np.cos(yaw)])
        mujoco.mj_kinematics(self.model, self.ghost_data)
        scene = self.renderer.scene
        first = scene.ngeom
        mujoco.mjv_addGeoms(self.model, self.ghost_data, self.ghost_option, self.ghost_perturb,
                            mujoco.mjtCatBit.mjCAT_DYNAMIC, scene)
        for i in range(first, scene.ngeom):
            scene.geoms[i].rgba[:] = GHOST_RGBA
            scene.geoms[i].castshadow = 0  # a second shadow would read as a second robot

    def close(self) -> None:
        if self.renderer is None or not self.frames:
            return
        try:
            import imageio.v2 as imageio
            imageio.mimwrite(self.path, self.frames, fps=VIDEO_FPS, macro_block_size=1)
        except Exception as error:  # noqa: BLE001 — a missing encoder only costs the video
            print(f"  no video: could not encode ({error})")
