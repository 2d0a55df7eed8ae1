"""biped_stack: ament_python package, also pip-installable (``pip install -e .``)."""

from pathlib import Path

from setuptools import find_packages, setup

PACKAGE = "biped_stack"
SHARE_DIRS = ("config", "interfaces", "launch", "robots", "web")  # found at run time by biped_common.resources


def share_files() -> list[tuple[str, list[str]]]:
    """Every file under SHARE_DIRS, installed to share/<package>/ with the same layout."""
    by_dir: dict[str, list[str]] = {}
    for top in SHARE_DIRS:
        for path in sorted(Path(top).rglob("*")):
            if path.is_file() and "__pycache__" not in path.parts:
                by_dir.setdefault(f"share/{PACKAGE}/{path.parent.as_posix()}", []).append(path.as_posix())
    return sorted(by_dir.items())


setup(
    name=PACKAGE,
    version="0.1.0",
    packages=find_packages(include=["biped_common*", "biped_stack*", "sim_bridge*", "wbc_node*",
                                    "gait_planner_node*", "mpc_node*", "state_estimator_node*",
                                    "muscle_allocator_node*", "reach_planner_node*", "tf_publisher_node*"]),
    data_files=[
        ("share/ament_index/resource_index/packages", [f"resource/{PACKAGE}"]),
        (f"share/{PACKAGE}", ["package.xml"]),
        *share_files(),
    ],
    install_requires=["numpy", "scipy", "pyyaml", "ruamel.yaml", "mujoco", "pin", "osqp", "quadprog"],
    extras_require={"solvers": ["daqp", "proxsuite"], "video": ["imageio[ffmpeg]"]},
    zip_safe=True,
    python_requires=">=3.10",
    entry_points={
        "console_scripts": [
            "biped-stack = biped_stack.cli:main",
            "sim_bridge = sim_bridge.node:main",
            "mock_ros2_control_robot = sim_bridge.node:mock_robot_main",
            "wbc_node = wbc_node.node:main",
            "gait_planner_node = gait_planner_node.node:main",
            "mpc_node = mpc_node.node:main",
            "state_estimator_node = state_estimator_node.node:main",
            "muscle_allocator_node = muscle_allocator_node.node:main",
            "muscle_sim = sim_bridge.ros_muscle_sim:main",
            "reach_planner_node = reach_planner_node.node:main",
            "tf_publisher = tf_publisher_node.node:main",
            "stack_monitor = biped_stack.monitor_node:main",
            "walking_control = biped_stack.composed:control_main",
            "walking_planning = biped_stack.composed:planning_main",
        ],
    },
)
