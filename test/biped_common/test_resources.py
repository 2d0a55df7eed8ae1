"""One lookup for the shipped files: no other module builds a data path from its own location, and
a missing package or file is an error that says where it looked. (The install-space route itself is
tested end to end in test/integration/test_install_space.py.)"""

import ast
from pathlib import Path

import pytest

from biped_common import resources
from biped_common.resources import ResourceNotFoundError, package_share

ROOT = package_share()
LOOKUP_MODULE = ROOT / "biped_common" / "resources.py"


def modules_using_their_own_location(root: Path) -> list[str]:
    """Python files under the shipped packages and bench/ that read ``__file__`` (their own
    location), other than the lookup module."""
    shipped = [p.parent for p in root.glob("*/__init__.py") if p.parent.name != "test"] + [root / "bench"]
    offenders = []
    for path in sorted(p for top in shipped for p in top.rglob("*.py")):
        if path == LOOKUP_MODULE:
            continue
        for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
            if (isinstance(node, ast.Name) and node.id == "__file__") or \
                    (isinstance(node, ast.Attribute) and node.attr == "__file__"):
                offenders.append(f"{path.relative_to(root)}:{node.lineno}")
    return offenders


def test_no_module_but_the_lookup_finds_data_next_to_its_source():
    assert modules_using_their_own_location(ROOT) == []


def test_the_scan_catches_a_module_that_looks_next_to_itself(tmp_path):
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "core.py").write_text("from pathlib import Path\nDATA = Path(__file__).parent / 'x'\n")
    assert modules_using_their_own_location(tmp_path) == ["pkg/core.py:2"]


def test_shipped_files_are_found_in_a_checkout():
    assert (resources.styles_dir() / "neutral.yaml").is_file()
    assert (resources.scenarios_dir() / "teleop.yaml").is_file()
    assert (resources.robots_dir() / "humanoid.xml").is_file()
    assert resources.params_file("sim.yaml").is_file() and resources.launch_file("sim.launch.xml").is_file()
    assert resources.arm_angle_model().suffix == ".npz"


def test_a_missing_file_or_package_says_where_it_looked(monkeypatch):
    with pytest.raises(ResourceNotFoundError, match=r"config/nope.yaml is not in biped_stack's share directory"):
        resources.params_file("nope.yaml")
    monkeypatch.setenv("AMENT_PREFIX_PATH", "/nonexistent/prefix")
    with pytest.raises(ResourceNotFoundError, match=r"package 'no_such_pkg' not found.*/nonexistent/prefix"):
        package_share("no_such_pkg")
    with pytest.raises(FileNotFoundError):  # callers that handle a missing file handle this too
        package_share("no_such_pkg_either")
