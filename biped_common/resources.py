"""Where the files biped_stack ships are found — the one module that knows.

Styles, scenarios, robot models, parameter files, launch files and the arm-angle model are the
package's *share* files (``share/biped_stack/…`` in an install, the top of the repository in a
checkout). They are found, in this order:

1. the source tree this code was imported from, when it is one (``pip install -e .``, or running
   from the checkout): its ``package.xml`` names ``biped_stack``. The data then always belongs to
   the code that runs, and an edit under ``config/`` is seen without reinstalling;
2. the package's share directory in the ament index (``AMENT_PREFIX_PATH``): a colcon install
   space (symlinked or not), a ROS 2 distribution's package, or a non-editable pip install;
3. ``<sys.prefix>/share/biped_stack``: a non-editable pip install with ``AMENT_PREFIX_PATH`` unset
   (pip puts ``data_files`` under the environment's prefix).

No other module builds a data path from its own location (a test checks this): data next to the
source files exists in a checkout but not in a colcon install space.
"""

from __future__ import annotations

import os
import sys
from functools import lru_cache
from pathlib import Path

from biped_common.errors import BipedStackError

PACKAGE = "biped_stack"


class ResourceNotFoundError(BipedStackError, FileNotFoundError):
    """A package, a share directory or a shipped file that cannot be found."""


def _source_tree() -> Path | None:
    """The checkout this module was imported from, or None in an install space."""
    root = Path(__file__).resolve().parent.parent
    manifest = root / "package.xml"
    if manifest.is_file() and f"<name>{PACKAGE}</name>" in manifest.read_text(encoding="utf-8"):
        return root
    return None


def ament_package_prefix(package: str) -> Path | None:
    """Install prefix of ``package`` in the ament index (``AMENT_PREFIX_PATH``), or None."""
    from ament_index_python.packages import PackageNotFoundError, get_package_prefix
    try:
        return Path(get_package_prefix(package))
    except (PackageNotFoundError, LookupError, ValueError):
        return None


@lru_cache(maxsize=None)
def package_share(package: str = PACKAGE) -> Path:
    """Share directory of ``package`` (this package: see the module docstring for the order)."""
    if package == PACKAGE and (source := _source_tree()) is not None:
        return source
    prefix = ament_package_prefix(package)
    if prefix is not None and (prefix / "share" / package).is_dir():
        return prefix / "share" / package
    pip_share = Path(sys.prefix) / "share" / package
    if package == PACKAGE and (pip_share / "package.xml").is_file():
        return pip_share
    searched = os.environ.get("AMENT_PREFIX_PATH", "") or "(AMENT_PREFIX_PATH is not set)"
    raise ResourceNotFoundError(f"package {package!r} not found: not in the ament index ({searched})"
                                + (f", nor a source tree, nor {pip_share}" if package == PACKAGE else ""))


def share_file(*parts: str) -> Path:
    """A file or directory shipped in this package's share directory; ResourceNotFoundError names
    the path and where it was looked for when it does not exist."""
    path = package_share().joinpath(*parts)
    if not path.exists():
        raise ResourceNotFoundError(f"{'/'.join(parts)} is not in {PACKAGE}'s share directory "
                                    f"{package_share()} (a partial install?)")
    return path


def styles_dir() -> Path:
    """Directory of the shipped gait styles (``<name>.yaml``)."""
    return share_file("config", "styles")


def scenarios_dir() -> Path:
    """Directory of the shipped teleop scenarios (``<name>.yaml``)."""
    return share_file("config", "scenarios")


def robots_dir() -> Path:
    """Directory of the shipped robot descriptions (``<name>.yaml`` beside its MJCF)."""
    return share_file("robots")


def params_file(name: str) -> Path:
    """A shipped ROS parameter file, e.g. ``params_file("sim_mems.yaml")``."""
    return share_file("config", name)


def launch_file(name: str) -> Path:
    """A shipped launch file, e.g. ``launch_file("sim.launch.xml")``."""
    return share_file("launch", name)


def arm_angle_model() -> Path:
    """The shipped arm-angle model (MLP weights and metadata) of the reach planner."""
    return share_file("config", "arm_angle_mlp.npz")


def executable(package: str, name: str) -> Path | None:
    """``<prefix>/lib/<package>/<name>`` as ``ros2 run`` / ``ros2 launch`` find it, or None when
    the package has no such executable in the ament index (a pip install puts its console
    scripts in ``bin/`` instead; the launcher then runs the entry point)."""
    prefix = ament_package_prefix(package)
    if prefix is None:
        return None
    path = prefix / "lib" / package / name
    return path if path.is_file() and os.access(path, os.X_OK) else None


def myo_sim_models_dir() -> Path:
    """The MuJoCo musculoskeletal models shipped by the ``myo-sim`` wheel."""
    try:
        import myo_sim
    except ImportError as exc:
        raise ResourceNotFoundError("the myo-sim package is not installed "
                                    "(pip install --no-deps -r requirements-nodeps.txt)") from exc
    return Path(myo_sim.__file__).parent / "models"
