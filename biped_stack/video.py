"""The demo's video: offscreen MuJoCo frames of a run, tracking the pelvis, written as an MP4."""

from __future__ import annotations

import time
from pathlib import Path

import mujoco

VIDEO_FPS = 30


class WalkVideo:
    """Offscreen MuJoCo frames at :data:`VIDEO_FPS`, tracking the pelvis, into an MP4; silently
    disabled (with one message) where offscreen rendering or ffmpeg is unavailable."""

    def __init__(self, model, data, path: Path):
        self.data, self.path, self.frames, self.next_s = data, path, [], 0.0
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

    def maybe_capture(self, now_s: float) -> None:
        if self.renderer is None or now_s < self.next_s:
            return
        started = time.perf_counter()
        self.next_s += 1.0 / VIDEO_FPS
        self.renderer.update_scene(self.data, self.camera)
        self.frames.append(self.renderer.render().copy())
        self.busy_s += time.perf_counter() - started

    def close(self) -> None:
        if self.renderer is None or not self.frames:
            return
        try:
            import imageio.v2 as imageio
            imageio.mimwrite(self.path, self.frames, fps=VIDEO_FPS, macro_block_size=1)
        except Exception as error:  # noqa: BLE001 — a missing encoder only costs the video
            print(f"  no video: could not encode ({error})")
