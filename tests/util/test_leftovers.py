"""Leftovers of killed processes are removed, and only theirs."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile

from spadegym.util import leftovers


def _dead_pid() -> int:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


def test_names_carry_the_writer_and_only_dead_writers_lose_theirs(tmp_path):
    name = leftovers.temp_name(".index-", ".tmp")
    assert leftovers.owner(name, ".index-", ".tmp") == (os.getpid(), leftovers.HOST)
    assert leftovers.owner(".index-0123abcd.tmp", ".index-", ".tmp") is None
    dead = _dead_pid()
    files = {
        "dead": f".index-{dead}-{leftovers.HOST}-aa.tmp",
        "live": f".index-{os.getppid()}-{leftovers.HOST}-aa.tmp",
        "mine": name,
        "elsewhere": f".index-{dead}-otherhost-aa.tmp",
        "unknown": ".index-aa.tmp",
    }
    for file in files.values():
        (tmp_path / file).write_text("x")
    (tmp_path / f"spadegym-worker-{dead}-{leftovers.HOST}-q1w2").mkdir()
    assert leftovers.remove_dead(tmp_path, ".index-", ".tmp") == [files["dead"]]
    assert leftovers.remove_dead(tmp_path, "spadegym-worker-") == [
        f"spadegym-worker-{dead}-{leftovers.HOST}-q1w2"
    ]
    assert sorted(os.listdir(tmp_path)) == sorted(v for k, v in files.items() if k != "dead")


def test_a_sandbox_worker_removes_the_folders_of_a_killed_host(tmp_path, monkeypatch):
    from spadegym.sandbox.client import WORKER_DIR_PREFIX, SandboxWorker

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    monkeypatch.setattr(leftovers, "_SWEPT", set())
    dead, live = _dead_pid(), os.getppid()
    gone = tmp_path / f"{WORKER_DIR_PREFIX}{dead}-{leftovers.HOST}-abc123"
    kept = tmp_path / f"{WORKER_DIR_PREFIX}{live}-{leftovers.HOST}-abc123"
    for folder in (gone, kept):
        folder.mkdir()
        (folder / "scratch").write_text("x")
    worker = SandboxWorker()
    try:
        worker.start()
        own = [p.name for p in tmp_path.iterdir() if p.name not in {kept.name}]
        assert own and all(n.startswith(f"{WORKER_DIR_PREFIX}{os.getpid()}-") for n in own)
    finally:
        worker.close()
    assert not gone.exists() and kept.exists()
