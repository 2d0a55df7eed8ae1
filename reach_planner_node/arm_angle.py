"""The human-like arm angle φ for a hand pose (source 002): an optimization that defines it, a
training set generated from it, an MLP that learns it, and a least-squares baseline.

No motion-capture data ships with this project, so the arm angle a human would choose is
*defined* by a stated criterion and computed by optimization: the arm angle that minimizes the
joint torques holding the arm against gravity, Σ τ_g,i(q)² over the seven joints, within the
joint limits (the minimum-effort family of 002's refs. [7], [11]; segment masses and centres of
mass from Winter 2009, "Biomechanics and Motor Control of Human Movement", table 4.1, for a
70 kg body: upper arm 2.8 %, forearm 1.6 %, hand 0.6 % of body mass, at 43.6 %, 43.0 %, 50.6 % of
the segment from its proximal end). Gravity is −z of the arm's base frame.

The model maps m = [x, y, z, α, β, λ, d1, d2] (hand position [m], hand orientation as Z-Y-X
Euler angles [rad], upper-arm and forearm lengths [m]; 002's eq. 4) to φ [rad]. The MLP is trained
with scikit-learn; at run time its weights are evaluated in numpy (microseconds: the point of
learning the map is to be much faster than the optimization).
"""

from __future__ import annotations

import json
import math
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from biped_common.rotations import matrix_to_rpy, wrap_angle
from reach_planner_node.arm import Arm, IkFailure

MODEL_FORMAT = "biped_stack.arm_angle_mlp/1"
BODY_MASS_KG = 70.0
SEGMENTS = ((0.028, 0.436), (0.016, 0.430), (0.006, 0.506))  # (mass fraction, CoM fraction): upper arm, forearm, hand
GRAVITY = np.array([0.0, 0.0, -9.81])
SEARCH_STEP_RAD = math.radians(10.0)
FEATURES = ("x", "y", "z", "alpha", "beta", "lambda", "upper_arm_m", "forearm_m")


def gravity_torques(arm: Arm, joints) -> np.ndarray:
    """Joint torques [N·m] (7,) that hold the arm still against gravity at ``joints``:
    τ = −Σ_segments J_com,segᵀ m_seg g (= ∂V/∂q, tested against the potential energy)."""
    transforms = arm.transforms(joints)
    origins = [np.zeros(3)] + [t[:3, 3] for t in transforms]
    axes = [np.array([0.0, 0.0, 1.0])] + [t[:3, 2] for t in transforms]
    shoulder, elbow, wrist, hand = origins[0], origins[3], origins[5], origins[7]
    torque = np.zeros(7)
    for (mass_fraction, com_fraction), (start, end), last_joint in zip(
            SEGMENTS, ((shoulder, elbow), (elbow, wrist), (wrist, hand)), (3, 5, 7)):
        com = start + com_fraction * (end - start)
        weight = mass_fraction * BODY_MASS_KG * GRAVITY
        for i in range(last_joint):
            torque[i] -= np.cross(axes[i], com - origins[i]) @ weight
    return torque


def effort(arm: Arm, position, rotation, arm_angle: float) -> float:
    """Σ τ_g² of the posture with this arm angle; inf when it is outside the joint limits."""
    try:
        joints = arm.inverse(position, rotation, arm_angle)
    except IkFailure:
        return math.inf
    return float(np.sum(gravity_torques(arm, joints) ** 2))


def optimal_arm_angle(arm: Arm, position, rotation) -> float | None:
    """The criterion's arm angle [rad]: a 10° scan of (−π, π], then golden-section refinement
    around the best feasible sample (to 1e-6 rad); None when no arm angle is feasible."""
    grid = np.arange(-math.pi + SEARCH_STEP_RAD, math.pi + 1e-9, SEARCH_STEP_RAD)
    costs = np.array([effort(arm, position, rotation, phi) for phi in grid])
    if not np.any(np.isfinite(costs)):
        return None
    best = int(np.argmin(costs))
    low, high = grid[best] - SEARCH_STEP_RAD, grid[best] + SEARCH_STEP_RAD
    ratio = (math.sqrt(5) - 1) / 2
    a, b = high - ratio * (high - low), low + ratio * (high - low)
    fa, fb = effort(arm, position, rotation, a), effort(arm, position, rotation, b)
    while high - low > 1e-6:
        if fa <= fb:
            high, b, fb = b, a, fa
            a = high - ratio * (high - low)
            fa = effort(arm, position, rotation, a)
        else:
            low, a, fa = a, b, fb
            b = low + ratio * (high - low)
            fb = effort(arm, position, rotation, b)
    phi = 0.5 * (low + high)
    if effort(arm, position, rotation, phi) > costs[best]:  # the bracket's edge was better
        phi = float(grid[best])
    return float(wrap_angle(float(phi)))


