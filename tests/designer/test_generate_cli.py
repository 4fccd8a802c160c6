from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

from spadegym.cli import generate as generate_cli

REPLAY = Path(__file__).resolve().parents[1] / "data" / "replays" / "designer.jsonl"

pytestmark = pytest.mark.filterwarnings("ignore::spadegym.registry.ShadowedEnvironmentWarning")


def run(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="spadegym")
    generate_cli.add_parsers(parser.add_subparsers())
    args = parser.parse_args(["generate", *argv])
    return args.func(args)


def test_generate_command_prints_a_table_or_json(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("SPADEGYM_SHIPPED_REGISTRY", "")
    monkeypatch.setenv("SPADEGYM_HOME", str(tmp_path / "home"))
    base = [
        "--llm",
        f"replay:{REPLAY}",
        "--registry",
        str(tmp_path / "reg"),
        "--skill",
        "Logical_Deduction",
        "--concurrency",
        "2",
        "--no-memory",
    ]
    assert run(["-n", "2", *base]) == 0
    out, err = capsys.readouterr()
    assert "spade/IceMaze-v0" in out and "2 accepted" in out
    assert "generate 2/2" in err
    # The same command again resumes: nothing new is asked, and it says so.
    assert run(["-n", "2", *base]) == 0
    assert "2 candidate(s) were already done in this log" in capsys.readouterr().out
    assert run(["-n", "1", *base, "--seed", "3", "--json"]) == 0
    out, err = capsys.readouterr()
    data = json.loads(out)
    assert data["counts"]["accepted"] == 1 and err == ""


def test_usage_errors_exit_2(tmp_path, capsys):
    assert run(["--llm", f"replay:{REPLAY}", "--difficulty", "hard"]) == 2
    assert "--difficulty 'hard' is not a number" in capsys.readouterr().err
    assert run(["--llm", "nosuch:x"]) == 2
    assert "unknown scheme 'nosuch'" in capsys.readouterr().err
    assert (
        run(["--llm", f"replay:{REPLAY}", "--difficulty", "9", "--registry", str(tmp_path / "r")])
        == 2
    )
    assert "difficulty=9: difficulties are ints in 1..5." in capsys.readouterr().err


def test_the_default_memory_is_used_and_created(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("SPADEGYM_SHIPPED_REGISTRY", "")
    monkeypatch.setenv("SPADEGYM_HOME", str(tmp_path / "home"))
    assert (
        run(
            [
                "-n",
                "1",
                "--llm",
                f"replay:{REPLAY}",
                "--registry",
                str(tmp_path / "reg"),
                "--concurrency",
                "1",
                "--quiet",
            ]
        )
        == 0
    )
    from spadegym.memory.default import open_memory

    memory = open_memory(tmp_path / "home" / "memory")
    assert memory.ids() == ["spade/IceMaze-v0"]  # the accepted one was recorded there
    memory.close()
