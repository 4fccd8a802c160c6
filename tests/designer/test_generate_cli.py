from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

from spadegym.cli import generate as generate_cli

REPLAY = Path(__file__).resolve().parents[1] / "data" / "replays" / "designer.jsonl"


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
    assert "spade/IceMaze-v0" in out and "2 accepted" in out, out
    assert "generate 2/2" in err
    # The same command again resumes: nothing new is asked, and it says so.
    assert run(["-n", "2", *base]) == 0
    assert "2 candidate(s) were already done in this log" in capsys.readouterr().out
    # Another run (another seed, another log) replays the first reply again: the program is
    # registered already, so it is a duplicate, not a second acceptance of the same environment.
    assert run(["-n", "1", *base, "--seed", "3", "--json"]) == 0
    out, err = capsys.readouterr()
    data = json.loads(out)
    assert data["counts"]["accepted"] == 0 and data["counts"]["duplicate"] == 1 and err == ""
    assert data["candidates"][0]["reason"] == "exact copy of spade/IceMaze-v0, registered already"


def usage_error(argv: list[str], capsys) -> str:
    with pytest.raises(SystemExit) as exit_:
        run(argv)
    assert exit_.value.code == 2
    return capsys.readouterr().err


def test_usage_errors_exit_2(tmp_path, capsys):
    err = usage_error(["--llm", f"replay:{REPLAY}", "--difficulty", "hard"], capsys)
    assert "'hard' is not a difficulty or a comma-separated list of them" in err
    err = usage_error(["--llm", f"replay:{REPLAY}", "--difficulty", "9"], capsys)
    assert "difficulties are 1..5" in err
    err = usage_error(["--llm", f"replay:{REPLAY}", "--skill", "optimization"], capsys)
    assert "'optimization' is not how the skill is spelled; did you mean Optimization?" in err
    assert run(["--llm", "nosuch:x"]) == 2
    assert "unknown scheme 'nosuch'" in capsys.readouterr().err


def test_an_unreachable_server_stops_the_run_at_once_and_says_so(tmp_path, capsys):
    import socket
    import time

    with socket.socket() as sock:  # a port nothing listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    started = time.perf_counter()
    argv = ["-n", "6", "--llm", f"openai:m@http://127.0.0.1:{port}/v1", "--concurrency", "2"]
    code = run([*argv, "--registry", str(tmp_path / "reg"), "--no-memory", "--quiet"])
    seconds = time.perf_counter() - started
    out, err = capsys.readouterr()
    assert code == 1
    assert "spadegym generate: stopped early: the model could not be reached" in err
    assert f"Is the server at http://127.0.0.1:{port}/v1 running?" in err
    assert "not started: the run stopped because the model could not be reached" in " ".join(
        out.split()
    )
    assert seconds < 10


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
