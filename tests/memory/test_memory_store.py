from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest
from devset import programs

from spadegym.errors import ConfigError
from spadegym.memory import EnvironmentMemory, HashingEmbedder, IndexParams

SOURCES = programs()
ORIGINALS = [
    "lock",
    "nim",
    "maze",
    "wordle",
    "countdown",
    "hanoi",
    "knapsack",
    "sequence",
    "safe_dial",
    "stone_scale",
    "maze_count",
    "anagram",
    "sum_quiz",
    "pancakes",
    "coins",
    "odd_one",
]


def fill(memory, names=ORIGINALS):
    memory.add_many([(name, SOURCES[name], None) for name in names])


def test_add_and_get(memory):
    record = memory.add("lock-v0", SOURCES["lock"], first_observation="A lock.", skill="Logic")
    assert memory.get("lock-v0") == record
    assert record.skill == "Logic" and record.first_observation == "A lock."
    assert record.title.startswith("Pick a combination lock")
    assert len(memory) == 1 and "lock-v0" in memory and memory.ids() == ["lock-v0"]


def test_duplicate_id_is_refused(memory):
    memory.add("lock-v0", SOURCES["lock"])
    with pytest.raises(ConfigError, match="'lock-v0' is already in the memory"):
        memory.add("lock-v0", SOURCES["nim"])
    assert len(memory) == 1


def test_embedder_mismatch_is_an_error(tmp_path):
    EnvironmentMemory(tmp_path / "m", HashingEmbedder(64)).close()
    with pytest.raises(ConfigError, match=r"built with embedder 'hashing-64' \(64-d\)"):
        EnvironmentMemory(tmp_path / "m", HashingEmbedder(32))
    reopened = EnvironmentMemory(tmp_path / "m")  # None: the config's embedder
    assert reopened.embedder.name == "hashing-64"
    reopened.close()


def test_record_plays_statistics_and_history(memory):
    fill(memory, ["lock"])
    memory.record_plays("lock", plain=[1.0, 0.0, 0.0, 0.0], hint=[1.0, 1.0], step=1)
    stats = memory.record_plays("lock", plain=[1.0, -1.0, 0.5, 0.5], step=2)
    assert (stats.n_plain, stats.n_hint, stats.plays) == (8, 2, 10)
    assert stats.win_rate == pytest.approx(2.0 / 8)
    assert stats.hint_win_rate == pytest.approx(1.0)
    assert stats.regret == pytest.approx(0.75)
    history = memory.history("lock")
    assert [b.step for b in history] == [1, 2]
    assert history[0].regret == pytest.approx(0.75) and history[1].regret == 0.0
    assert memory.stats("lock") == stats


def test_regret_is_floored_at_zero_and_zero_without_hints(memory):
    fill(memory, ["lock", "nim"])
    assert memory.record_plays("lock", plain=[1.0], hint=[0.0]).regret == 0.0
    assert memory.record_plays("nim", plain=[0.5]).regret == 0.0


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"plain": [1.5]}, r"plain\[0\]=1.5 is not an episode outcome"),
        ({"hint": [float("nan")]}, r"hint\[0\]=nan"),
        ({}, "got no outcomes"),
    ],
)
def test_bad_outcomes_are_refused(memory, kwargs, match):
    fill(memory, ["lock"])
    with pytest.raises(ConfigError, match=match):
        memory.record_plays("lock", **kwargs)
    assert memory.history("lock") == []


def test_plays_of_unknown_env_are_refused(memory):
    with pytest.raises(ConfigError, match="'ghost' is not in the memory"):
        memory.record_plays("ghost", plain=[1.0])


