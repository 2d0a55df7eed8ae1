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
