"""Helpers shared by the node shells (this module imports rclpy; cores never import it).

- :class:`GuardedNode`: the base class of every node. No exception escapes one of its callbacks
  (subscriptions, timers, services): each is caught and logged with the input that caused it,
  and the node carries on. :meth:`GuardedNode.subscribe` checks every message (a check function,
  its stamp against the node's clock) before the callback sees it, and refuses the bad ones with
  one repeat-filtered log line per topic naming the field.
- :func:`declare_config`: declare one ROS parameter per field of a config dataclass (same name,
  the dataclass default as the default) and build the dataclass from their values, so each node
  has exactly one list of parameters and the dataclass validates them. Parameters are read-only
  unless the node applies them live; a live one is refused with the reason when it has the wrong
  type or fails the dataclass's validation, and the node keeps its value.
- :func:`run_node`: spin a node with the events executor and shut down cleanly on Ctrl-C/SIGTERM.
"""

from __future__ import annotations

import math
import gc
import os
import signal
import sys
import threading
import time
import traceback
from dataclasses import MISSING, dataclass, fields, replace
from typing import Any, Callable, Mapping, TypeVar

import rclpy
from rclpy.executors import ExternalShutdownException
from rclpy.signals import SignalHandlerOptions
from rclpy.impl.rcutils_logger import RcutilsLogger
from rclpy.node import Node
from rclpy.qos import DurabilityPolicy, HistoryPolicy, QoSProfile, ReliabilityPolicy
from rcl_interfaces.msg import ParameterDescriptor, SetParametersResult

from biped_common import conversions as conv
from biped_common.errors import BipedStackError, ConfigError
from biped_common.repeat_filter import RepeatFilter as _RepeatFilter

__all__ = ["GuardedNode", "LATCHED_QOS", "LatestReader", "PLAN_QOS", "RefusalLog", "RepeatFilter", "SENSOR_QOS", "declare_config",
           "make_executor", "run_node", "run_nodes", "running", "spin_forever"]


def _own_call_site(log: Callable[[str], None]) -> Callable[[str], None]:
    """An rclpy logger's bound method wrapped so each severity logs from a call site of its own.
    rclpy keys a logger's per-call-site context on the first frame outside it and refuses a
    second severity from the same site ("Logger severity cannot be changed between calls"): two
    :class:`RepeatFilter` of one node at different severities shared RepeatFilter's call site, and
    the planner's first error after a warning raised inside its tick. Other callables unchanged."""
    logger, name = getattr(log, "__self__", None), getattr(log, "__name__", "")
    if not isinstance(logger, RcutilsLogger):
        return log

    def debug(message): logger.debug(message)
    def info(message): logger.info(message)
    def warning(message): logger.warning(message)
    def error(message): logger.error(message)
    def fatal(message): logger.fatal(message)
    return {"debug": debug, "info": info, "warning": warning, "warn": warning, "error": error,
            "fatal": fatal}.get(name, log)


class RepeatFilter(_RepeatFilter):
    """:class:`biped_common.repeat_filter.RepeatFilter` for ROS nodes: an rclpy logger's methods
    may be given at several severities (:func:`_own_call_site`)."""

    def __init__(self, log: Callable[[str], None], period_s: float = 1.0, clock: Callable[[], float] = time.monotonic):
        super().__init__(_own_call_site(log), period_s, clock)

# Sensor and command streams: reliable (a lockstep bridge waits for each answer), the latest only.
# A controller that falls behind answers the newest frame rather than working through stale ones:
# in real time with a queue of 10 the estimator ran ≈ 10 frames behind (sensor → command latency
# p50 25.6 ms); with 1, p50 5.2 ms (same machine, same run length). In lockstep nothing queues.
SENSOR_QOS = QoSProfile(depth=1, reliability=ReliabilityPolicy.RELIABLE, history=HistoryPolicy.KEEP_LAST)
# Plans (gait reference, CoM plan): kept for a late joiner, which gets the latest at once — a
# controller respawned while the lockstep simulation holds (its clock stopped, so no planner
# tick publishes) must not wait for a tick that never comes.
PLAN_QOS = QoSProfile(depth=10, durability=DurabilityPolicy.TRANSIENT_LOCAL, reliability=ReliabilityPolicy.RELIABLE,
                      history=HistoryPolicy.KEEP_LAST)
