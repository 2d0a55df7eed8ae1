"""Cores never import rclpy: only node shells (``node.py``) and ``ros_*`` helper modules may."""

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ["biped_common", "biped_stack", "sim_bridge", "wbc_node", "gait_planner_node", "mpc_node",
            "state_estimator_node", "muscle_allocator_node", "reach_planner_node", "tf_publisher_node"]
ROS_CLIENT_MODULES = {"rclpy", "launch", "launch_ros"}


def imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(), filename=str(path))
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module.split(".")[0])
    return names


def core_modules():
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            if path.name == "node.py" or path.name.startswith("ros_"):
                continue
            yield path


def test_every_package_exists():
    for package in PACKAGES:
        assert (ROOT / package / "__init__.py").exists(), package


def test_cores_do_not_import_rclpy():
    offenders = {str(p.relative_to(ROOT)): sorted(imported_modules(p) & ROS_CLIENT_MODULES)
                 for p in core_modules() if imported_modules(p) & ROS_CLIENT_MODULES}
    assert offenders == {}, f"core modules importing a ROS client library: {offenders}"


def test_the_check_catches_an_rclpy_import(tmp_path):
    leaky = tmp_path / "core.py"
    leaky.write_text("import numpy\nfrom rclpy.node import Node\n")
    assert "rclpy" in imported_modules(leaky)
