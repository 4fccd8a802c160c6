"""The memory under concurrent first use, damaged files, a lost config.json and leftovers."""

from __future__ import annotations

import json
import os
import sqlite3
import struct
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from devset import programs

from spadegym.errors import ConfigError
from spadegym.memory import EnvironmentMemory, HashingEmbedder
from spadegym.memory.database import DamagedMemoryError
from spadegym.memory.default import open_memory
from spadegym.memory.progress import announce
from spadegym.util import leftovers

pytest.importorskip("faiss")

SOURCES = programs()
NAMES = ["lock", "nim", "maze", "wordle", "countdown", "hanoi"]
REPO = Path(__file__).resolve().parents[2]


def fill(memory, names=NAMES):
    memory.add_many([(name, SOURCES[name], None) for name in names])


def _env(home: Path) -> dict[str, str]:
    env = dict(os.environ)
    env.pop("SPADEGYM_SHIPPED_REGISTRY", None)  # the real shipped library
    env.update(
        SPADEGYM_HOME=str(home),
        XDG_CACHE_HOME=str(home / "cache"),
        PYTHONPATH=os.pathsep.join([str(REPO), *sys.path]),
    )
    return env


OPENER = """
import sys, time
from pathlib import Path
from spadegym.memory.default import open_memory
from spadegym.memory.store import EnvironmentMemory
start = Path(sys.argv[1])
Path(sys.argv[2]).touch()
while not start.exists():
    time.sleep(0.001)
memory = open_memory()
print(len(memory), memory.embedder.name)
memory.close()
"""


def test_four_processes_opening_a_new_default_memory_seed_it_once(tmp_path):
    home = tmp_path / "home"
    start = tmp_path / "start"
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", OPENER, str(start), str(tmp_path / f"{k}.ready")],
            env=_env(home),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for k in range(4)
    ]
    deadline = time.monotonic() + 120
    while len(list(tmp_path.glob("*.ready"))) < 4:  # every process waits at the line
        assert all(proc.poll() is None for proc in procs)
        assert time.monotonic() < deadline
        time.sleep(0.02)
    start.touch()
    results = [proc.communicate(timeout=180) for proc in procs]
    assert [proc.returncode for proc in procs] == [0] * 4, [err for _, err in results]
    library = len([p for p in (REPO / "registry").iterdir() if (p / "manifest.json").is_file()])
    assert {out.split()[0] for out, _ in results} == {str(library)}
    with EnvironmentMemory(home / "memory") as memory:
        assert len(memory) == library == len(set(memory.ids()))
        assert memory.setting("seeded") == "done"


def test_interrupted_seeding_is_finished_by_the_next_open(tmp_path, monkeypatch):
    monkeypatch.delenv("SPADEGYM_SHIPPED_REGISTRY", raising=False)
    path = tmp_path / "memory"
    memory = EnvironmentMemory(path, HashingEmbedder())
    memory.set_setting("seeded", "started")  # as a process killed after its first skill group
    memory.add("spade/NimDuel-v0", (REPO / "registry" / "NimDuel-v0" / "env.py").read_text())
    memory.close()
    memory = open_memory(path)
    assert len(memory) == len(list((REPO / "registry").glob("*/manifest.json")))
    assert memory.setting("seeded") == "done"
    memory.close()
    # a memory filled without seeding (seed=False, then adds) is left as it is
    other = open_memory(tmp_path / "other", HashingEmbedder(), seed=False)
    other.add("lock", SOURCES["lock"])
    other.close()
    again = open_memory(tmp_path / "other")
    assert again.ids() == ["lock"]
    again.close()


def _payload_offset(path: Path) -> int:
    data = path.read_bytes()
    (length,) = struct.unpack_from("<Q", data, 0)
    return 8 + length


