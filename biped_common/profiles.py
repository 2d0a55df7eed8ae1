"""Time-scaling profiles shared by the planners (dimensionless)."""

from __future__ import annotations

import numpy as np


def minimum_jerk(tau):
    """The minimum-jerk time scaling s(τ) = 10τ³ − 15τ⁴ + 6τ⁵ on τ clipped to [0, 1], with ds/dτ
    and d²s/dτ² (zero at both ends; Flash & Hogan 1985): arrays like ``tau``."""
    t = np.clip(np.asarray(tau, dtype=float), 0.0, 1.0)
    return (t**3 * (10 - 15 * t + 6 * t * t), 30 * t * t * (1 - t) ** 2, 60 * t * (1 - t) * (1 - 2 * t))
