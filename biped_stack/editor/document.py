"""A style file being edited (issue #17): edits by sample and field, validated by the style
loader before they are taken, undo/redo, and saving that changes only what was edited (ROS-free).

The file is kept as text and edited through a round-trip YAML tree (``ruamel.yaml``), so its
comments, key order and flow style survive: an edit writes one value into the edited sample's
own entry (``samples.<key>.<field>``), never into ``defaults``, and the saved file differs from
the loaded one only there. Every edit is checked by :func:`gait_planner_node.style.style_from_mapping`
on the text it would produce — what the editor holds always passes ``biped-stack style check``.

Fields are addressed within a sample as the file writes them: ``timing.left_swing_s``,
``attributes.stance_width_m``, ``swing.height_m`` (both feet), ``left_swing.height_m``,
``pelvis.roll_rad``, ``upper_body.l_shoulder_pitch``. Numbers are SI (m, s, rad); a curve is a
list of [phase, value] knots.
"""

from __future__ import annotations

import io
import math
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any, Mapping

import numpy as np
import yaml
from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq

from biped_common.errors import BipedStackError, ConfigError
from biped_common.resources import styles_dir
from gait_planner_node.style import (PELVIS_CURVE_BOUNDS, SAMPLE_KEYS, SWING_CURVE_BOUNDS, UPPER_BODY_BOUNDS,
                                     Attributes, Style, StyleError, merged_sample_data, style_from_mapping)
from gait_planner_node.timing import GaitTiming

CURVE_SAMPLES = 101          # points per curve the editor draws
DECIMALS = 5                 # values are written rounded to 10 µm / 10 µrad / 10 µs
TIMING_FIELDS = tuple(f.name for f in fields(GaitTiming))
ATTRIBUTE_FIELDS = tuple(f.name for f in fields(Attributes))
SWING_GROUPS = ("swing", "left_swing", "right_swing")


class EditError(BipedStackError):
    """An edit the editor refuses: ``errors`` (ConfigError, by field) say why."""

    def __init__(self, errors: list[ConfigError]):
        self.errors = errors
        super().__init__("; ".join(str(e) for e in errors))


@dataclass(frozen=True)
class FieldSpec:
    """An editable field of a sample: its path (see the module docstring), ``kind`` "number" or
    "curve", the bounds of its values (a curve's knot values; phases are in [0, 1]), unit and doc."""

    path: str
    kind: str
    low: float
    high: float
    unit: str
    doc: str


def _dataclass_spec(cls, group: str, name: str) -> FieldSpec:
    meta = {f.name: f.metadata for f in fields(cls)}[name]
    low, high = meta["bounds"]
    return FieldSpec(f"{group}.{name}", "number", low, high, meta.get("unit", ""), meta.get("doc", ""))


def field_spec(path: str) -> FieldSpec:
    """The spec of the field at ``path``; ConfigError naming it when there is no such field."""
    group, _, name = path.partition(".")
    if group == "timing" and name in TIMING_FIELDS:
        return _dataclass_spec(GaitTiming, group, name)
    if group == "attributes" and name in ATTRIBUTE_FIELDS:
        return _dataclass_spec(Attributes, group, name)
    unit = "rad" if name.endswith("_rad") else "m"
    if group in SWING_GROUPS and name in SWING_CURVE_BOUNDS:
        return FieldSpec(path, "curve", *SWING_CURVE_BOUNDS[name], unit, f"{group.replace('_', ' ')} {name} over the swing phase")
    if group == "pelvis" and name in PELVIS_CURVE_BOUNDS:
        return FieldSpec(path, "curve", *PELVIS_CURVE_BOUNDS[name], unit, f"pelvis {name} over the cycle phase")
    if group == "upper_body" and name:
        return FieldSpec(path, "curve", *UPPER_BODY_BOUNDS, "rad", f"joint {name} over the cycle phase")
    raise ConfigError(path, "not an editable field (timing.*, attributes.*, swing.*, left_swing.*, right_swing.*, "
                            "pelvis.*, upper_body.*)")


def _represent_float(representer, value: float):
    """A float as fixed-point text: ruamel writes 1e-05 for 0.00001, which YAML 1.1 readers
    (PyYAML, the style loader) read as a string."""
    text = repr(value)
    if "e" in text or "E" in text:
        text = f"{value:.{DECIMALS}f}".rstrip("0")
    if "." not in text and text.lstrip("-").isdigit():
        text += ".0"
    return representer.represent_scalar("tag:yaml.org,2002:float", text)