def test_damaged_vectors_in_the_index_file_are_rebuilt_from_sqlite(tmp_path):
    path = tmp_path / "m"
    with EnvironmentMemory(path, HashingEmbedder()) as memory:
        fill(memory)
        expected = memory.similar(SOURCES["hanoi"], 3)
    index_file = path / "index.faiss"
    data = bytearray(index_file.read_bytes())
    # Overwrite bytes inside the stored vectors (the stamp in the header still matches).
    offset = _payload_offset(index_file) + len(data[_payload_offset(index_file) :]) // 2
    data[offset : offset + 64] = struct.pack("<16f", *([3.5e15] * 16))
    index_file.write_bytes(bytes(data))
    with EnvironmentMemory(path, HashingEmbedder()) as memory:
        found = memory.similar(SOURCES["hanoi"], 3)
        assert [(n.env_id, round(n.similarity, 5)) for n in found] == [
            (n.env_id, round(n.similarity, 5)) for n in expected
        ]
        assert all(-1.001 <= n.similarity <= 1.001 for n in found)
    assert index_file.read_bytes() != bytes(data)  # the rebuilt index was written back


def test_an_index_answering_impossible_scores_is_rebuilt(memory):
    fill(memory)
    expected = [n.env_id for n in memory.near("tower of discs pegs", 3)]
    index = memory._index.index  # damage the vectors held in memory, past every file check
    index.remove_ids(np.array([1], dtype=np.int64))
    index.add_with_ids(np.full((1, memory.dim), 1e15, dtype=np.float32), np.array([1]))
    found = memory.near("tower of discs pegs", 3)
    assert [n.env_id for n in found] == expected
    assert all(abs(n.similarity) <= 1.001 for n in found)


def test_an_index_file_from_elsewhere_is_not_trusted(tmp_path):
    # Two memories with the same counts: a copied file passes the stamp, not SQLite's checksum.
    with EnvironmentMemory(tmp_path / "a", HashingEmbedder()) as a:
        fill(a, NAMES[:3])
    with EnvironmentMemory(tmp_path / "b", HashingEmbedder()) as b:
        fill(b, NAMES[3:])
    (tmp_path / "a" / "index.faiss").write_bytes((tmp_path / "b" / "index.faiss").read_bytes())
    with EnvironmentMemory(tmp_path / "a", HashingEmbedder()) as a:
        assert a.near("tower of discs pegs", 1)[0].env_id != "hanoi"
        assert {n.env_id for n in a.near("anything", 3)} == set(NAMES[:3])


def test_close_leaves_the_index_file_level_with_sqlite(tmp_path, monkeypatch):
    path = tmp_path / "m"
    with EnvironmentMemory(path, HashingEmbedder()) as memory:
        fill(memory, NAMES[:3])
    reader = EnvironmentMemory(path, HashingEmbedder())
    reader.near("lock", 1)  # loads the file
    writer = EnvironmentMemory(path, HashingEmbedder())
    monkeypatch.setattr(writer, "_save_index", lambda: None)  # a writer that never saves
    fill(writer, NAMES[3:])
    monkeypatch.undo()
    reader.near("lock", 1)  # catches up from SQLite
    reader.close()
    data = (path / "index.faiss").read_bytes()
    (length,) = struct.unpack_from("<Q", data, 0)
    stamp = json.loads(data[8 : 8 + length])
    db = sqlite3.connect(path / "memory.sqlite")
    count, max_id = db.execute("SELECT COUNT(*), MAX(id) FROM envs").fetchone()
    checksum = db.execute("SELECT value FROM meta WHERE key = 'index_checksum'").fetchone()[0]
    db.close()
    assert (stamp["count"], stamp["max_rowid"], stamp["checksum"]) == (count, max_id, checksum)
    assert count == len(NAMES)
    writer._db.close()
    writer._connection = None


def test_a_lost_config_json_is_rewritten_from_sqlite(tmp_path):
    path = tmp_path / "m"
    with EnvironmentMemory(path, HashingEmbedder(64)) as memory:
        fill(memory, NAMES[:2])
    (path / "config.json").unlink()
    with EnvironmentMemory(path) as memory:  # None: the embedder SQLite records
        assert memory.embedder.name == "hashing-64" and memory.dim == 64
        assert memory.near("lock", 1)[0].env_id == "lock"
    assert json.loads((path / "config.json").read_text())["embedder"] == "hashing-64"
    with pytest.raises(ConfigError, match=r"built with embedder 'hashing-64' \(64-d\)"):
        EnvironmentMemory(path, HashingEmbedder(32))


def test_config_json_and_sqlite_disagreeing_is_refused(tmp_path):
    path = tmp_path / "m"
    EnvironmentMemory(path, HashingEmbedder(64)).close()
    (path / "config.json").write_text(json.dumps({"embedder": "hashing-32", "dim": 32}))
    with pytest.raises(ConfigError, match="records embedder 'hashing-64' .* in memory.sqlite but"):
        EnvironmentMemory(path)


