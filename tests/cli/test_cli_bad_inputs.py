"""Bad input on the command line: one line that names the problem, a clean exit, nothing written."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from spadegym.cli import main
from spadegym.registry import Registry

REPO = Path(__file__).resolve().parents[2]
LOCK = REPO / "examples" / "good" / "lock_pick.py"


def _run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def home(isolated_spadegym, capsys):
    """An isolated home whose registry holds LockPick (added without a memory)."""
    code, _, err = _run(capsys, "add", LOCK, "--no-memory")
    assert code == 0, err
    return isolated_spadegym


def _one_line(err: str) -> str:
    assert err.count("\n") == 1 and "Traceback" not in err, err
    return err


def test_show_of_a_path_is_not_an_id(home, capsys):
    code, out, err = _run(capsys, "show", "../../etc/passwd")
    assert (code, out) == (1, "")
    assert _one_line(err).startswith(
        "spadegym show: '../../etc/passwd' is not an environment id; write spade/<Name>-v<N>"
    )


def test_play_refuses_a_negative_seed(home, capsys):
    with pytest.raises(SystemExit) as caught:
        main(["play", "LockPick", "--seed", "-1"])
    assert caught.value.code == 2
    err = capsys.readouterr().err
    assert err.splitlines()[-1] == (
        "spadegym play: error: argument --seed: '-1' is not a seed; a seed is an int >= 0."
    )


@pytest.mark.parametrize("target", ["folder", "/proc/x.tgz"])
def test_export_to_a_folder_or_an_unwritable_place(home, capsys, tmp_path, target):
    output = tmp_path if target == "folder" else Path(target)
    before = sorted(os.listdir(tmp_path))
    code, out, err = _run(capsys, "export", "LockPick", "-o", output)
    assert (code, out) == (1, "")
    expected = (
        f"spadegym export: {tmp_path} is a folder; give the bundle's file name, e.g. "
        f"{tmp_path}/envs.tar.gz.\n"
        if target == "folder"
        else "spadegym export: cannot write the bundle /proc/x.tgz ("
    )
    assert _one_line(err).startswith(expected)
    assert sorted(os.listdir(tmp_path)) == before


def test_generate_with_a_binary_replay_file(home, capsys, tmp_path):
    binary = tmp_path / "replay.bin"
    binary.write_bytes(bytes(range(256)) * 4)
    code, out, err = _run(capsys, "generate", "-n", "1", "--llm", f"replay:{binary}", "--no-memory")
    assert (code, out) == (2, "")
    assert _one_line(err) == (
        f"spadegym generate: the replay file {binary} is not UTF-8 text (byte 128); a replay "
        "file is JSONL, one reply record a line (see spadegym.llm.replay).\n"
    )
    assert not (home / "generate-logs").exists()


def test_generate_with_a_fifo_or_device_as_replay_does_not_hang(home, capsys, tmp_path):
    fifo = tmp_path / "replay.jsonl"
    os.mkfifo(fifo)
    for path in (fifo, Path("/dev/zero")):
        code, out, err = _run(
            capsys, "generate", "-n", "1", "--llm", f"replay:{path}", "--no-memory"
        )
        assert (code, out) == (2, "")
        assert _one_line(err).startswith(
            f"spadegym generate: the replay file {path} is not a regular file (a FIFO, socket"
        )


def test_add_with_a_file_as_root(home, capsys, tmp_path):
    afile = tmp_path / "file"
    afile.write_text("x")
    code, out, err = _run(capsys, "add", LOCK, "--root", afile, "--no-memory")
    assert (code, out) == (2, "")
    assert _one_line(err) == (
        f"spadegym add: --root {afile} is not a folder; give a registry folder.\n"
    )
    assert afile.read_text() == "x"


def test_add_of_a_fifo_does_not_hang(home, tmp_path):
    fifo = tmp_path / "program.py"
    os.mkfifo(fifo)
    env = dict(os.environ, PYTHONPATH=str(REPO))
    done = subprocess.run(
        [sys.executable, "-m", "spadegym.cli", "add", str(fifo), "--no-memory"],
        capture_output=True,
        text=True,
        env=env,
        cwd=REPO,
        timeout=120,
    )
    assert done.returncode == 1 and done.stdout == ""
    assert _one_line(done.stderr) == (
        f"spadegym add: {fifo}: is not a regular file (a FIFO, socket or device); give a "
        "program file\n"
    )
    assert [e.id for e in Registry(home / "registry").list()] == ["spade/LockPick-v0"]


def test_list_of_an_unknown_skill_names_the_skills(home, capsys):
    code, out, err = _run(capsys, "list", "--skill", "Nope")
    assert (code, out) == (1, "")
    assert _one_line(err) == (
        "spadegym list: no environment has the skill 'Nope'; the skills are Causal_Inference, "
        "Logical_Deduction, Mathematical_Reasoning, Optimization, Pattern_Recognition, "
        "Spatial_Reasoning.\n"
    )
    code, out, _ = _run(capsys, "list", "--skill", "Optimization")  # a skill, none yet
    assert code == 0 and "0 environments" in out


def test_an_unexpected_error_is_one_line_unless_debug(home, capsys, monkeypatch):
    from spadegym.cli import registry as cli_registry

    def broken(args):
        raise KeyError("surprise")

    monkeypatch.setattr(cli_registry, "run_list", broken)
    monkeypatch.setattr(
        cli_registry, "add_parsers", _patched(cli_registry.add_parsers, "list", broken)
    )
    code, out, err = _run(capsys, "list")
    assert (code, out) == (1, "")
    assert _one_line(err) == (
        "spadegym list: unexpected error: KeyError: 'surprise' (rerun with --debug for the "
        "traceback)\n"
    )
    with pytest.raises(KeyError, match="surprise"):
        main(["list", "--debug"])


def _patched(add_parsers, command, func):
    """``add_parsers`` whose ``command`` runs ``func``."""

    def patched(subparsers):
        add_parsers(subparsers)
        subparsers.choices[command].set_defaults(func=func)

    return patched
