"""Exception hierarchy of biped_stack: one root, subclasses that carry what went wrong."""

from __future__ import annotations


class BipedStackError(Exception):
    """Root of every error biped_stack raises on purpose."""


class ConfigError(BipedStackError):
    """A configuration value is missing, of the wrong type or out of bounds.

    ``field`` is the dotted path of the offending entry (``gains.knee.kp``), so a user can find it.
    """

    def __init__(self, field: str, message: str, source: str | None = None):
        self.field = field
        self.message = message
        self.source = source
        where = f"{source}: " if source else ""
        super().__init__(f"{where}{field}: {message}")

    def __reduce__(self):
        # Pickled with its own arguments (Exception pickles ``args``, the joined text only): a
        # worker process's ConfigError then reaches the parent (multiprocessing) intact.
        return type(self), (self.field, self.message, self.source)


class UnknownRobotError(ConfigError):
    """A robot name that no shipped description has."""


class CommandError(BipedStackError):
    """A joint command that cannot be applied (unknown joint, NaN, wrong length)."""
