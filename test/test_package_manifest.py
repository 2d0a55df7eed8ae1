"""package.xml is complete and honest: valid REP 149 format 3, and every third-party module the
shipped code imports is declared — as a rosdep key or a ROS package that exists, or in the
documented pip fallback for the modules rosdep has no key for."""

import ast
import re
import sys

from catkin_pkg.package import parse_package_string

from biped_common.resources import package_share

ROOT = package_share()  # the checkout the tests run from
SHIPPED = sorted(p.parent.name for p in ROOT.glob("*/__init__.py") if p.parent.name not in ("test", "bench"))
PIP = "pip"  # no rosdep key: requirements-ros2.txt (or requirements-nodeps.txt)

# How a machine with a ROS 2 distribution gets each third-party module: its rosdep key (rosdistro's
# rosdep/python.yaml) or the ROS package released for Kilted (kilted/distribution.yaml), each
# checked in rosdistro at 8468e88 (2026-08-22); PIP where no key exists.
MODULE_SOURCES = {
    "numpy": "python3-numpy", "scipy": "python3-scipy", "yaml": "python3-yaml",
    "pinocchio": "pinocchio", "proxsuite": "proxsuite", "mujoco": "python3-mujoco-pip",
    "quadprog": "quadprog-pip", "sklearn": "python3-sklearn", "matplotlib": "python3-matplotlib",
    "imageio": "python3-imageio", "pytest": "python3-pytest", "catkin_pkg": "python3-catkin-pkg",
    "ruamel": "python3-ruamel.yaml", "selenium": "python3-selenium",
    "osqp": PIP, "daqp": PIP, "myo_sim": PIP,
}
PIP_DISTRIBUTIONS = {"osqp": "osqp", "daqp": "daqp", "myo_sim": "myo-sim"}
# ROS 2 packages imported under their own name (message packages, rclpy, ament_index_python).
ROS_MODULE = re.compile(r"^(rclpy|ament_index_python|builtin_interfaces|rcl_interfaces|std_srvs|\w+_msgs)$")
LAUNCH_TOOLS = {"launch", "launch_xml", "launch_ros", "ros2launch"}  # what `ros2 launch` of our files needs


def third_party_imports(paths) -> dict[str, set[str]]:
    """Top-level modules imported by ``paths`` that are neither the standard library nor ours."""
    ours = set(SHIPPED) | {p.stem for p in (ROOT / "test").rglob("*.py")}  # test modules import each other
    found: dict[str, set[str]] = {}
    for path in paths:
        for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names = [node.module]
            else:
                continue
            for name in names:
                top = name.split(".")[0]
                if top not in sys.stdlib_module_names and top not in ours:
                    found.setdefault(top, set()).add(str(path.relative_to(ROOT)))
    return found


def manifest():
    return parse_package_string((ROOT / "package.xml").read_text(), filename=str(ROOT / "package.xml"))


def declared_key(module: str) -> str:
    """The package.xml dependency that provides ``module`` (PIP for the pip fallback)."""
    if ROS_MODULE.match(module):
        return module
    assert module in MODULE_SOURCES, (f"{module!r} is imported but not mapped: find its rosdep key (or "
                                      "add it to requirements-ros2.txt) and declare it in package.xml")
    return MODULE_SOURCES[module]


def pip_fallback() -> set[str]:
    names = set()
    for file in ("requirements-ros2.txt", "requirements-nodeps.txt"):
        for line in (ROOT / file).read_text().splitlines():
            if line.strip() and not line.startswith("#"):
                names.add(re.split(r"[=<>\[ ]", line.strip())[0].lower())
    return names


def test_manifest_is_valid_format_3_in_schema_order():
    package = manifest()  # catkin_pkg (what rosdep, bloom and colcon read) raises on REP 149 errors
    package.validate()
    assert package.package_format == 3 and package.name == "biped_stack"
    assert [e.content for e in package.exports if e.tagname == "build_type"] == ["ament_python"]
    # package_format3.xsd is one <xs:sequence>: these groups, in this order.
    order = ["name", "version", "description", "maintainer", "license", "url", "author", "depends",
             "group_depend", "member_of_group", "export"]
    dependency_tags = {"build_depend", "build_export_depend", "buildtool_depend", "buildtool_export_depend",
                       "exec_depend", "depend", "doc_depend", "test_depend", "conflict", "replace"}
    import xml.etree.ElementTree as ET
    tags = [e.tag for e in ET.parse(ROOT / "package.xml").getroot() if isinstance(e.tag, str)]
    groups = [order.index("depends" if t in dependency_tags else t) for t in tags]
    assert groups == sorted(groups), f"package.xml elements out of the schema's order: {tags}"
    for single in ("name", "version", "description", "export"):
        assert tags.count(single) == 1, single


def test_every_module_the_shipped_code_imports_is_declared():
    package = manifest()
    run_keys = {d.name for d in package.exec_depends}
    pip = pip_fallback()
    imports = third_party_imports(p for pkg in SHIPPED for p in sorted((ROOT / pkg).rglob("*.py")))
    missing = {}
    for module, where in sorted(imports.items()):
        key = declared_key(module)
        ok = PIP_DISTRIBUTIONS.get(module) in pip if key == PIP else key in run_keys
        if not ok:
            missing[module] = (key, sorted(where)[:3])
    assert missing == {}, f"imported but not declared (module: (key, importers)): {missing}"
    used = {declared_key(m) for m in imports} | LAUNCH_TOOLS
    assert run_keys - used == set(), f"exec_depend on something no shipped module imports: {run_keys - used}"


def test_every_module_the_tests_import_is_declared():
    package = manifest()
    keys = {d.name for d in package.exec_depends} | {d.name for d in package.test_depends}
    imports = third_party_imports(sorted((ROOT / "test").rglob("*.py")))
    missing = {m: declared_key(m) for m in imports if declared_key(m) != PIP and declared_key(m) not in keys}
    assert missing == {}, f"test imports not declared as test_depend: {missing}"


def test_the_pip_fallback_pins_what_rosdep_cannot_install():
    pins = {line.split("==")[0]: line.split("==")[1] for line in
            (ROOT / "requirements-ros2.txt").read_text().splitlines() if "==" in line and not line.startswith("#")}
    pip_venv = {line.split("==")[0]: line.split("==")[1] for line in
                (ROOT / "requirements.txt").read_text().splitlines() if "==" in line and not line.startswith("#")}
    assert set(pins) == {PIP_DISTRIBUTIONS[m] for m, key in MODULE_SOURCES.items() if key == PIP} - {"myo-sim"}
    for name, version in pins.items():  # the same verified versions as the pip-only route
        assert pip_venv[name] == version, name


def test_the_import_scan_sees_what_it_should(tmp_path):
    module = tmp_path / "m.py"
    module.write_text("import os\nimport numpy.linalg\nfrom geometry_msgs.msg import Twist\nfrom . import x\n")
    global ROOT
    saved, ROOT = ROOT, tmp_path
    try:
        assert set(third_party_imports([module])) == {"numpy", "geometry_msgs"}
    finally:
        ROOT = saved
    assert declared_key("geometry_msgs") == "geometry_msgs" and declared_key("numpy") == "python3-numpy"
