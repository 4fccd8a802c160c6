"""The registry and the memory together: one step across processes, kills, drift and removal."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time

import pytest
from counting import CountingEmbedder
from registry_helpers import REPO, child_env, variant

from spadegym.memory import EnvironmentMemory, HashingEmbedder
from spadegym.registry import DuplicateEnvironmentError, Registry
from spadegym.registry.memory_link import reconcile

pytest.importorskip("faiss")

# Adds one program (with its serialised report) once a start file appears, with a memory.
RACER = """
import json, sys, time
from pathlib import Path
from spadegym.memory import EnvironmentMemory, HashingEmbedder
from spadegym.registry import DuplicateEnvironmentError, Registry
from spadegym.validation import ValidationReport
root, memory_path, item_file, start = sys.argv[1:5]
text, report = json.load(open(item_file))
memory = EnvironmentMemory(memory_path, HashingEmbedder())
memory.check_novelty(text)  # warm: the race is between checks, not imports
registry = Registry(root)
Path(item_file + ".ready").touch()
while not Path(start).exists():
    time.sleep(0.001)
try:
    print(registry.add(text, ValidationReport.from_dict(report), memory=memory))
except DuplicateEnvironmentError as exc:
    print("duplicate", exc.duplicate_of)
memory.close()
"""

# Stops for good at one point between the registry write and the memory write.
STALLER = """
import json, sys, time
from pathlib import Path
import spadegym.registry.store as store
from spadegym.memory import EnvironmentMemory, HashingEmbedder
from spadegym.registry import Registry
from spadegym.validation import ValidationReport
root, memory_path, item_file, where, marker = sys.argv[1:6]
text, report = json.load(open(item_file))
memory = EnvironmentMemory(memory_path, HashingEmbedder())
def stall(*args, **kwargs):
    Path(marker).write_text("stalled")
    time.sleep(600)
if where == "add":  # the entry is in the registry, the memory not yet told
    store.remember = stall
    Registry(root).add(text, ValidationReport.from_dict(report), memory=memory)
else:  # the entry is gone from the registry, the memory not yet told
    memory.remove = stall
    Registry(root).remove(text, memory=memory)
