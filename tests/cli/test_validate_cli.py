"""``spadegym validate`` and ``doctor`` from the command line."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from spadegym.cli import main

ROOT = Path(__file__).resolve().parents[2]
GOOD = ROOT / "examples" / "good" / "lock_pick.py"
BAD = ROOT / "examples" / "bad" / "uses_global_random.py"


def test_valid_file_exits_0(capsys):
    assert main(["validate", str(GOOD)]) == 0
    out = capsys.readouterr().out
    assert "valid" in out and "LockPickEnv" in out and "1 valid, 0 rejected" in out


def test_rejected_file_exits_1_and_shows_the_reason(capsys):
    assert main(["validate", str(GOOD), str(BAD)]) == 1
    out = capsys.readouterr().out
    assert "REJECTED" in out and "random.randint is not available" in out


def test_json_output_is_one_array(capsys):
    assert main(["validate", "--json", str(GOOD), str(BAD)]) == 1
    data = json.loads(capsys.readouterr().out)
    assert [d["file"] for d in data] == [str(GOOD), str(BAD)]
    assert [d["ok"] for d in data] == [True, False]
    check = data[1]["checks"][-1]
    assert set(check) >= {"name", "passed", "message"} and check["name"] == "policy"


@pytest.mark.parametrize(
    "argv",
    [
        ["validate"],
        ["validate", "/no/such/file.py"],
        ["validate", "--seeds", "1", str(GOOD)],
        ["validate", "--difficulties", "9", str(GOOD)],
        ["no-such-command"],
    ],
)
def test_usage_errors_exit_2(argv, capsys):
    with pytest.raises(SystemExit) as exited:
        code = main(argv)
        raise SystemExit(code)
    assert exited.value.code == 2


def test_console_script_runs_in_a_subprocess():
    done = subprocess.run(
        [sys.executable, "-m", "spadegym.cli", "validate", str(GOOD)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr


def test_doctor_reports_layers(capsys):
    code = main(["doctor", "--json"])
    report = json.loads(capsys.readouterr().out)
    layers = report["layers"]
    assert set(layers) == {
        "rlimits",
        "network",
        "ipc",
        "filesystem",
        "privileges",
        "pdeathsig",
        "seccomp",
    }
    assert report["required"] == ["network", "privileges"]
    assert code == (0 if all(layer["active"] for layer in layers.values()) else 1)