# State a late joiner needs (the bridge's mode): the last message kept for it.
LATCHED_QOS = QoSProfile(depth=1, durability=DurabilityPolicy.TRANSIENT_LOCAL, reliability=ReliabilityPolicy.RELIABLE)

T = TypeVar("T")
REFUSALS = (ValueError, BipedStackError)  # what a check raises for a bad input
MESSAGE_SUMMARY_CHARS = 300


class RefusalLog:
    """One log line per topic and period for refused inputs: the first refusal at once (naming the
    field), the ones after it counted and reported with the next line, so a flood of bad messages
    neither drowns the log nor goes unreported."""

    def __init__(self, log: Callable[[str], None], period_s: float = 1.0, clock: Callable[[], float] = time.monotonic):
        self._log, self._period_s, self._clock = log, period_s, clock
        self._state: dict[str, list[float]] = {}   # topic → [time of the last line, refusals since]
        self.counts: dict[str, int] = {}

    def __call__(self, topic: str, reason: str) -> None:
        self.counts[topic] = self.counts.get(topic, 0) + 1
        now = self._clock()
        last, pending = self._state.get(topic, (-math.inf, 0))
        if now - last >= self._period_s:
            extra = f" (+{int(pending)} more refused since the last report)" if pending else ""
            self._log(f"refused {topic}: {reason}{extra}; the previous input stays in force")
            self._state[topic] = [now, 0]
        else:
            self._state[topic] = [last, pending + 1]

    def flush(self) -> None:
        """Report the refusals counted since a topic's last line, once its period is over (a
        node calls this periodically, so the last refusals of a burst are reported too)."""
        now = self._clock()
        for topic, (last, pending) in list(self._state.items()):
            if pending and now - last >= self._period_s:
                self._log(f"refused {topic} {int(pending)} more time(s) since the last report; "
                          "the previous input stays in force")
                self._state[topic] = [now, 0]


def summarize(message: Any) -> str:
    """A message as text, cut to a log line's length."""
    text = repr(message)
    return text if len(text) <= MESSAGE_SUMMARY_CHARS else text[:MESSAGE_SUMMARY_CHARS] + "…"


