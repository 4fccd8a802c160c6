"""The registry commands with the memory: inputs checked first, a broken memory stops them."""

from __future__ import annotations

import json
import time

import pytest
from registry_helpers import REPO, variant

from spadegym.cli import main
from spadegym.memory import EnvironmentMemory, HashingEmbedder
from spadegym.registry import Registry

pytest.importorskip("faiss")

LOCK = str(REPO / "examples" / "good" / "lock_pick.py")
NIM = str(REPO / "examples" / "good" / "nim.py")


def _run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def memory_path(tmp_path):
    path = tmp_path / "memory"
    EnvironmentMemory(path, HashingEmbedder()).close()  # reopened with its own embedder
    return path


def test_add_checks_its_files_before_anything_heavy(tmp_path, capsys, isolated):
    binary = tmp_path / "latin1.py"
    binary.write_bytes(b"# caf\xe9\n")
    started = time.perf_counter()
    code, out, err = _run(
        capsys, "add", tmp_path / "missing.py", binary, tmp_path, "--root", tmp_path / "r"
    )
    assert time.perf_counter() - started < 5.0
    assert code == 1 and out == ""
    assert err.splitlines() == [
        f"spadegym add: {tmp_path / 'missing.py'}: no such file",
        f"spadegym add: {binary}: is not UTF-8 text (byte 0xe9 at offset 5); save it as UTF-8",
        f"spadegym add: {tmp_path}: is a folder, not a program file",
    ]
    assert not (isolated / "memory").exists()  # no memory was opened, no model loaded


def test_import_checks_the_bundle_before_anything_heavy(tmp_path, capsys, isolated):
    not_a_bundle = tmp_path / "b.tar.gz"
    not_a_bundle.write_text("hello")
    for path, message in [
        (tmp_path / "none.tar.gz", "does not exist; give a .tar.gz bundle made by"),
        (not_a_bundle, "is not a readable .tar.gz bundle"),
    ]:
        code, _, err = _run(capsys, "import", path, "--root", tmp_path / "r")
        assert code == 1 and err.count("\n") == 1 and message in err
    assert not (isolated / "memory").exists()


def _corrupt(path):
    (path / "memory.sqlite").write_bytes(b"garbage" * 500)
    for name in ("memory.sqlite-wal", "memory.sqlite-shm"):
        (path / name).unlink(missing_ok=True)


def test_a_corrupt_memory_stops_add_unless_no_memory(tmp_path, capsys, memory_path):
    _corrupt(memory_path)
    root = tmp_path / "r"
    code, out, err = _run(capsys, "add", LOCK, "--root", root, "--memory", memory_path)
    assert code == 1 and out == ""
    assert err.count("\n") == 1
    assert err.startswith(f"spadegym add: the memory at {memory_path} cannot be used: the memory")
    assert "is damaged (file is not a database)" in err and "Pass --no-memory to add" in err
    assert not root.exists() or len(Registry(root)) == 0
    code, out, _ = _run(capsys, "add", LOCK, "--root", root, "--no-memory")
    assert code == 0 and out.split() == ["spade/LockPick-v0", LOCK]


def test_a_corrupt_memory_is_one_line_for_stats_similar_and_generate(tmp_path, capsys, memory_path):
    _corrupt(memory_path)
    for argv in (["stats"], ["similar", LOCK]):
        code, out, err = _run(capsys, *argv, "--memory", memory_path)
        assert code == 1 and out == "" and err.count("\n") == 1
        assert "is damaged (file is not a database)" in err
    replay = REPO / "tests" / "data" / "replays" / "designer.jsonl"
    code, _, err = _run(
        capsys,
        "generate",
        "-n",
        "1",
        "--llm",
        f"replay:{replay}",
        "--registry",
        tmp_path / "reg",
        "--memory",
        memory_path,
    )
    assert code != 0 and err.count("\n") == 1 and "is damaged" in err


def test_add_uses_the_memory_and_remove_forgets(tmp_path, capsys, memory_path, programs):
    root = tmp_path / "r"
    code, out, _ = _run(capsys, "add", LOCK, "--root", root, "--memory", memory_path)
    assert code == 0 and out.split() == ["spade/LockPick-v0", LOCK]
    copy = tmp_path / "copy.py"
    copy.write_text(variant(*programs["lock_pick"], 2)[0])
    code, _, err = _run(capsys, "add", copy, "--root", root, "--memory", memory_path)
    assert code == 1 and "duplicates spade/LockPick-v0" in err
    code, out, _ = _run(capsys, "remove", "LockPick-v0", "--root", root, "--memory", memory_path)
    assert code == 0 and out.strip() == "removed spade/LockPick-v0"
    with EnvironmentMemory(memory_path) as memory:
        assert memory.ids() == []
    code, out, _ = _run(capsys, "add", copy, "--root", root, "--memory", memory_path)
    assert code == 0 and out.split()[0] == "spade/LockPick-v0"


def test_verify_compares_the_memory_and_fix_brings_it_in_step(
    tmp_path, capsys, memory_path, isolated
):
    root = tmp_path / "r"
    assert _run(capsys, "add", LOCK, NIM, "--root", root, "--memory", memory_path)[0] == 0
    with EnvironmentMemory(memory_path) as memory:
        memory.remove("spade/Nim-v0")  # as a writer killed before its memory write
        memory.add("spade/Gone-v0", (REPO / "examples" / "good" / "ice_maze.py").read_text())
    code, out, err = _run(capsys, "verify", "--root", root, "--memory", memory_path)
    assert code == 1
    assert f"memory {memory_path}: BROKEN: 1 missing (spade/Nim-v0), 1 stale (spade/Gone-v0)" in out
    assert "bring the memory in step" in err
    code, out, _ = _run(capsys, "verify", "--root", root, "--memory", memory_path, "--fix")
    assert code == 0 and f"memory {memory_path}: fixed: 1 missing" in out
    code, out, _ = _run(capsys, "verify", "--root", root, "--memory", memory_path)
    assert code == 0 and f"memory {memory_path}: in step with the registry" in out
    with EnvironmentMemory(memory_path) as memory:
        assert sorted(memory.ids()) == ["spade/LockPick-v0", "spade/Nim-v0"]


def test_list_json_keeps_its_rows_for_a_healthy_root(root, capsys):
    code, out, _ = _run(capsys, "list", "--root", root.root, "--json")
    assert code == 0 and all("broken" not in row for row in json.loads(out))
