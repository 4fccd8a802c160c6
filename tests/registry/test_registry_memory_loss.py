"""A memory that lost or damaged its files forgets no registered environment.

Each case registers LockPick with a memory, damages the memory's files the way a disk, a
person or a killed process can, and then adds an exact copy of LockPick under another class
name: the copy must be refused (as a duplicate of the registered game when the memory can be
rebuilt, as a damaged memory when its pages are), never registered.
"""

from __future__ import annotations

import os
import random
import sqlite3
import subprocess
import sys

import pytest
from registry_helpers import REPO, child_env

from spadegym.cli import main
from spadegym.memory import EnvironmentMemory, HashingEmbedder
from spadegym.memory.database import DamagedMemoryError
from spadegym.registry import Registry

pytest.importorskip("faiss")

PAGE = 4096


@pytest.fixture
def setup(tmp_path, programs):
    """A root holding LockPick and Nim, their memory, and a renamed copy of LockPick."""
    root = Registry(tmp_path / "root")
    memory_path = tmp_path / "memory"
    with EnvironmentMemory(memory_path, HashingEmbedder()) as memory:
        for name in ("lock_pick", "nim"):
            root.add(*programs[name], memory=memory)
    copy = tmp_path / "copy.py"
    copy.write_text(programs["lock_pick"][0].replace("LockPickEnv", "CombinationEnv"))
    return root, memory_path, copy


def _add(capsys, copy, root, memory_path):
    code = main(["add", str(copy), "--root", str(root.root), "--memory", str(memory_path)])
    out, err = capsys.readouterr()
    return code, out, err


def _refused_as_duplicate(capsys, root, memory_path, copy):
    code, out, err = _add(capsys, copy, root, memory_path)
    assert code == 1 and out == "", err
    assert "duplicates spade/LockPick-v0" in err
    assert [e.id for e in root.list()] == ["spade/LockPick-v0", "spade/Nim-v0"]
    with EnvironmentMemory(memory_path) as memory:
        assert set(memory.digests()) == {"spade/LockPick-v0", "spade/Nim-v0"}
    return err


def test_an_undamaged_memory_refuses_the_copy_without_rebuilding(setup, capsys):
    err = _refused_as_duplicate(capsys, *setup)
    assert "recording them again" not in err


@pytest.mark.parametrize("how", ["zero length", "deleted", "deleted folder", "deleted rows"])
def test_a_lost_memory_is_rebuilt_from_the_registry_and_says_so(setup, capsys, how):
    root, memory_path, copy = setup
    database = memory_path / "memory.sqlite"
    if how == "zero length":
        database.write_bytes(b"")
    elif how == "deleted":
        for name in ("memory.sqlite", "memory.sqlite-wal", "memory.sqlite-shm"):
            (memory_path / name).unlink(missing_ok=True)
    elif how == "deleted folder":
        for path in memory_path.iterdir():
            path.unlink() if path.is_file() else None
        memory_path.rmdir()
        EnvironmentMemory(memory_path, HashingEmbedder()).close()  # a fresh, empty memory
    else:
        db = sqlite3.connect(database)
        db.execute("DELETE FROM envs WHERE env_id = 'spade/LockPick-v0'")
        db.commit()
        db.close()
    err = _refused_as_duplicate(capsys, root, memory_path, copy)
    line = f"spadegym: the memory at {memory_path} lacks "
    assert line in err and "recording them again from the registry's programs" in err


def test_a_deleted_wal_holding_an_acknowledged_add_is_rebuilt(setup, capsys, isolated, programs):
    root, memory_path, copy = setup
    # Another process adds Nim's variant and dies without closing: the add is acknowledged
    # and lives in the -wal file only.
    code = (
        "import os, sys\n"
        "from spadegym.memory import EnvironmentMemory\n"
        "from spadegym.registry import Registry\n"
        "source = open(sys.argv[1]).read().replace('class LockPickEnv', 'class DialEnv')\n"
        "source = source.replace('3-digit lock', '3-digit dial lock')\n"
        "source = source.replace('digits are in', 'dials are in')\n"
        "memory = EnvironmentMemory(sys.argv[2])\n"
        "print(Registry(sys.argv[3]).add(source, memory=memory, version_of='LockPick-v0'))\n"
        "sys.stdout.flush(); os._exit(0)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, REPO / "examples/good/lock_pick.py", memory_path, root.root],
        capture_output=True,
        text=True,
        env=child_env(root.root, isolated),
        cwd=REPO,
        timeout=300,
    )
    assert done.returncode == 0 and done.stdout.strip() == "spade/LockPick-v1", done.stderr
    wal = memory_path / "memory.sqlite-wal"
    assert wal.stat().st_size > 0
    wal.unlink()
    code_, out, err = _add(capsys, copy, root, memory_path)
    assert code_ == 1 and out == "" and "duplicates spade/LockPick-v" in err
    assert "lacks 1 registered environment(s) (spade/LockPick-v1)" in err
    with EnvironmentMemory(memory_path) as memory:
        assert set(memory.digests()) == {e.id for e in root.list()}