class GuardedNode(Node):
    """A node whose callbacks never raise, and whose subscriptions check their input first."""

    def __init__(self, node_name: str, **kwargs):
        super().__init__(node_name, **kwargs)
        self.refuse = RefusalLog(self.get_logger().error)
        self._log_failure = RepeatFilter(self.get_logger().error, period_s=5.0)
        from rclpy.clock import Clock, ClockType
        super().create_timer(1.0, self.refuse.flush, clock=Clock(clock_type=ClockType.STEADY_TIME))

    def _guard(self, what: str, callback: Callable, fallback: Callable[..., Any] | None = None,
               topic: str | None = None) -> Callable:
        """``callback`` that never raises: a refusal (ValueError, BipedStackError) of a message on
        ``topic`` goes to the refusal log, anything else is logged as a failure with its input."""
        def guarded(*args):
            try:
                return callback(*args)
            except Exception as exc:  # noqa: BLE001 - a bug must not take the robot down; it is logged
                if topic is not None and isinstance(exc, REFUSALS):
                    self.refuse(topic, str(exc))
                else:
                    self._failed(what, exc, args)
            return fallback(*args) if fallback is not None else None
        return guarded

    def _failed(self, what: str, exc: BaseException, args) -> None:
        where = traceback.extract_tb(exc.__traceback__)[-1] if exc.__traceback__ else None
        location = f" at {where.filename.rsplit('/', 1)[-1]}:{where.lineno}" if where else ""
        inputs = f"; input: {summarize(args[0])}" if args else ""
        # Keyed without the input, so one failing callback logs once per period, not once per value.
        self._log_failure(f"{what} failed ({type(exc).__name__}{location}): {exc}{inputs}",
                          key=f"{what}|{type(exc).__name__}{location}")

    def create_subscription(self, msg_type, topic, callback, qos_profile, **kwargs):
        name = self._topic_name(topic)
        return super().create_subscription(msg_type, topic, self._guard(f"callback of {name}", callback, topic=name),
                                           qos_profile, **kwargs)

    def create_timer(self, timer_period_sec, callback, *args, **kwargs):
        guarded = self._guard(f"timer {getattr(callback, '__name__', '')}", callback)
        # rclpy passes a TimerInfo to callbacks that take an argument: ours take none.
        return super().create_timer(timer_period_sec, lambda: guarded(), *args, **kwargs)

    def create_service(self, srv_type, srv_name, callback, **kwargs):
        def failed(request, response):
            if hasattr(response, "success"):
                response.success, response.message = False, "the request failed; see the node's log"
            return response
        return super().create_service(srv_type, srv_name, self._guard(f"service {srv_name}", callback, failed),
                                      **kwargs)

    def _topic_name(self, topic: str) -> str:
        return topic if topic.startswith("/") else self.resolve_topic_name(topic)

    def subscribe(self, msg_type, topic: str, callback: Callable, qos_profile, check: Callable | None = None,
                  max_age_s: float | None = 1.0, max_lead_s: float = 0.5, read: Callable[[bytes], Any] | None = None):
        """Subscribe with ``callback`` seeing only messages that pass ``check(msg)`` (which raises
        ValueError naming the field) and, when ``max_age_s`` is given, whose ``header.stamp`` is
        neither older than ``max_age_s`` nor more than ``max_lead_s`` ahead of the node's clock
        (not checked before the clock runs: sim time before the first /clock). ``read``: take the
        messages serialized and read them with it (:mod:`biped_common.cdr_views`: a view with the
        message's attributes, checked the same way) instead of rclpy's deserializer."""
        def checked(msg):
            if read is not None:
                msg = read(msg)
            if max_age_s is not None:
                self.check_stamp_age(msg.header.stamp, max_age_s, max_lead_s)
            if check is not None:
                check(msg)
            callback(msg)
        return self.create_subscription(msg_type, topic, checked, qos_profile, raw=read is not None)

    def subscribe_decoded(self, msg_type, topic: str, decode: Callable, callback: Callable, qos_profile,
                          max_age_s: float | None = 1.0, max_lead_s: float = 0.5,
                          stamp_s_of: Callable[[Any], float] = lambda value: value.stamp_s):
        """Subscribe with ``callback(value)`` for ``value = decode(msg)`` — a decoder that checks
        as it decodes (ValueError naming the field refuses the message, logged) — for messages
        without a header (tables): the age window applies to ``stamp_s_of(value)`` [s] as
        :meth:`subscribe` applies it to ``header.stamp``."""
        def decoded(msg):
            value = decode(msg)
            if max_age_s is not None:
                self.check_stamp_age(conv.seconds_to_stamp(stamp_s_of(value)), max_age_s, max_lead_s,
                                     field="stamp (first row's t_s)")
            callback(value)
        return self.create_subscription(msg_type, topic, decoded, qos_profile)

    def check_stamp_age(self, stamp, max_age_s: float, max_lead_s: float, field: str = "header.stamp") -> None:
        """ValueError naming ``field`` when ``stamp`` is older than ``max_age_s`` or more than
        ``max_lead_s`` ahead of this node's clock (nothing before the clock runs: sim time before
        the first /clock)."""
        now_s = self.get_clock().now().nanoseconds * 1e-9
        if now_s > 0.0:
            error = conv.stamp_age_error(stamp, now_s, max_age_s, max_lead_s)
            if error is not None:
                raise ValueError(error.replace("header.stamp", field))


def _ros_value(value):
    return list(value) if isinstance(value, tuple) else value


