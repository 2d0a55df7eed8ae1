"""Build the ROS 2 interfaces PyPI lacks (``tf2_msgs``) into this Python environment.

``python -m biped_stack.ros_interfaces`` (run by ``make venv``): when ``import tf2_msgs.msg``
fails, configure, build and install ``interfaces/tf2_msgs`` (its official message definitions in a
minimal ament_cmake package) with cmake and the rosidl generator wheels of ``requirements.txt``,
into ``sys.prefix`` — the venv, where the ament index and Python already look for the wheels'
packages. On a ROS 2 distribution ``tf2_msgs`` is importable and nothing is built. Needs cmake
(≥ 3.16), gcc and g++ (Debian: ``apt-get install cmake build-essential``); a missing tool or a
failed step is an error naming it and the log.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from biped_common.errors import BipedStackError
from biped_common.resources import share_file

PACKAGES = ("tf2_msgs",)
PROBE_TYPES = {"tf2_msgs": "TFMessage"}  # a message of each, constructed to prove the import
BUILD_TOOLS = ("cmake", "gcc", "g++")


class InterfaceBuildError(BipedStackError, RuntimeError):
    """An interface package could not be built or does not import after its build."""


def importable(package: str, env: dict[str, str] | None = None) -> bool:
    """Whether a message of ``<package>.msg`` is constructed in a fresh interpreter of this environment (a fresh one:
    this process may have cached a failed import)."""
    probe = subprocess.run([sys.executable, "-c", f"import {package}.msg as m; m.{PROBE_TYPES[package]}()"],
                           env=env, capture_output=True)
    return probe.returncode == 0


def build_environment(prefix: Path) -> dict[str, str]:
    """The environment cmake finds the wheels' ament packages in (``prefix`` first)."""
    env = dict(os.environ)
    for name in ("AMENT_PREFIX_PATH", "CMAKE_PREFIX_PATH"):
        paths = [p for p in env.get(name, "").split(os.pathsep) if p]
        env[name] = os.pathsep.join([str(prefix)] + [p for p in paths if p != str(prefix)])
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    return env


def build(package: str, prefix: Path, log=print) -> float:
    """Configure, build and install ``interfaces/<package>`` into ``prefix``; returns the wall
    time [s]. InterfaceBuildError names the failed step and keeps its log."""
    missing = [tool for tool in BUILD_TOOLS if shutil.which(tool) is None]
    if missing:
        raise InterfaceBuildError(f"building {package} needs {', '.join(missing)} "
                                  "(Debian: apt-get install cmake build-essential)")
    source = share_file("interfaces", package)
    env = build_environment(prefix)
    started = time.perf_counter()
    work = Path(tempfile.mkdtemp(prefix=f"{package}-build-"))
    steps = [
        ("configure", ["cmake", "-S", str(source), "-B", str(work / "build"), f"-DCMAKE_INSTALL_PREFIX={prefix}",
                       f"-DPython3_EXECUTABLE={sys.executable}", "-DBUILD_TESTING=OFF"]),
        ("build", ["cmake", "--build", str(work / "build"), "-j", str(os.cpu_count() or 1)]),
        ("install", ["cmake", "--install", str(work / "build")]),
    ]
    for step, command in steps:
        log_path = work / f"{step}.log"
        with open(log_path, "w") as out:
            result = subprocess.run(command, env=env, stdout=out, stderr=subprocess.STDOUT)
        if result.returncode != 0:
            tail = log_path.read_text(errors="replace")[-2000:]
            raise InterfaceBuildError(f"{package}: cmake {step} failed (log {log_path}):\n{tail}")
    shutil.rmtree(work, ignore_errors=True)
    if not importable(package, env):
        raise InterfaceBuildError(f"{package} was installed into {prefix} but does not import")
    return time.perf_counter() - started


def ensure(prefix: Path | None = None, log=print) -> dict[str, str]:
    """Every package of :data:`PACKAGES` importable: built where missing. Returns {package: what
    was done}."""
    prefix = Path(prefix or sys.prefix)
    done = {}
    for package in PACKAGES:
        if importable(package):
            done[package] = "present"
            continue
        log(f"== building {package} from interfaces/{package} into {prefix} ==")
        seconds = build(package, prefix, log)
        done[package] = f"built in {seconds:.1f} s"
        log(f"   {package}: {done[package]}")
    return done


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--prefix", default=None, help="install prefix (default: this environment, sys.prefix)")
    args = parser.parse_args(argv)
    try:
        for package, what in ensure(args.prefix).items():
            print(f"{package}: {what}")
    except InterfaceBuildError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
