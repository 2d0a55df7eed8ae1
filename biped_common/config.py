"""Helpers to turn a parsed YAML mapping into typed values, naming the field on every error."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any, Mapping

import yaml

from biped_common.errors import ConfigError


def load_yaml_mapping(path: str | Path) -> dict[str, Any]:
    """Read a YAML file whose top level must be a mapping; errors name the file."""
    path = Path(path)
    try:
        text = path.read_text()
    except OSError as exc:
        raise ConfigError("<file>", f"cannot read: {exc.strerror}", str(path)) from exc
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise ConfigError("<file>", f"malformed YAML: {exc}", str(path)) from exc
    if not isinstance(data, dict):
        raise ConfigError("<top level>", "must be a mapping", str(path))
    return data


def require(mapping: Mapping[str, Any], key: str, path: str) -> Any:
    """``mapping[key]``; a ConfigError naming ``path.key`` when it is missing."""
    if not isinstance(mapping, Mapping):
        raise ConfigError(path, f"must be a mapping, got {type(mapping).__name__}")
    if key not in mapping:
        raise ConfigError(_join(path, key), "is required")
    return mapping[key]


def as_float(value: Any, field: str, lo: float = -math.inf, hi: float = math.inf) -> float:
    """A finite float in [lo, hi]; a ConfigError naming ``field`` otherwise."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ConfigError(field, f"must be a number, got {value!r}")
    value = float(value)
    if not math.isfinite(value):
        raise ConfigError(field, f"must be finite, got {value}")
    if not lo <= value <= hi:
        raise ConfigError(field, f"must be in [{lo}, {hi}], got {value}")
    return value


def as_str(value: Any, field: str) -> str:
    """A non-empty string; a ConfigError naming ``field`` otherwise."""
    if not isinstance(value, str) or not value:
        raise ConfigError(field, f"must be a non-empty string, got {value!r}")
    return value


def as_mapping(value: Any, field: str) -> Mapping[str, Any]:
    """A mapping; a ConfigError naming ``field`` otherwise."""
    if not isinstance(value, Mapping):
        raise ConfigError(field, f"must be a mapping, got {type(value).__name__}")
    return value


def reject_unknown_keys(mapping: Mapping[str, Any], allowed: set[str], path: str) -> None:
    """Fail on keys a typed config does not know (a typo would otherwise be silently ignored)."""
    unknown = sorted(set(mapping) - allowed)
    if unknown:
        raise ConfigError(_join(path, unknown[0]),
                          f"unknown key (allowed: {', '.join(sorted(allowed))})")


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def bounded(low: float, high: float, unit: str = "", doc: str = ""):
    """Dataclass field metadata: a float that must lie in [low, high] (used by
    :func:`dataclass_from_mapping`)."""
    from dataclasses import field
    return field(metadata={"bounds": (low, high), "unit": unit, "doc": doc})


def dataclass_from_mapping(cls, mapping: Any, path: str, errors: list[ConfigError] | None = None):
    """Build dataclass ``cls`` from a mapping whose keys are its field names.

    Float fields declared with :func:`bounded` are checked against their bounds. Every problem is
    a ConfigError naming ``path.field``; with ``errors`` given, problems are appended to it (so a
    user sees all of them at once) and None is returned when there was any.
    """
    from dataclasses import fields
    collect = errors is not None
    errors = errors if collect else []
    start = len(errors)
    if not isinstance(mapping, Mapping):
        errors.append(ConfigError(path, f"must be a mapping, got {type(mapping).__name__}"))
    else:
        names = {f.name for f in fields(cls)}
        for key in sorted(set(mapping) - names):
            errors.append(ConfigError(_join(path, str(key)), f"unknown key (allowed: {', '.join(sorted(names))})"))
        values = {}
        for f in fields(cls):
            where = _join(path, f.name)
            if f.name not in mapping:
                errors.append(ConfigError(where, "is required"))
                continue
            if "bounds" in f.metadata:
                try:
                    values[f.name] = as_float(mapping[f.name], where, *f.metadata["bounds"])
                except ConfigError as exc:
                    errors.append(exc)
            else:
                values[f.name] = mapping[f.name]
        if len(errors) == start:
            try:
                result = cls(**values)
            except ConfigError as exc:
                errors.append(exc)
            except ValueError as exc:
                errors.append(ConfigError(path, str(exc)))
            else:
                return result
    if not collect:
        raise errors[start]
    return None