def declare_config(node: Node, config_type: type[T],
                   live: Mapping[str, Callable[[Any], tuple[bool, str]]] | None = None) -> T:
    """Declare a parameter per dataclass field and return the validated dataclass.

    Values are coerced to the type of the field's default (``rate:=500`` is a float 500.0); a
    value that cannot be is a ConfigError naming the parameter. Parameters are read at start and
    read-only after; those in ``live`` (name → apply(value) → (accepted, reason)) may be set
    while the node runs: a wrong type or a value the dataclass rejects is refused with the
    reason, otherwise ``apply`` decides.
    """
    live = dict(live or {})
    values = {}
    for f in fields(config_type):
        default = f.default if f.default is not MISSING else f.default_factory()  # type: ignore[misc]
        descriptor = ParameterDescriptor(
            description=f"see {config_type.__name__}" + ("" if f.name in live else " (read at start)"),
            dynamic_typing=True, read_only=f.name not in live)
        value = node.declare_parameter(f.name, _ros_value(default), descriptor).value
        values[f.name] = _coerce(value, default, f.name)
    config = config_type(**values)
    if live:
        current = {"config": config}

        def on_set(parameters) -> SetParametersResult:
            for parameter in parameters:
                if parameter.name not in live:
                    continue
                try:
                    value = _coerce(parameter.value, getattr(current["config"], parameter.name), parameter.name)
                    candidate = replace(current["config"], **{parameter.name: value})
                except ConfigError as exc:
                    return SetParametersResult(successful=False, reason=str(exc))
                ok, reason = live[parameter.name](value)
                if not ok:
                    return SetParametersResult(successful=False, reason=reason)
                current["config"] = candidate
            return SetParametersResult(successful=True)
        node.add_on_set_parameters_callback(on_set)
    return config


def declare_section(node: Node, prefix: str, defaults: T) -> T:
    """Declare a read-only parameter ``<prefix>.<field>`` per field of the dataclass instance
    ``defaults`` (its values the parameters' defaults, e.g. a config file's) and return the
    dataclass the parameters give, validated by :func:`biped_common.config.dataclass_from_mapping`
    (bounds; a ConfigError naming ``<prefix>.<field>``)."""
    from biped_common.config import dataclass_from_mapping
    values = {}
    for f in fields(defaults):
        default = getattr(defaults, f.name)
        name = f"{prefix}.{f.name}"
        descriptor = ParameterDescriptor(description=f"see {type(defaults).__name__} (read at start)",
                                         dynamic_typing=True, read_only=True)
        values[f.name] = _coerce(node.declare_parameter(name, _ros_value(default), descriptor).value, default, name)
    return dataclass_from_mapping(type(defaults), values, prefix)


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


# A latest-value reader's queue: only the newest message matters.
LATEST_QOS = QoSProfile(depth=1, reliability=ReliabilityPolicy.RELIABLE, history=HistoryPolicy.KEEP_LAST)


class LatestReader:
    """The newest message on a topic, taken when asked rather than handled at every arrival.

    For a node that needs another node's 500 Hz state only at its own, slower rate (the gait
    planner at 25 Hz, the MPC at 125 Hz): a subscription's Python callback at every arrival costs
    the executor's dispatch and a deserialization each time — measured with py-spy on the running
    stack, the executor loop alone took ≈ 45 % of the gait planner's CPU. This reader's
    subscription lives on a helper node that no executor spins (DDS keeps the newest message in
    its queue of depth 1); :meth:`latest` takes it, deserializing once per read. Each newly taken
    message is checked as :meth:`GuardedNode.subscribe` checks (``check``, and its stamp against
    the owner's clock within ``max_age_s``/``max_lead_s``); a refused one is logged by the owner
    and the previous one is kept.
    """

    def __init__(self, owner: "GuardedNode", msg_type, topic: str, check: Callable | None = None,
                 max_age_s: float | None = 1.0, max_lead_s: float = 0.5):
        helper = owner.__dict__.get("_latest_readers_node")
        if helper is None:
            # Its own node, ignoring the process's command-line arguments: a launch file's
            # ``__node:=`` remap must not give it the owner's name.
            helper = rclpy.create_node(f"{owner.get_name()}_latest_readers", namespace=owner.get_namespace(),
                                       context=owner.context, use_global_arguments=False,
                                       start_parameter_services=False, enable_rosout=False)
            owner._latest_readers_node = helper
        self._owner, self._type, self._check = owner, msg_type, check
        self._max_age_s, self._max_lead_s = max_age_s, max_lead_s
        self._topic = owner._topic_name(topic)
        self._subscription = helper.create_subscription(msg_type, self._topic, lambda _: None, LATEST_QOS)
        self._latest = None

    def latest(self):
        """The newest valid message received so far (None before the first)."""
        newest = None
        with self._subscription.handle:
            while (taken := self._subscription.handle.take_message(self._type, False)) is not None:
                newest = taken[0]
        if newest is not None:
            try:
                if self._max_age_s is not None:
                    self._owner.check_stamp_age(newest.header.stamp, self._max_age_s, self._max_lead_s)
                if self._check is not None:
                    self._check(newest)
                self._latest = newest
            except REFUSALS as exc:
                self._owner.refuse(self._topic, str(exc))
        return self._latest


