"""The CI rule for security-layer tests: a skip while the layer is active here is a failure."""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
import xml.etree.ElementTree as ElementTree
from pathlib import Path

import pytest
from layer_skips import LAYERS, active_layers, layers_in_reason

TESTS = Path(__file__).resolve().parent
BARE = {"PYTHONPATH": str(TESTS), "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}  # seconds, not ten

INNER = """
import pytest

@pytest.mark.layer("network")
def test_skips_an_active_layer():
    pytest.skip("no network namespace, it thinks")

@pytest.mark.layer("network", "seccomp")
def test_skips_when_one_of_its_layers_is_off():
    pytest.skip("seccomp is off here")

def test_names_an_active_layer_in_its_reason():
    pytest.skip("isolation layer network is not available here: {}")

def test_names_an_inactive_mode_in_its_reason():
    pytest.skip("filesystem mode mount is not available here: {}")

def test_skips_for_another_reason():
    pytest.skip("needs a GPU")

@pytest.fixture
def needs_network():
    pytest.skip("layer network is not available here: {}")

def test_skips_in_a_fixture(needs_network):
    pass

@pytest.mark.layer("network")
def test_runs():
    pass
"""


def run_inner(tmp_path: Path, ci: str | None, active: dict[str, bool], body: str = INNER) -> dict:
    """Run INNER under the hook; each test's outcome by name."""
    (tmp_path / "test_inner.py").write_text(body)
    env = {
        **os.environ,
        **BARE,
        "SPADEGYM_TEST_ACTIVE_LAYERS": json.dumps(active),
    }
    env.pop("CI", None)
    if ci is not None:
        env["CI"] = ci
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "layer_skips", "-p", "no:cacheprovider", "-q"]
        + ["-W", "ignore::pytest.PytestUnknownMarkWarning", "--junitxml", "out.xml"]
        + ["test_inner.py"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    if not (tmp_path / "out.xml").exists():
        return {"stdout": done.stdout + done.stderr}
    outcomes = {}
    for case in ElementTree.parse(tmp_path / "out.xml").iter("testcase"):
        kinds = [child.tag for child in case if child.tag in ("failure", "error", "skipped")]
        outcomes[case.get("name")] = kinds[0] if kinds else "passed"
    return outcomes


def test_in_ci_a_skip_of_an_active_layer_fails(tmp_path):
    outcomes = run_inner(tmp_path, "true", {"network": True, "seccomp": False, "mount": False})
    assert outcomes == {
        "test_skips_an_active_layer": "failure",
        "test_skips_when_one_of_its_layers_is_off": "skipped",
        "test_names_an_active_layer_in_its_reason": "failure",
        "test_names_an_inactive_mode_in_its_reason": "skipped",
        "test_skips_for_another_reason": "skipped",
        "test_skips_in_a_fixture": "error",
        "test_runs": "passed",
    }


def test_outside_ci_skips_stay_skips(tmp_path):
    outcomes = run_inner(tmp_path, None, {"network": True, "seccomp": True, "mount": True})
    assert outcomes["test_skips_an_active_layer"] == "skipped"
    assert outcomes["test_names_an_active_layer_in_its_reason"] == "skipped"
    assert run_inner(tmp_path, "false", {"network": True})["test_skips_in_a_fixture"] == "skipped"


def test_the_failure_says_why(tmp_path):
    (tmp_path / "test_inner.py").write_text(INNER)
    env = {**os.environ, **BARE, "CI": "true"}
    env["SPADEGYM_TEST_ACTIVE_LAYERS"] = json.dumps({"network": True})
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "layer_skips", "-p", "no:cacheprovider", "-q"]
        + ["-W", "ignore::pytest.PytestUnknownMarkWarning", "test_inner.py::test_runs"]
        + ["test_inner.py::test_skips_an_active_layer"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 1
    assert "but spadegym doctor reports network active on this machine" in done.stdout


def test_an_unknown_layer_name_is_an_error(tmp_path):
    body = 'import pytest\n\n@pytest.mark.layer("landlok")\ndef test_x():\n    pytest.skip("x")\n'
    (tmp_path / "test_inner.py").write_text(body)
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "layer_skips", "-p", "no:cacheprovider", "-q"]
        + ["-W", "ignore::pytest.PytestUnknownMarkWarning", "test_inner.py"],
        cwd=tmp_path,
        env={**os.environ, **BARE},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 4, done.stdout + done.stderr  # a usage error
    assert "names ['landlok'], not a sandbox layer; use one of rlimits" in done.stderr


@pytest.mark.parametrize(
    ("reason", "layers"),
    [
        ("isolation layer seccomp is not available here: {...}", {"seccomp"}),
        ("layer privileges is not available here: None", {"privileges"}),
        ("filesystem mode landlock is not available here: {...}", {"landlock"}),
        ("the kernel has no Landlock", {"landlock"}),
        ("no mount namespace here: {...}", {"mount"}),
        ("libseccomp is not installed", {"seccomp"}),
        ("workers share a uid here (the host is not root): seccomp is the layer", {"own-uid"}),
        ("layer warp is not available here", set()),
        ("system call numbers of x86-64", set()),
    ],
)
def test_reasons_name_their_layer(reason, layers):
    assert layers_in_reason(reason) == layers


def skip_messages(path: Path) -> list[tuple[int, str]]:
    """Each ``pytest.skip(...)`` message of a file, formatted parts as ``X``."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not (isinstance(node, ast.Call) and ast.unparse(node.func) == "pytest.skip"):
            continue
        message = node.args[0] if node.args else None
        if isinstance(message, ast.Constant):
            found.append((node.lineno, str(message.value)))
        elif isinstance(message, ast.JoinedStr):
            parts = [v.value if isinstance(v, ast.Constant) else "X" for v in message.values]
            found.append((node.lineno, "".join(parts)))
        else:
            found.append((node.lineno, ast.unparse(node)))
    return found


def test_every_sandbox_skip_names_its_layer():
    # The rule reads the skip reasons of tests/sandbox: a new skip there must name its layer
    # (or its test must carry @pytest.mark.layer), or CI could pass it by skipping.
    unnamed = [
        f"{path.name}:{line}: {message}"
        for path in sorted((TESTS / "sandbox").glob("test_*.py"))
        for line, message in skip_messages(path)
        if not layers_in_reason(message.replace("X", "network"))
    ]
    assert not unnamed, f"skips in tests/sandbox that name no layer: {unnamed}"


def test_the_probe_reports_every_layer():
    active_layers.cache_clear()
    saved = os.environ.pop("SPADEGYM_TEST_ACTIVE_LAYERS", None)
    try:
        found = active_layers()
    finally:
        active_layers.cache_clear()
        if saved is not None:
            os.environ["SPADEGYM_TEST_ACTIVE_LAYERS"] = saved
    assert set(found) == set(LAYERS), found
    assert all(isinstance(on, bool) for on in found.values())