"""


def _item(tmp_path, programs, k, name="lock_pick"):
    program, report = programs[name]
    text, rep = variant(program, report, k) if k else (program, report)
    path = tmp_path / f"item-{name}-{k}.json"
    path.write_text(json.dumps([text, rep.to_dict()]))
    return path


def test_concurrent_copies_of_one_new_game_are_registered_once(tmp_path, programs, isolated):
    root, memory_path, start = tmp_path / "root", tmp_path / "memory", tmp_path / "start"
    EnvironmentMemory(memory_path, HashingEmbedder()).close()
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", RACER, str(root), str(memory_path)]
            + [str(_item(tmp_path, programs, k)), str(start)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=child_env(root, isolated),
            cwd=REPO,
        )
        for k in range(1, 5)
    ]
    deadline = time.monotonic() + 240
    while len(list(tmp_path.glob("*.ready"))) < len(procs):  # every writer waits at the line
        assert all(proc.poll() is None for proc in procs)
        assert time.monotonic() < deadline
        time.sleep(0.05)
    start.touch()
    outputs = []
    for proc in procs:
        out, err = proc.communicate(timeout=300)
        assert proc.returncode == 0, err
        outputs.append(out.strip())
    added = [o for o in outputs if not o.startswith("duplicate")]
    assert len(added) == 1, outputs
    assert sorted(outputs) == sorted(added + [f"duplicate {added[0]}"] * 3)
    registry = Registry(root)
    assert [e.id for e in registry.list()] == added
    memory = EnvironmentMemory(memory_path)
    assert memory.ids() == added
    text, report = variant(*programs["lock_pick"], 5)  # and a fifth, after them
    with pytest.raises(DuplicateEnvironmentError):
        registry.add(text, report, memory=memory)
    memory.close()


def _stall_and_kill(tmp_path, isolated, args):
    marker = tmp_path / "marker"
    proc = subprocess.Popen(
        [sys.executable, "-c", STALLER, *map(str, args), str(marker)],
        env=child_env(args[0], isolated),
        cwd=REPO,
        stderr=subprocess.PIPE,
    )
    deadline = time.monotonic() + 120
    while not marker.exists():
        assert proc.poll() is None, proc.stderr.read()
        assert time.monotonic() < deadline
        time.sleep(0.05)
    proc.send_signal(signal.SIGKILL)
    proc.wait(30)


def test_a_writer_killed_between_registry_and_memory_is_finished_by_the_next(
    tmp_path, programs, isolated
):
    root, memory_path = tmp_path / "root", tmp_path / "memory"
    memory = EnvironmentMemory(memory_path, HashingEmbedder())
    registry = Registry(root)
    registry.add(*programs["nim"], memory=memory)
    _stall_and_kill(tmp_path, isolated, [root, memory_path, _item(tmp_path, programs, 0), "add"])
    assert "spade/LockPick-v0" in registry and "spade/LockPick-v0" not in memory
    # The next writer finishes the killed one's memory write before its own check, so a
    # renamed copy of the game is refused.
    with pytest.raises(DuplicateEnvironmentError, match="duplicates spade/LockPick-v0"):
        registry.add(*variant(*programs["lock_pick"], 7), memory=memory)
    assert "spade/LockPick-v0" in memory and memory.intents() == []
    assert reconcile(memory, [root]).clean
    memory.close()


def test_adding_a_registered_program_again_records_it_in_the_memory(tmp_path, programs):
    memory = EnvironmentMemory(tmp_path / "memory", HashingEmbedder())
    registry = Registry(tmp_path / "root")
    program, report = programs["lock_pick"]
    assert registry.add(program, report) == "spade/LockPick-v0"  # without the memory
    admitted = registry.admit(program, report, memory=memory)
    assert (admitted.env_id, admitted.new) == ("spade/LockPick-v0", False)
    assert memory.ids() == ["spade/LockPick-v0"]
    assert registry.add(program, report, memory=memory) == "spade/LockPick-v0"
    assert len(memory) == 1
    memory.close()


def test_an_admitted_program_is_embedded_once(tmp_path, programs):
    embedder = CountingEmbedder()
    memory = EnvironmentMemory(tmp_path / "memory", embedder)
    registry = Registry(tmp_path / "root")
    registry.add(*programs["nim"], memory=memory)
    embedder.texts.clear()
    admitted = registry.admit(*programs["lock_pick"], memory=memory)
    assert admitted.new and admitted.novelty.novel
    # Judged once (by the novelty check), and that embedding is the one stored.
    assert embedder.texts == [admitted.novelty.embedding.text]
    assert memory.near(embedder.texts[0], k=1)[0].env_id == admitted.env_id
    memory.close()


def test_reconcile_finds_and_fixes_drift(tmp_path, programs):
    memory = EnvironmentMemory(tmp_path / "memory", HashingEmbedder())
    registry = Registry(tmp_path / "root")
    for name in ("lock_pick", "nim", "ice_maze"):
        registry.add(*programs[name], memory=memory)
    memory.remove("spade/Nim-v0")  # a registered game the memory lost
    memory.add("spade/Gone-v0", programs["bank_settlement"][0])  # a record of nothing
    memory.remove("spade/IceMaze-v0")  # and one stored with another program
    memory.add("spade/IceMaze-v0", programs["sequence_streak"][0])
    drift = reconcile(memory, [registry.root])
    assert (drift.missing, drift.stale, drift.changed) == (
        ["spade/Nim-v0"],
        ["spade/Gone-v0"],
        ["spade/IceMaze-v0"],
    )
    assert not drift.fixed and not drift.clean
    assert drift.describe() == (
        "1 missing (spade/Nim-v0), 1 stale (spade/Gone-v0), 1 with another program "
        "(spade/IceMaze-v0)"
    )
    assert reconcile(memory, [registry.root], fix=True).fixed
    assert reconcile(memory, [registry.root]).clean
    assert sorted(memory.ids()) == sorted(e.id for e in registry.list())
    maze = registry.get("spade/IceMaze-v0").source()
    assert memory.find_copy(maze) == "spade/IceMaze-v0"
    memory.close()


def test_remove_forgets_the_memory_record_so_the_game_can_come_back(tmp_path, programs):
    memory = EnvironmentMemory(tmp_path / "memory", HashingEmbedder())
    registry = Registry(tmp_path / "root")
    program, report = programs["lock_pick"]
    registry.add(program, report, memory=memory)
    assert registry.remove("LockPick-v0", memory=memory) == "spade/LockPick-v0"
    assert "spade/LockPick-v0" not in memory and len(registry) == 0
    copy, copy_report = variant(program, report, 3)
    assert registry.add(copy, copy_report, memory=memory) == "spade/LockPick-v0"
    memory.close()


def test_a_remover_killed_before_the_memory_is_finished_by_the_next_writer(
    tmp_path, programs, isolated
):
    root, memory_path = tmp_path / "root", tmp_path / "memory"
    memory = EnvironmentMemory(memory_path, HashingEmbedder())
    registry = Registry(root)
    program, report = programs["lock_pick"]
    registry.add(program, report, memory=memory)
    id_file = tmp_path / "id.json"
    id_file.write_text(json.dumps(["LockPick-v0", None]))
    _stall_and_kill(tmp_path, isolated, [root, memory_path, id_file, "remove"])
    assert "spade/LockPick-v0" not in registry and "spade/LockPick-v0" in memory
    assert registry.add(*variant(program, report, 4), memory=memory) == "spade/LockPick-v0"
    assert memory.ids() == ["spade/LockPick-v0"] and memory.intents() == []
    memory.close()


def test_a_new_version_may_be_close_to_its_earlier_versions(tmp_path, programs):
    memory = EnvironmentMemory(tmp_path / "memory", HashingEmbedder())
    registry = Registry(tmp_path / "root")
    program, report = programs["lock_pick"]
    registry.add(program, report, memory=memory)
    copy, copy_report = variant(program, report, 1)
    with pytest.raises(DuplicateEnvironmentError) as caught:
        registry.add(copy, copy_report, memory=memory)
    assert caught.value.novelty.nearest_id == "spade/LockPick-v0"
    assert not caught.value.novelty.novel
    env_id = registry.add(copy, copy_report, memory=memory, version_of="LockPick-v0")
    assert env_id == "spade/LockPick-v1" and env_id in memory
    novelty = registry.get(env_id).manifest.validation.properties["novelty"]
    assert novelty["nearest_id"] == "spade/LockPick-v0"
    memory.close()


@pytest.mark.slow
def test_stress_writers_killed_at_random_keep_registry_and_memory_in_step():
    done = subprocess.run(
        [sys.executable, str(REPO / "benchmarks" / "bench_stress_registry.py")]
        + ["--writers", "4", "--seconds", "40", "--games", "8", "--life", "2"],
        capture_output=True,
        text=True,
        timeout=900,
        cwd=REPO,
    )
    figures = json.loads(done.stdout.strip().splitlines()[-1])
    assert figures["ok"], figures
    assert figures["kills"] > 0 and figures["answers_acknowledged"] > 0