def test_frontier_too_easy_too_hard(memory):
    fill(memory, ORIGINALS[:6])
    memory.record_plays("lock", plain=[0.5] * 4, hint=[1.0] * 4)  # win .5, regret .5
    memory.record_plays("nim", plain=[0.25] * 4, hint=[0.5] * 4)  # win .25, regret .25
    memory.record_plays("maze", plain=[0.9] * 4, hint=[1.0] * 4)  # win .9: outside the band
    memory.record_plays("wordle", plain=[1.0] * 4)  # too easy
    memory.record_plays("countdown", plain=[0.0] * 4, hint=[1.0] * 4)  # too hard
    memory.record_plays("hanoi", plain=[-1.0] * 4)  # hardest
    assert [s.env_id for s in memory.frontier(5)] == ["lock", "nim"]
    assert [s.env_id for s in memory.frontier(1)] == ["lock"]
    assert [s.env_id for s in memory.frontier(5, band=(0.0, 1.0))][:2] == ["countdown", "lock"]
    assert [s.env_id for s in memory.too_easy(5)] == ["wordle"]
    assert [s.env_id for s in memory.too_hard(5)] == ["hanoi", "countdown"]
    assert memory.frontier(5, skill="Spatial_Reasoning") == []
    with pytest.raises(ConfigError, match="band"):
        memory.frontier(2, band=(0.9, 0.1))


def test_the_frontier_reads_win_rates_against_the_chance_floor(memory):
    fill(memory, ORIGINALS[:3])
    # A game a guesser wins half the time, won half the time: no skill shown, not frontier.
    memory.record_plays("lock", plain=[0.5] * 4, hint=[1.0] * 4, floor=0.5)
    memory.record_plays("nim", plain=[0.5] * 4, hint=[1.0] * 4)  # no floor: read as it is
    stats = memory.stats("lock")
    assert stats.floor == 0.5 and stats.adjusted == pytest.approx(0.0)
    assert memory.stats("nim").floor is None and memory.stats("nim").adjusted == 0.5
    assert [s.env_id for s in memory.frontier(5)] == ["nim"]
    assert [s.env_id for s in memory.too_hard(5)] == ["lock"]
    memory.record_plays("lock", plain=[1.0] * 4)  # the floor stays without a new one
    assert memory.stats("lock").floor == 0.5
    with pytest.raises(ConfigError, match="a chance floor is a mean outcome in"):
        memory.record_plays("lock", plain=[1.0], floor=1.5)


def test_near_and_similar(memory):
    fill(memory)
    assert memory.near("tower of discs pegs", 1)[0].env_id == "hanoi"
    best = memory.similar(SOURCES["wordle_renamed"], 3)[0]
    assert best.env_id == "wordle" and best.code_similarity == pytest.approx(1.0)
    assert all(n.env_id != "maze" for n in memory.similar_to("maze", 5))
    with pytest.raises(ConfigError, match="'ghost' is not in the memory"):
        memory.similar_to("ghost")


def test_novelty_on_structural_copies(memory):
    fill(memory)
    exact = memory.check_novelty(SOURCES["nim_renamed"])
    assert (exact.novel, exact.nearest_id, exact.reason) == (
        False,
        "nim",
        "exact copy of nim (same normalised code)",
    )
    near = memory.check_novelty(SOURCES["knapsack_combo"], start_sandbox=False)  # code alone
    assert not near.novel and near.nearest_id == "knapsack" and near.code_similarity > 0.9
    assert near.reason.startswith("near copy of the code")


def test_remove(memory):
    fill(memory, ["lock", "nim"])
    memory.record_plays("lock", plain=[1.0])
    assert memory.remove("lock") and not memory.remove("lock")
    assert memory.stats("lock") is None and memory.ids() == ["nim"]
    assert [n.env_id for n in memory.near("lock digits", 5)] == ["nim"]


def test_index_switches_to_hnsw_and_back(tmp_path):
    params = IndexParams(hnsw_threshold=5)
    with EnvironmentMemory(tmp_path / "m", HashingEmbedder(), index_params=params) as memory:
        fill(memory, ORIGINALS[:4])
        assert memory._index.stamp.kind == "flat"
        fill(memory, ORIGINALS[4:])
        assert memory._index.stamp.kind == "hnsw"
        assert memory.similar(SOURCES["sequence"], 1)[0].env_id == "sequence"
        for name in ORIGINALS[5:]:
            memory.remove(name)
        assert memory.near("pegs discs tower", 1)[0].env_id != "hanoi"
        assert memory._index.stamp.kind == "flat"