def _round_trip_yaml() -> YAML:
    rt = YAML()
    rt.width = 4096            # never re-wrap a long flow line
    rt.preserve_quotes = True
    rt.representer.add_representer(float, _represent_float)
    return rt


def _flow(value: Any) -> Any:
    """A value as the style files write it: lists and mappings in flow style, floats rounded."""
    if isinstance(value, Mapping):
        out = CommentedMap((k, _flow(v)) for k, v in value.items())
        out.fa.set_flow_style()
        return out
    if isinstance(value, (list, tuple)):
        out = CommentedSeq(_flow(v) for v in value)
        out.fa.set_flow_style()
        return out
    if isinstance(value, (int, float, np.floating)) and not isinstance(value, bool):
        return round(float(value), DECIMALS)
    return value


def _check_value(spec: FieldSpec, value: Any, field_name: str) -> Any:
    """The edit's value in the file's form, or ConfigError naming the field: a finite number
    within the field's bounds, or a list of [phase, value] pairs, phases in [0, 1] and values within
    the bounds (what else a style must be — knot order, timing — is the loader's check)."""
    def number(x, name, low, high):
        if isinstance(x, bool) or not isinstance(x, (int, float)) or not math.isfinite(x):
            raise ConfigError(name, f"must be a finite number, got {x!r}")
        if not low <= x <= high:
            raise ConfigError(name, f"must be in [{low:g}, {high:g}]{' ' + spec.unit if spec.unit else ''}, got {x:g}")
        return float(x)

    if spec.kind == "number":
        return number(value, field_name, spec.low, spec.high)
    if not isinstance(value, (list, tuple)):
        raise ConfigError(field_name, f"must be a list of [phase, value] knots, got {value!r}")
    knots = []
    for i, pair in enumerate(value):
        if not (isinstance(pair, (list, tuple)) and len(pair) == 2):
            raise ConfigError(f"{field_name}[{i}]", f"must be a [phase, value] pair, got {pair!r}")
        knots.append([number(pair[0], f"{field_name}[{i}].phase", 0.0, 1.0),
                      number(pair[1], f"{field_name}[{i}].value", spec.low, spec.high)])
    return knots


