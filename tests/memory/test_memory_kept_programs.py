"""What the memory keeps of each program: source, fingerprint version, signature, code keys."""

from __future__ import annotations

import sqlite3

import pytest
from devset import programs

from spadegym.memory import DedupConfig, EnvironmentMemory, HashingEmbedder, behaviour
from spadegym.memory.fingerprint import fingerprint_version
from spadegym.sandbox import SandboxWorker

SOURCES = programs()


@pytest.fixture
def quiet(tmp_path):
    """A memory that records no signatures (storage tests need no sandbox)."""
    pytest.importorskip("faiss")
    with EnvironmentMemory(
        tmp_path / "m", HashingEmbedder(), dedup=DedupConfig(behaviour=False)
    ) as memory:
        yield memory


def test_exact_copies_survive_a_python_upgrade(tmp_path):
    path = tmp_path / "m"
    with EnvironmentMemory(path, HashingEmbedder(), dedup=DedupConfig(behaviour=False)) as memory:
        memory.add_many([(n, SOURCES[n], None) for n in ("lock", "nim", "maze")])
    # Fake a memory written by another Python: other fingerprints, recorded as such.
    db = sqlite3.connect(path / "memory.sqlite")
    db.execute("UPDATE envs SET fingerprint = 'from-3.8-' || env_id, shape = 'x'")
    db.execute("UPDATE programs SET fingerprint_version = '1/py3.8'")
    db.commit()
    db.close()
    with EnvironmentMemory(path, HashingEmbedder()) as memory:
        assert memory.find_copy(SOURCES["lock_renamed"]) == "lock"
        novelty = memory.check_novelty(SOURCES["nim_reformatted"])
        assert not novelty.novel and novelty.signal == "fingerprint"
        versions = memory._db.execute("SELECT DISTINCT fingerprint_version FROM programs")
        assert [v for (v,) in versions] == [fingerprint_version()]
        assert memory.stale_fingerprints() == 0


def test_rows_without_a_stored_program_keep_their_fingerprint(tmp_path):
    path = tmp_path / "m"
    with EnvironmentMemory(path, HashingEmbedder(), dedup=DedupConfig(behaviour=False)) as memory:
        memory.add("lock", SOURCES["lock"])
    db = sqlite3.connect(path / "memory.sqlite")
    db.execute("DELETE FROM programs")  # as a memory written before programs were kept
    db.commit()
    db.close()
    with EnvironmentMemory(path, HashingEmbedder()) as memory:
        assert memory.stale_fingerprints() == 1
        assert memory.find_copy(SOURCES["lock"]) == "lock"
        assert memory.source("lock") is None


def test_programs_and_signatures_go_with_their_environment(tmp_path):
    with EnvironmentMemory(tmp_path / "m", HashingEmbedder()) as memory:
        memory.add("lock", SOURCES["lock"])
        assert memory.source("lock") == SOURCES["lock"]
        assert memory.signature("lock") is not None
        assert memory.remove("lock")
        counts = [
            memory._db.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0]
            for table in ("programs", "signatures", "code_keys")
        ]
        assert counts == [0, 0, 0]
        memory.add("lock", SOURCES["lock"])  # the id is free again
        assert memory.signature("lock") is not None


def test_signatures_are_played_in_a_sandbox_worker(tmp_path, monkeypatch):
    played_in = []
    real = behaviour.compute_signature

    def spy(worker, source, *args):
        played_in.append(type(worker))
        return real(worker, source, *args)

    monkeypatch.setattr(behaviour, "compute_signature", spy)
    with EnvironmentMemory(tmp_path / "m", HashingEmbedder()) as memory:
        memory.add("lock", SOURCES["lock"])
        memory.add("maze", SOURCES["maze"])
        assert played_in == [SandboxWorker, SandboxWorker]
        # A signature probed by check_novelty is reused by add: the program is not played again.
        with memory.sandbox() as worker:
            memory.check_novelty(SOURCES["nim"], sandbox=worker)
            memory.add("nim", SOURCES["nim"])
        assert len(played_in) == 3


def test_shipped_programs_need_no_sandbox(tmp_path, monkeypatch):
    monkeypatch.setattr(behaviour, "compute_signature", None)  # would fail if called
    with EnvironmentMemory(tmp_path / "m", HashingEmbedder()) as memory:
        memory.add("spade/NimDuel-v0", SOURCES["lib/NimDuel"])
        assert memory.signature("spade/NimDuel-v0").two_player


def test_failures_in_the_sandbox_are_recorded_not_raised(tmp_path):
    failing = SOURCES["lock"].replace(
        "def reset(self, seed=None, options=None):",
        "def reset(self, seed=None, options=None):\n        raise ValueError('no')",
    )
    refused = "import os\n" + SOURCES["lock"]  # parses, but the policy refuses it
    with EnvironmentMemory(tmp_path / "m", HashingEmbedder()) as memory:
        memory.add("failing", failing)
        memory.add("refused", refused)
        sig = memory.signature("failing")
        assert all("ValueError" in p.error and p.solution is None for p in sig.probes)
        assert memory.signature("refused") is None and memory.source("refused") == refused


def test_neighbours_by_code_are_compared_even_when_far_in_meaning(quiet):
    quiet.add_many([(n, SOURCES[n], None) for n in ("lock", "nim", "maze", "wordle")])
    # Reword every text of the lock so that its embedding moves away, keep its code.
    reworded = SOURCES["lock_reworded"]
    for word in ("lock", "digit", "combination", "clicks", "guess", "code"):
        reworded = reworded.replace(word, "zz" + word[::-1])
    quiet.dedup = DedupConfig(candidates=1, behaviour=False)
    found = quiet.check_novelty(reworded)
    assert not found.novel and found.nearest_id == "lock" and found.signal == "code"


def test_add_many_refuses_mismatched_signatures(quiet):
    from spadegym.errors import ConfigError

    with pytest.raises(ConfigError, match="pass one per item"):
        quiet.add_many([("lock", SOURCES["lock"], None)], signatures=[None, None])
    assert "lock" not in quiet