def test_an_old_memory_without_its_config_is_not_opened_with_a_guess(tmp_path):
    path = tmp_path / "m"
    with EnvironmentMemory(path, HashingEmbedder(64)) as memory:
        fill(memory, NAMES[:2])
    db = sqlite3.connect(path / "memory.sqlite")  # as a memory made before the config table
    db.execute("DROP TABLE config")
    db.commit()
    db.close()
    (path / "config.json").unlink()
    with pytest.raises(ConfigError, match="holds 64-d vectors but records no embedder"):
        EnvironmentMemory(path)
    with pytest.raises(ConfigError, match="makes 32-d ones"):
        EnvironmentMemory(path, HashingEmbedder(32))
    with EnvironmentMemory(path, HashingEmbedder(64)) as memory:  # the right one is recorded
        assert len(memory) == 2
    assert EnvironmentMemory(path).embedder.name == "hashing-64"


def test_a_damaged_database_is_one_clear_error(tmp_path):
    path = tmp_path / "m"
    with EnvironmentMemory(path, HashingEmbedder()) as memory:
        fill(memory)
    (path / "memory.sqlite").write_bytes(b"this is not a database" * 100)
    for name in ("memory.sqlite-wal", "memory.sqlite-shm"):
        (path / name).unlink(missing_ok=True)
    with pytest.raises(DamagedMemoryError, match=r"memory.sqlite is damaged \(file is not a"):
        EnvironmentMemory(path)


def test_damage_found_by_a_query_is_the_same_error(tmp_path):
    path = tmp_path / "m"
    with EnvironmentMemory(path, HashingEmbedder()) as memory:
        memory.add_many(
            [(f"env-{i}", SOURCES[NAMES[i % len(NAMES)]], "x" * 3000) for i in range(60)]
        )
    database = path / "memory.sqlite"
    data = bytearray(database.read_bytes())
    page = 4096
    data[len(data) // page // 2 * page : len(data) // page // 2 * page + page] = b"\xff" * page
    database.write_bytes(bytes(data))
    with pytest.raises(DamagedMemoryError, match="move the folder|Move the folder"):
        with EnvironmentMemory(path, HashingEmbedder()) as memory:
            for env_id in [f"env-{i}" for i in range(60)]:
                memory.get(env_id)
            memory.ids()
            memory.near("lock", 60)


def test_leftovers_of_dead_writers_are_removed_when_the_memory_opens(tmp_path):
    path = tmp_path / "m"
    EnvironmentMemory(path, HashingEmbedder()).close()
    dead = _dead_pid()
    host = leftovers.HOST
    mine = path / f".index-{dead}-{host}-0123abcd.tmp"
    live = path / f".index-{os.getppid()}-{host}-0123abcd.tmp"
    old = path / ".index-oldformatnopid"
    for file in (mine, live, old, path / "config.json.tmp"):
        file.write_bytes(b"half written")
    EnvironmentMemory(path, HashingEmbedder()).close()
    assert not mine.exists() and not (path / "config.json.tmp").exists()
    assert live.exists() and old.exists()  # a live writer's, and one of unknown owner


def _dead_pid() -> int:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


def test_slow_operations_are_announced_and_quick_ones_are_not():
    lines: list[str] = []
    with announce(lines.append, "quick", delay=0.5):
        pass
    assert lines == []
    with announce(lines.append, "loading the embedder", delay=0.05):
        time.sleep(0.3)
    assert lines[0] == "loading the embedder ..."
    assert lines[1].startswith("loading the embedder: done in ")


class SlowEmbedder(HashingEmbedder):
    def embed(self, texts):
        time.sleep(0.2)
        return super().embed(texts)


def test_the_memory_announces_a_slow_embedding(tmp_path, monkeypatch):
    monkeypatch.setattr("spadegym.memory.progress.DELAY", 0.05)
    lines: list[str] = []
    with EnvironmentMemory(tmp_path / "m", SlowEmbedder(), progress=lines.append) as memory:
        memory.add("lock", SOURCES["lock"])
    assert lines[0] == "embedding 1 text(s) with hashing-384 (its first use loads the model) ..."