class StyleDocument:
    """A style file being edited: its text (always a valid style), the validated :class:`Style`,
    and the undo/redo history of texts."""

    def __init__(self, text: str, source: str = "<style>"):
        self.source = source
        self._yaml = _round_trip_yaml()
        self.style = self._validated(text)
        self.text = text
        self._parsed: tuple[str | None, dict | None] = (None, None)  # (text, its plain data): data()'s cache
        self._undo: list[str] = []
        self._redo: list[str] = []

    @classmethod
    def open(cls, name_or_path: str | Path) -> "StyleDocument":
        """A shipped style by name or a style file; StyleError when it is not a valid style."""
        path = Path(name_or_path)
        if not path.suffix:
            path = styles_dir() / f"{name_or_path}.yaml"
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as exc:
            raise StyleError(str(path), [ConfigError("file", f"cannot be read: {exc.strerror or exc}")]) from exc
        return cls(text, str(path))

    def _validated(self, text: str) -> Style:
        try:
            data = yaml.safe_load(text)
        except yaml.YAMLError as exc:
            raise StyleError(self.source, [ConfigError("file", f"is not valid YAML: {exc}")]) from exc
        if not isinstance(data, Mapping):
            raise StyleError(self.source, [ConfigError("file", "must be a mapping")])
        return style_from_mapping(data, self.source)

    # -- reading ---------------------------------------------------------------------------------
    def data(self) -> dict:
        """The file as plain data (parsed once per text; read it, do not change it)."""
        if self._parsed[0] is not self.text:
            self._parsed = (self.text, yaml.safe_load(self.text))
        return self._parsed[1]

    def sample_fields(self, key: str) -> list[FieldSpec]:
        """The editable fields of sample ``key``: timing, attributes, the swing curves (``swing.*``
        for both feet, or ``left_swing.*``/``right_swing.*`` where the sample sets a foot's own),
        the pelvis curves and the upper-body joints it animates."""
        self.check_sample_key(key)
        merged = merged_sample_data(self.data(), key)
        specs = [field_spec(f"timing.{n}") for n in TIMING_FIELDS]
        specs += [field_spec(f"attributes.{n}") for n in ATTRIBUTE_FIELDS]
        for name in SWING_CURVE_BOUNDS:
            own = [g for g in ("left_swing", "right_swing") if name in (merged.get(g) or {})]
            specs += [field_spec(f"{g}.{name}") for g in (("left_swing", "right_swing") if own else ("swing",))]
        specs += [field_spec(f"pelvis.{n}") for n in PELVIS_CURVE_BOUNDS]
        specs += [field_spec(f"upper_body.{j}") for j in (merged.get("upper_body") or {})]
        return specs

    def value(self, key: str, path: str) -> Any:
        """The value sample ``key`` has at ``path`` as the loader reads it (its own, or inherited
        from ``defaults``): a number, or a curve's knots ([] when the curve is zero)."""
        merged = merged_sample_data(self.data(), key)
        group, _, name = path.partition(".")
        if group in ("left_swing", "right_swing"):
            return (merged.get(group) or {}).get(name, (merged.get("swing") or {}).get(name, []))
        value = (merged.get(group) or {}).get(name, [] if field_spec(path).kind == "curve" else None)
        return [[0.0, value]] if field_spec(path).kind == "curve" and isinstance(value, (int, float)) else value

    def is_own(self, key: str, path: str) -> bool:
        """Whether sample ``key`` sets ``path`` itself (else it inherits it from ``defaults``)."""
        entry = (self.data().get("samples") or {}).get(key) or {}
        group, _, name = path.partition(".")
        return isinstance(entry.get(group), Mapping) and name in entry[group]

    def curve_points(self, key: str, path: str, count: int = CURVE_SAMPLES) -> tuple[np.ndarray, np.ndarray]:
        """The validated curve at ``path`` of sample ``key`` (after the load-time limits) sampled
        at ``count`` phases in [0, 1]: (phases, values [m or rad])."""
        sample = self.style.samples[key]
        group, _, name = path.partition(".")
        phases = np.linspace(0.0, 1.0, count)
        if group in SWING_GROUPS:
            curve = getattr(sample.right_swing if group == "right_swing" else sample.left_swing, name)
        elif group == "pelvis":
            curve = getattr(sample.pelvis, name)
        else:
            curve = sample.upper_body[name]
        return phases, np.asarray(curve(phases), dtype=float)

    # -- editing ---------------------------------------------------------------------------------
    def apply(self, key: str, changes: Mapping[str, Any]) -> None:
        """Set the fields ``changes`` (path → value) of sample ``key`` in its own entry, as one
        undoable edit. EditError (the document unchanged) when a path or value is malformed or
        the resulting style is invalid — with every error by field."""
        self.check_sample_key(key)
        if not changes:
            return
        tree = self._yaml.load(self.text)
        samples = tree["samples"]
        if samples.get(key) is None:
            samples[key] = _flow({})
        entry = samples[key]
        errors = []
        for path, value in changes.items():
            field_name = f"samples.{key}.{path}"
            try:
                spec = field_spec(path)
                value = _check_value(spec, value, field_name)
            except ConfigError as exc:
                errors.append(exc if exc.field.startswith("samples.") else ConfigError(field_name, str(exc).split(": ", 1)[-1]))
                continue
            group, _, name = path.partition(".")
            if not isinstance(entry.get(group), Mapping):
                entry[group] = _flow({})
            entry[group][name] = _flow(value)
        if errors:
            raise EditError(errors)
        stream = io.StringIO()
        self._yaml.dump(tree, stream)
        text = stream.getvalue()
        try:
            style = self._validated(text)
        except StyleError as exc:
            raise EditError(exc.errors) from exc
        self._undo.append(self.text)
        self._redo.clear()
        self.text, self.style = text, style

    def undo(self) -> bool:
        """Back one edit; False when there is none."""
        return self._step(self._undo, self._redo)

    def redo(self) -> bool:
        """Forward one undone edit; False when there is none."""
        return self._step(self._redo, self._undo)

    def _step(self, source: list[str], target: list[str]) -> bool:
        if not source:
            return False
        target.append(self.text)
        self.text = source.pop()
        self.style = self._validated(self.text)
        return True

    @property
    def can_undo(self) -> bool:
        return bool(self._undo)

    @property
    def can_redo(self) -> bool:
        return bool(self._redo)

    def save(self, path: str | Path) -> Path:
        """Write the text to ``path`` (its folder created); returns the path."""
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(self.text, encoding="utf-8")
        return path

    @staticmethod
    def check_sample_key(key: str) -> None:
        """EditError unless ``key`` is one of the nine samples."""
        if key not in SAMPLE_KEYS:
            raise EditError([ConfigError(f"samples.{key}", f"unknown sample (the nine are: {', '.join(SAMPLE_KEYS)})")])