def make_executor(*nodes: Node):
    """The events executor (half the latency and CPU of the default one) serving ``nodes``."""
    from rclpy.experimental import EventsExecutor
    executor = EventsExecutor()
    for node in nodes:
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


@dataclass(frozen=True)
class SchedulingConfig:
    """How a node's process is scheduled: ROS parameters of the first node in the process."""

    realtime_priority: int = 0  # 0: the default scheduler; 1–99: SCHED_FIFO at this priority

    def __post_init__(self):
        if not 0 <= self.realtime_priority <= 99:
            raise ConfigError("realtime_priority", f"must be in [0, 99] (0: default scheduler), got {self.realtime_priority}")


def apply_scheduling(node: Node) -> None:
    """Run every thread of this process (the executor's and the middleware's) under SCHED_FIFO
    at the node's ``realtime_priority``, as ros2_control's controller manager does with its
    loop: on a loaded computer a control loop under the default scheduler waits behind the
    planner for milliseconds. Not permitted (no CAP_SYS_NICE, no rtprio limit): a warning
    saying how to allow it, and the default scheduler."""
    priority = declare_config(node, SchedulingConfig).realtime_priority
    if priority == 0:
        return
    try:
        for task in os.listdir("/proc/self/task"):
            os.sched_setscheduler(int(task), os.SCHED_FIFO, os.sched_param(priority))
    except (PermissionError, OSError) as exc:
        node.get_logger().warning(
            f"realtime_priority {priority}: SCHED_FIFO not permitted ({exc}); running with the default "
            f"scheduler. Allow it with CAP_SYS_NICE or an rtprio limit (e.g. '@realtime - rtprio 98' in "
            f"/etc/security/limits.conf, the user in group realtime)")
        return
    node.get_logger().info(f"process scheduled SCHED_FIFO, priority {priority}")


def freeze_start_up_objects() -> None:
    """Keep the cyclic garbage collector off what start-up built (models, solvers, messages'
    type support: most of the heap), so that a full collection while the node runs scans only
    what came since. Measured in these processes (2026-12-03): a full collection of the start-up
    heap takes 35–58 ms — twice the bridge's command watchdog; paid here, once, before spinning."""
    gc.collect()
    gc.freeze()


def run_node(make_node: Callable[[], Node], spin: Callable[[Node], None] | None = None) -> int:
    """Create and spin a node; a configuration error is printed as one clear line (exit 2)."""
    if spin is None:
        return run_nodes(lambda: [make_node()])
    return _run(lambda: [make_node()], lambda nodes: spin(nodes[0]))


def run_nodes(make_nodes: Callable[[], list[Node]]) -> int:
    """Create several nodes in this process and spin them with one executor (composition: every
    node keeps its name, parameters and topics); errors as :func:`run_node`."""
    return _run(make_nodes, lambda nodes: spin_forever(make_executor(*nodes)))


def _run(make_nodes: Callable[[], list[Node]], spin: Callable[[list[Node]], None]) -> int:
    # Our own handlers: stop the loop between callbacks instead of invalidating the context
    # under a running callback (rclpy's default, which logs spurious errors at every Ctrl-C).
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: _STOP.set())
    rclpy.init(args=sys.argv, signal_handler_options=SignalHandlerOptions.NO)
    nodes: list[Node] = []
    try:
        nodes = make_nodes()
        apply_scheduling(nodes[0])
        freeze_start_up_objects()
        spin(nodes)
        return 0
    except BipedStackError as exc:
        print(f"[error] {exc}", file=sys.stderr, flush=True)
        return 2
    except (KeyboardInterrupt, ExternalShutdownException):
        return 0
    finally:
        for node in reversed(nodes):
            node.destroy_node()
        rclpy.try_shutdown()
