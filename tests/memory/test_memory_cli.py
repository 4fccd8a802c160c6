from __future__ import annotations

import argparse
import json

import pytest
from devset import programs

from spadegym.cli.memory import add_parsers
from spadegym.memory import EnvironmentMemory, HashingEmbedder
from spadegym.memory.default import default_memory_path

SOURCES = programs()


def run(argv):
    parser = argparse.ArgumentParser()
    add_parsers(parser.add_subparsers())
    args = parser.parse_args(argv)
    return args.func(args)


@pytest.fixture
def stored(tmp_path):
    pytest.importorskip("faiss")
    path = tmp_path / "memory"
    with EnvironmentMemory(path, HashingEmbedder()) as memory:
        memory.add_many([(n, SOURCES[n], None) for n in ("lock", "nim", "wordle", "hanoi")])
        memory.record_plays("lock", plain=[0.5, 0.5], hint=[1.0, 1.0])
        memory.record_plays("nim", plain=[1.0, 1.0])
        memory.record_plays("hanoi", plain=[0.0, 0.0])
    return path


def test_stats_json(stored, capsys):
    assert run(["stats", "--memory", str(stored), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["environments"] == 4
    assert [s["env_id"] for s in out["frontier"]] == ["lock"]
    assert [s["env_id"] for s in out["too_easy"]] == ["nim"]
    assert [s["env_id"] for s in out["too_hard"]] == ["hanoi"]


def test_stats_text(stored, capsys):
    assert run(["stats", "--memory", str(stored)]) == 0
    out = capsys.readouterr().out
    assert "4 environments in memory" in out and "regret 0.50" in out


def test_similar_file_and_id(stored, tmp_path, capsys):
    program = tmp_path / "copy.py"
    program.write_text(SOURCES["wordle_renamed"])
    assert run(["similar", str(program), "--memory", str(stored), "--json", "-k", "2"]) == 0
    hits = json.loads(capsys.readouterr().out)
    assert hits[0]["env_id"] == "wordle" and hits[0]["code_similarity"] == pytest.approx(1.0)
    assert run(["similar", "lock", "--memory", str(stored)]) == 0
    assert "lock " not in capsys.readouterr().out.split("\n")[0]


def test_similar_shows_the_signals_of_each_neighbour(stored, tmp_path, capsys):
    program = tmp_path / "rewrite.py"
    program.write_text(SOURCES["wordle_rewrite"])
    assert run(["similar", str(program), "--memory", str(stored), "-k", "2"]) == 0
    first = capsys.readouterr().out.splitlines()[0]
    assert first.startswith("cosine ") and "  code 0." in first and "fingerprint -" in first
    assert "cross-play 5/5" in first and "=> same game (cross-play)  wordle " in first
    assert run(["similar", str(program), "--memory", str(stored), "--json", "--no-sandbox"]) == 0
    hits = json.loads(capsys.readouterr().out)
    assert hits[0]["cross_play"] is None and hits[0]["fingerprint_match"] is False
    program.write_text(SOURCES["wordle_renamed"])
    assert run(["similar", str(program), "--memory", str(stored), "--json"]) == 0
    top = json.loads(capsys.readouterr().out)[0]
    assert top["fingerprint_match"] and top["verdict"] == "fingerprint"
    assert top["cross_play"]["wins"] == 5


@pytest.mark.parametrize(
    "data, message",
    [
        (b"\x7fELF\x02\x01\x00\x00binary", "is a binary file, not a program; give a .py file"),
        ("x = 'caf\u00e9'\n".encode("latin-1"), "is not UTF-8 text (byte 0xe9 at offset 8)"),
    ],
)
def test_similar_refuses_files_that_are_not_programs(stored, tmp_path, capsys, data, message):
    program = tmp_path / "odd.bin"
    program.write_bytes(data)
    assert run(["similar", str(program), "--memory", str(stored)]) == 1
    err = capsys.readouterr().err
    assert err == f"spadegym similar: {program} {message}" + (
        "; programs are UTF-8: save it as UTF-8 and try again\n" if "UTF-8" in message else "\n"
    )


def test_errors(stored, tmp_path, capsys):
    assert run(["similar", "ghost", "--memory", str(stored)]) == 1
    assert "neither a program file nor an env_id" in capsys.readouterr().err
    assert run(["stats", "--memory", str(tmp_path / "none")]) == 1
    assert "no memory at" in capsys.readouterr().err
    assert run(["stats", "--memory", str(stored), "--band", "0.9", "0.1"]) == 2


def test_default_path(monkeypatch, tmp_path):
    monkeypatch.delenv("SPADEGYM_HOME", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    assert default_memory_path() == tmp_path / "spadegym" / "memory"
    monkeypatch.setenv("SPADEGYM_HOME", str(tmp_path / "home"))
    assert default_memory_path() == tmp_path / "home" / "memory"
