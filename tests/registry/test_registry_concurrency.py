from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

from registry_helpers import REPO, child_env, variant

from spadegym.registry import Registry
from spadegym.registry.entry import read_entry
from spadegym.registry.manifest import sha256_of

# A writer process: adds the programs of a JSON file, each with its serialised report.
WRITER = """
import json, sys
from spadegym.registry import Registry
from spadegym.validation import ValidationReport
items = json.load(open(sys.argv[2]))
registry = Registry(sys.argv[1])
print(json.dumps([registry.add(t, ValidationReport.from_dict(r)) for t, r in items]))
"""

# A writer that stops for good at one point of the write, so that it can be killed there.
STALLING_WRITER = """
import json, sys, time
from pathlib import Path
import spadegym.registry.entry as entry
import spadegym.registry.store as store
from spadegym.registry import Registry
from spadegym.validation import ValidationReport
root, item_file, where, marker = sys.argv[1:5]
def stall(*args, **kwargs):
    Path(marker).write_text("stalled")
    time.sleep(600)
if where == "files":  # env.py is written, manifest.json not yet, nothing renamed
    real = entry.write_file
    def write_file(path, data):
        if path.name == "manifest.json":
            stall()
        real(path, data)
    entry.write_file = write_file
else:  # the folder is in place, the index not yet updated
    store.save_index = stall
text, report = json.load(open(item_file))
Registry(root).add(text, ValidationReport.from_dict(report))
"""


def _items(programs, ks):
    program, report = programs["lock_pick"]
    out = []
    for k in ks:
        text, rep = variant(program, report, k) if k else (program, report)
        out.append([text, rep.to_dict()])
    return out


def _check_complete(registry, expected_sha):
    entries = registry.list()
    assert sorted(e.sha256 for e in entries) == sorted(expected_sha)
    for e in entries:
        manifest, problem = read_entry(registry.root / e.folder)
        assert manifest is not None, problem
        assert sha256_of((registry.root / e.folder / "env.py").read_bytes()) == manifest.sha256
    leftovers = [n for n in os.listdir(registry.root) if n.startswith(".tmp-")]
    return leftovers


def test_eight_concurrent_writers_lose_nothing(tmp_path, programs, isolated):
    root = tmp_path / "root"
    procs = []
    for w in range(8):
        # each writer adds two programs of its own and the one program they all share
        items = _items(programs, [0, 1 + 2 * w, 2 + 2 * w])
        item_file = tmp_path / f"items{w}.json"
        item_file.write_text(json.dumps(items))
        procs.append(
            subprocess.Popen(
                [sys.executable, "-c", WRITER, str(root), str(item_file)],
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
                env=child_env(root, isolated),
                cwd=REPO,
            )
        )
    outputs = []
    for proc in procs:
        out, err = proc.communicate(timeout=300)
        assert proc.returncode == 0, err
        outputs.append(json.loads(out))
    registry = Registry(root)
    all_ids = [i for out in outputs for i in out]
    shared = {out[0] for out in outputs}
    assert shared == {"spade/LockPick-v0"}  # the same program, one id, from every writer
    own = [i for out in outputs for i in out[1:]]
    assert len(set(own)) == 16 and "spade/LockPick-v0" not in own
    assert {e.id for e in registry.list()} == set(all_ids)
    expected = [sha256_of(text) for text, _ in _items(programs, range(17))]
    assert _check_complete(registry, expected) == []


def _kill_while_stalled(tmp_path, programs, isolated, where):
    root = tmp_path / "root"
    registry = Registry(root)
    program, report = programs["lock_pick"]
    registry.add(program, report)
    item_file = tmp_path / "item.json"
    item_file.write_text(json.dumps(_items(programs, [5])[0]))
    marker = tmp_path / "marker"
    proc = subprocess.Popen(
        [sys.executable, "-c", STALLING_WRITER, str(root), str(item_file), where, str(marker)],
        env=child_env(root, isolated),
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
    return registry


def test_writer_killed_mid_write_leaves_no_half_entry(tmp_path, programs, isolated):
    registry = _kill_while_stalled(tmp_path, programs, isolated, "files")
    assert [e.id for e in registry.list()] == ["spade/LockPick-v0"]
    assert registry.skipped() == {}  # the half-written folder is invisible
    leftovers = [n for n in os.listdir(registry.root) if n.startswith(".tmp-")]
    assert len(leftovers) == 1
    # the lock died with the writer; the next writer removes the leftover
    program, report = programs["lock_pick"]
    assert registry.add(*variant(program, report, 9)) == "spade/LockPick2-v0"
    assert [n for n in os.listdir(registry.root) if n.startswith(".tmp-")] == []


def test_writer_killed_before_the_index_update_loses_nothing(tmp_path, programs, isolated):
    registry = _kill_while_stalled(tmp_path, programs, isolated, "index")
    # the entry was complete when the writer died: the stale index is rebuilt and shows it
    assert [e.id for e in registry.list()] == ["spade/LockPick-v0", "spade/LockPick2-v0"]
    expected = [sha256_of(text) for text, _ in _items(programs, [0, 5])]
    assert _check_complete(registry, expected) == []