def features(position, rotation, arm: Arm) -> np.ndarray:
    """002's input vector m = [x, y, z, α, β, λ, d1, d2] (Z-Y-X Euler: λ roll, β pitch, α yaw)."""
    roll, pitch, yaw = matrix_to_rpy(np.asarray(rotation, dtype=float))
    return np.array([*np.asarray(position, dtype=float), yaw, pitch, roll, arm.upper_arm_m, arm.forearm_m])


@dataclass(frozen=True)
class TrainingSet:
    """Inputs (N, 8) (:data:`FEATURES`) and optimal arm angles (N,) [rad]."""

    inputs: np.ndarray
    arm_angles: np.ndarray


# Natural reaching postures (deg) in front of the body, from which hand poses are drawn.
NATURAL_POSTURES_DEG = ((-100, 0), (-110, -40), (-90, -10), (-120, -20), (30, 150), (40, 140), (-30, 20))


def generate_training_set(samples: int, seed: int = 0, upper_arm_m=(0.27, 0.36), forearm_m=(0.21, 0.29),
                          progress=print) -> TrainingSet:
    """``samples`` hand poses from natural postures of arms with random segment lengths, each with
    the criterion's optimal arm angle (poses with no feasible arm angle are skipped)."""
    rng = np.random.default_rng(seed)
    low, high = np.deg2rad(np.array(NATURAL_POSTURES_DEG, dtype=float)).T
    inputs, angles = [], []
    started = time.perf_counter()
    while len(angles) < samples:
        arm = Arm(rng.uniform(*upper_arm_m), rng.uniform(*forearm_m))
        pose = arm.forward(rng.uniform(low, high))
        phi = optimal_arm_angle(arm, pose.hand, pose.hand_rotation)
        if phi is None:
            continue
        inputs.append(features(pose.hand, pose.hand_rotation, arm))
        angles.append(phi)
        if len(angles) % max(1, samples // 5) == 0:
            progress(f"  {len(angles)}/{samples} optimal arm angles ({time.perf_counter() - started:.0f} s)")
    return TrainingSet(np.array(inputs), np.array(angles))


@dataclass(frozen=True)
class ArmAngleMlp:
    """A trained MLP, evaluated in numpy: standardized inputs → ReLU hidden layers → φ."""

    input_mean: np.ndarray
    input_scale: np.ndarray
    weights: tuple[np.ndarray, ...]
    biases: tuple[np.ndarray, ...]
    metadata: dict

    def predict(self, inputs) -> np.ndarray:
        """φ [rad] for inputs (N, 8) or (8,)."""
        x = (np.atleast_2d(np.asarray(inputs, dtype=float)) - self.input_mean) / self.input_scale
        for w, b in zip(self.weights[:-1], self.biases[:-1]):
            x = np.maximum(x @ w + b, 0.0)
        out = (x @ self.weights[-1] + self.biases[-1])[:, 0]
        return out if np.ndim(inputs) == 2 else out[:1]

    def save(self, path: str | Path) -> Path:
        """``.npz`` with the arrays and the metadata (JSON) — the model file, versioned."""
        path = Path(path)
        arrays = {"input_mean": self.input_mean, "input_scale": self.input_scale}
        arrays |= {f"w{i}": w for i, w in enumerate(self.weights)} | {f"b{i}": b for i, b in enumerate(self.biases)}
        np.savez(path, metadata=json.dumps(self.metadata), **arrays)
        return path if path.suffix == ".npz" else path.with_suffix(path.suffix + ".npz")

    @classmethod
    def load(cls, path: str | Path) -> "ArmAngleMlp":
        """A model file; ValueError (saying why) when missing, unreadable or of another format."""
        path = Path(path)
        if not path.is_file():
            raise ValueError(f"no arm-angle model at {path}")
        try:
            data = np.load(path, allow_pickle=False)
            metadata = json.loads(str(data["metadata"]))
        except (OSError, ValueError, KeyError) as error:
            raise ValueError(f"{path} is not an arm-angle model: {error}") from None
        if metadata.get("format") != MODEL_FORMAT or list(metadata.get("features", [])) != list(FEATURES):
            raise ValueError(f"{path}: incompatible model (format {metadata.get('format')!r}, need {MODEL_FORMAT!r})")
        layers = int(metadata["layers"])
        return cls(data["input_mean"], data["input_scale"], tuple(data[f"w{i}"] for i in range(layers)),
                   tuple(data[f"b{i}"] for i in range(layers)), metadata)


def train_mlp(training: TrainingSet, hidden=(64, 64), seed: int = 0) -> ArmAngleMlp:
    """Fit scikit-learn's MLPRegressor (Adam, ReLU, early stopping) on standardized inputs."""
    from sklearn.neural_network import MLPRegressor
    mean, scale = training.inputs.mean(axis=0), training.inputs.std(axis=0) + 1e-12
    model = MLPRegressor(hidden_layer_sizes=hidden, activation="relu", solver="adam", max_iter=3000,
                         early_stopping=True, n_iter_no_change=50, random_state=seed, alpha=1e-5)
    model.fit((training.inputs - mean) / scale, training.arm_angles)
    import sklearn
    metadata = {"format": MODEL_FORMAT, "features": list(FEATURES), "layers": len(model.coefs_),
                "hidden": list(hidden), "samples": int(training.arm_angles.size), "criterion":
                "minimum gravitational joint torque (sum of squares), Winter 2009 segments, 70 kg",
                "sklearn": sklearn.__version__, "trained_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
    return ArmAngleMlp(mean, scale, tuple(model.coefs_), tuple(model.intercepts_), metadata)


@dataclass(frozen=True)
class LeastSquares:
    """002's baseline: φ ≈ [m, 1] · c, fitted by linear least squares."""

    coefficients: np.ndarray

    @classmethod
    def fit(cls, training: TrainingSet) -> "LeastSquares":
        design = np.column_stack([training.inputs, np.ones(len(training.inputs))])
        return cls(np.linalg.lstsq(design, training.arm_angles, rcond=None)[0])

    def predict(self, inputs) -> np.ndarray:
        x = np.atleast_2d(np.asarray(inputs, dtype=float))
        return np.column_stack([x, np.ones(len(x))]) @ self.coefficients


def errors(predicted, truth) -> dict:
    """MAE and RMSE [rad] of angle predictions (differences wrapped to (−π, π])."""
    diff = wrap_angle(np.asarray(predicted, dtype=float) - np.asarray(truth, dtype=float))
    return {"mae": float(np.mean(np.abs(diff))), "rmse": float(np.sqrt(np.mean(diff**2)))}


def load_model_or_none(path: str | Path, log=print) -> ArmAngleMlp | None:
    """The model at ``path``, or None after logging why (the caller then optimizes)."""
    try:
        return ArmAngleMlp.load(path)
    except ValueError as error:
        log(f"arm-angle model unavailable ({error}): using the optimization instead")
        return None


def human_arm_angle(arm: Arm, position, rotation, model: ArmAngleMlp | None = None) -> float | None:
    """φ [rad] for a hand pose: the model's prediction when given, else the optimization's."""
    if model is not None:
        return float(model.predict(features(position, rotation, arm))[0])
    return optimal_arm_angle(arm, position, rotation)


MARKERS = ("shoulder", "elbow", "wrist", "hand")


def marker_training_set(path: str | Path) -> TrainingSet:
    """A training set from recorded markers in 002's format: a CSV with ``time`` and
    ``<marker>_x/_y/_z`` [m] for the shoulder, elbow, wrist and hand markers, in the arm's base
    axes (002's frame 0). Per frame: segment lengths d1 = |SE|, d2 = |EW|, the hand position
    relative to the shoulder, the hand frame from the markers (x from wrist to hand, z normal to
    the forearm-hand plane — all four markers can say about the hand's orientation), and the arm
    angle φ of the recorded elbow (002, eq. 1). ValueError naming a missing column or a
    degenerate frame."""
    import csv
    with Path(path).open() as f:
        rows = list(csv.DictReader(f))
    if not rows:
        raise ValueError(f"{path}: no rows")
    columns = [f"{m}_{a}" for m in MARKERS for a in "xyz"]
    missing = [c for c in columns if c not in rows[0]]
    if missing:
        raise ValueError(f"{path}: missing columns {', '.join(missing)}")
    inputs, angles = [], []
    for k, row in enumerate(rows):
        s, e, w, h = (np.array([float(row[f"{m}_{a}"]) for a in "xyz"]) for m in MARKERS)
        d1, d2, hand_length = np.linalg.norm(e - s), np.linalg.norm(w - e), np.linalg.norm(h - w)
        x_axis = (h - w) / max(hand_length, 1e-12)
        normal = np.cross(w - e, h - w)
        if min(d1, d2, hand_length, np.linalg.norm(normal)) < 1e-6:
            raise ValueError(f"{path}: frame {k} is degenerate (coincident markers or a straight wrist)")
        z_axis = normal / np.linalg.norm(normal)
        rotation = np.column_stack([x_axis, np.cross(z_axis, x_axis), z_axis])
        arm = Arm(float(d1), float(d2), float(hand_length))
        inputs.append(features(h - s, rotation, arm))
        angles.append(arm.arm_angle_of(e - s, w - s))
    return TrainingSet(np.array(inputs), np.array(angles))
