"""Helpers shared by the node shells (this module imports rclpy; cores never import it).

- :func:`declare_config`: declare one ROS parameter per field of a config dataclass (same name,
  the dataclass default as the default) and build the dataclass from their values, so each node
  has exactly one list of parameters and the dataclass validates them.
- :func:`run_node`: spin a node with the events executor and shut down cleanly on Ctrl-C/SIGTERM.
"""

from __future__ import annotations

import signal
import sys
import threading
from dataclasses import MISSING, fields
from typing import Callable, TypeVar

import rclpy
from rclpy.executors import ExternalShutdownException
from rclpy.signals import SignalHandlerOptions
from rclpy.node import Node
from rcl_interfaces.msg import ParameterDescriptor

from biped_common.errors import BipedStackError, ConfigError
from biped_common.repeat_filter import RepeatFilter  # noqa: F401 (re-exported for the nodes)

__all__ = ["RepeatFilter", "declare_config", "make_executor", "run_node", "running", "spin_forever"]

T = TypeVar("T")


def _ros_value(value):
    return list(value) if isinstance(value, tuple) else value


def declare_config(node: Node, config_type: type[T]) -> T:
    """Declare a parameter per dataclass field and return the validated dataclass.

    Values are coerced to the type of the field's default (``rate:=500`` is a float 500.0); a
    value that cannot be is a ConfigError naming the parameter.
    """
    values = {}
    for f in fields(config_type):
        default = f.default if f.default is not MISSING else f.default_factory()  # type: ignore[misc]
        descriptor = ParameterDescriptor(description=f"see {config_type.__name__}", dynamic_typing=True)
        value = node.declare_parameter(f.name, _ros_value(default), descriptor).value
        values[f.name] = _coerce(value, default, f.name)
    return config_type(**values)


def _coerce(value, default, name: str):
    if isinstance(default, bool):
        if isinstance(value, bool):
            return value
    elif isinstance(default, float):
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return float(value)
    elif isinstance(default, int):
        if isinstance(value, int) and not isinstance(value, bool):
            return value
    elif isinstance(default, str):
        if isinstance(value, str):
            return value
    elif isinstance(default, tuple):
        if isinstance(value, (list, tuple)) and all(isinstance(v, (int, float)) for v in value):
            return tuple(float(v) for v in value)
    raise ConfigError(name, f"expected a {type(default).__name__} like {default!r}, got {value!r}")


def make_executor(node: Node):
    """The events executor (half the latency and CPU of the default one) serving ``node``."""
    from rclpy.experimental import EventsExecutor
    executor = EventsExecutor()
    executor.add_node(node)
    return executor


_STOP = threading.Event()


def running() -> bool:
    """False once Ctrl-C or SIGTERM asked the process to stop (node loops poll this)."""
    return not _STOP.is_set() and rclpy.ok()


def spin_forever(executor) -> None:
    """Serve callbacks until asked to stop. ``EventsExecutor.spin()`` of the kilted wheels
    delivers no messages from other processes (seen here); a loop of ``spin_once`` does."""
    while running():
        executor.spin_once(timeout_sec=0.1)


def run_node(make_node: Callable[[], Node], spin: Callable[[Node], None] | None = None) -> int:
    """Create and spin a node; a configuration error is printed as one clear line (exit 2)."""
    # Our own handlers: stop the loop between callbacks instead of invalidating the context
    # under a running callback (rclpy's default, which logs spurious errors at every Ctrl-C).
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: _STOP.set())
    rclpy.init(args=sys.argv, signal_handler_options=SignalHandlerOptions.NO)
    node = None
    try:
        node = make_node()
        if spin is not None:
            spin(node)
        else:
            spin_forever(make_executor(node))
        return 0
    except BipedStackError as exc:
        print(f"[error] {exc}", file=sys.stderr, flush=True)
        return 2
    except (KeyboardInterrupt, ExternalShutdownException):
        return 0
    finally:
        if node is not None:
            node.destroy_node()
        rclpy.try_shutdown()