def test_overwritten_pages_are_found_before_the_memory_answers(setup, capsys):
    root, memory_path, copy = setup
    database = memory_path / "memory.sqlite"
    pages = database.stat().st_size // PAGE
    assert pages > 4
    rng = random.Random(7)
    with open(database, "r+b") as handle:
        for page in rng.sample(range(1, pages), 3):  # page 0 holds the header
            handle.seek(page * PAGE)
            handle.write(rng.randbytes(PAGE))
    for argv in (["add", str(copy), "--root", str(root.root)], ["stats"], ["similar", str(copy)]):
        code = main([*argv, "--memory", str(memory_path)])
        out, err = capsys.readouterr()
        assert code == 1 and out == "" and err.count("\n") == 1, err
        assert f"the memory database {database} is damaged (" in err
    assert [e.id for e in root.list()] == ["spade/LockPick-v0", "spade/Nim-v0"]


def test_every_overwritten_page_is_refused_at_open(setup, tmp_path):
    _, memory_path, _ = setup
    original = (memory_path / "memory.sqlite").read_bytes()
    rng = random.Random(3)
    how = []
    for page in range(1, len(original) // PAGE):
        damaged = bytearray(original)
        damaged[page * PAGE : (page + 1) * PAGE] = rng.randbytes(PAGE)
        (memory_path / "memory.sqlite").write_bytes(bytes(damaged))
        with pytest.raises(DamagedMemoryError) as caught:
            with EnvironmentMemory(memory_path) as memory:
                memory.digests()
        how.append("integrity check" in str(caught.value))
    # Most pages are not read by opening the memory: only the full check finds them.
    assert sum(how) >= len(how) // 2, how


def test_the_memory_checks_its_pages_only_after_an_outside_change(setup, monkeypatch):
    _, memory_path, _ = setup
    from spadegym.memory import integrity

    checks = []
    real = integrity.check
    monkeypatch.setattr(integrity, "check", lambda db: checks.append(1) or real(db))
    EnvironmentMemory(memory_path).close()
    assert checks == []
    os.utime(memory_path / "memory.sqlite", ns=(1, 1))
    EnvironmentMemory(memory_path).close()
    assert checks == [1]
    EnvironmentMemory(memory_path).close()
    assert checks == [1]


def test_a_damaged_byte_inside_a_stored_value_is_damage_not_a_traceback(setup, capsys):
    root, memory_path, copy = setup
    db = sqlite3.connect(memory_path / "memory.sqlite")
    db.execute("UPDATE envs SET title = CAST(x'ff41' AS TEXT)")  # the structure is intact
    db.execute("UPDATE programs SET source = x'78da0011'")  # a cut-short zlib stream
    db.execute("UPDATE envs SET vector = x'0000803f'")  # one float, not a vector
    db.commit()
    db.close()
    code = main(["similar", str(copy), "--memory", str(memory_path)])
    out, err = capsys.readouterr()
    assert code == 1 and out == "" and err.count("\n") == 1, err
    assert "memory.sqlite is damaged (" in err
    (memory_path / "index.faiss").unlink(missing_ok=True)  # rebuilt from the stored vectors
    with EnvironmentMemory(memory_path) as memory:
        with pytest.raises(DamagedMemoryError, match="a stored program cannot be read"):
            memory.source("spade/Nim-v0")
        with pytest.raises(DamagedMemoryError, match="a stored vector has 4 bytes, not 1536"):
            memory.flush()
    assert [e.id for e in root.list()] == ["spade/LockPick-v0", "spade/Nim-v0"]