@pytest.mark.parametrize("damage", ["missing", "corrupt", "stale"])
def test_index_file_is_rebuilt_from_sqlite(tmp_path, damage):
    path = tmp_path / "m"
    with EnvironmentMemory(path, HashingEmbedder()) as memory:
        fill(memory, ORIGINALS[:3])
        old = (path / "index.faiss").read_bytes()
        fill(memory, ORIGINALS[3:])
    index_file = path / "index.faiss"
    if damage == "missing":
        index_file.unlink()
    elif damage == "corrupt":
        index_file.write_bytes(b"\x00garbage" * 10)
    else:
        index_file.write_bytes(old)
    with EnvironmentMemory(path, HashingEmbedder()) as memory:
        assert memory.similar(SOURCES["odd_one"], 1)[0].env_id == "odd_one"
        assert memory._index.index.ntotal == len(ORIGINALS)


def test_two_memories_on_one_folder_see_each_other(tmp_path):
    a = EnvironmentMemory(tmp_path / "m", HashingEmbedder())
    b = EnvironmentMemory(tmp_path / "m", HashingEmbedder())
    a.add("lock", SOURCES["lock"])
    assert b.near("combination lock", 1)[0].env_id == "lock"
    b.add("nim", SOURCES["nim"])
    assert {n.env_id for n in a.near("stones piles", 2)} == {"lock", "nim"}
    a.close()
    b.close()


WRITER = """
import sys
from spadegym.memory import EnvironmentMemory, HashingEmbedder
src = open(sys.argv[2]).read()
memory = EnvironmentMemory(sys.argv[1], HashingEmbedder())
for i in range(100000):
    memory.add(f"env-{i}", src.replace("max_turns = 8", f"max_turns = {i % 90 + 1}"))
    memory.record_plays(f"env-{i}", plain=[1.0, 0.0], hint=[1.0], step=i)
    if i == 20:
        print("ready", flush=True)
"""


def test_killed_writer_leaves_a_consistent_memory(tmp_path):
    path = tmp_path / "m"
    program = tmp_path / "lock.py"
    program.write_text(SOURCES["lock"])
    proc = subprocess.Popen(
        [sys.executable, "-c", WRITER, str(path), str(program)], stdout=subprocess.PIPE, text=True
    )
    assert proc.stdout.readline().strip() == "ready"
    proc.kill()  # SIGKILL, mid-way through some write
    proc.wait(timeout=30)
    with EnvironmentMemory(path, HashingEmbedder()) as memory:
        count = len(memory)
        assert count > 20
        ids = memory.ids()
        assert ids == [f"env-{i}" for i in range(count)]
        assert len(memory.similar_to(ids[-1], 10)) == 10
        assert memory._index.index.ntotal == count
        for env in ids[:-1]:
            assert memory.stats(env).n_plain == 2
        memory.add("after", SOURCES["nim"])
    with EnvironmentMemory(path) as memory:
        assert len(memory) == count + 1
        assert json.loads((path / "config.json").read_text())["embedder"] == "hashing-384"


def test_import_is_free_of_torch_and_faiss():
    code = (
        "import sys, spadegym.memory; "
        "print(sorted(m for m in ('torch', 'faiss', 'sentence_transformers') "
        "if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_hashing_embedder_is_normalised_and_deterministic():
    vectors = HashingEmbedder(64).embed(["a lock", "a lock", ""])
    assert vectors.dtype == np.float32 and vectors.shape == (3, 64)
    assert np.allclose(np.linalg.norm(vectors[:2], axis=1), 1.0)
    assert np.array_equal(vectors[0], vectors[1]) and not vectors[2].any()
