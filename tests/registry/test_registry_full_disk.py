"""A full disk is an answer: an add is done and said done, or not done and said not done.

The real thing runs on a small tmpfs (mounting needs root; those tests skip without it); the
rest injects ``ENOSPC`` at each write of an add.
"""

from __future__ import annotations

import errno
import os
import subprocess
import uuid

import pytest
from registry_helpers import REPO

from spadegym.cli import main
from spadegym.memory import EnvironmentMemory, HashingEmbedder
from spadegym.memory.store import EnvironmentMemory as Store
from spadegym.registry import Registry
from spadegym.registry import store as registry_store

pytest.importorskip("faiss")

NIM = str(REPO / "examples" / "good" / "nim.py")
FULL = OSError(errno.ENOSPC, "No space left on device")


def _run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def stores(tmp_path, programs):
    """A root holding LockPick, with its memory."""
    root = Registry(tmp_path / "root")
    path = tmp_path / "memory"
    with EnvironmentMemory(path, HashingEmbedder()) as memory:
        root.add(*programs["lock_pick"], memory=memory)
    return root, path


def _raise_full(*args, **kwargs):
    raise FULL


def test_a_full_disk_before_the_entry_is_written_is_not_added(stores, capsys, monkeypatch):
    root, memory_path = stores
    monkeypatch.setattr(registry_store, "write_entry", _raise_full)
    code, out, err = _run(capsys, "add", NIM, "--root", root.root, "--memory", memory_path)
    assert (code, out) == (1, "")
    assert err == (
        f"spadegym add: {NIM} was not added: the disk is full (ENOSPC); nothing was written. "
        "Free some space and add it again.\n"
    )
    assert [e.id for e in root.list()] == ["spade/LockPick-v0"]
    with EnvironmentMemory(memory_path) as memory:
        assert memory.ids() == ["spade/LockPick-v0"] and memory.intents() == []


def test_a_full_disk_after_the_entry_is_written_is_added_and_caught_up(stores, capsys, monkeypatch):
    root, memory_path = stores
    monkeypatch.setattr(Store, "add_many", _raise_full)
    code, out, err = _run(capsys, "add", NIM, "--root", root.root, "--memory", memory_path)
    assert (code, out) == (1, "")
    assert err.count("\n") == 1
    assert f"{NIM} was added as spade/Nim-v0; finishing it met the disk is full (ENOSPC)" in err
    assert [e.id for e in root.list()] == ["spade/LockPick-v0", "spade/Nim-v0"]
    monkeypatch.undo()
    with EnvironmentMemory(memory_path) as memory:  # the journal still notes the add
        assert [i.env_id for i in memory.intents()] == ["spade/Nim-v0"]
    code, _, err = _run(capsys, "stats", "--memory", memory_path)
    assert code == 0
    with EnvironmentMemory(memory_path) as memory:
        assert set(memory.ids()) == {"spade/LockPick-v0", "spade/Nim-v0"}


def test_an_index_file_that_cannot_be_written_never_fails_an_add(stores, capsys, monkeypatch):
    root, memory_path = stores
    from spadegym.memory import vector_index as vindex

    monkeypatch.setattr(vindex, "save_index", _raise_full)
    code, out, err = _run(capsys, "add", NIM, "--root", root.root, "--memory", memory_path)
    assert code == 0 and out.split() == ["spade/Nim-v0", NIM], err
    monkeypatch.undo()
    with EnvironmentMemory(memory_path) as memory:
        assert set(memory.ids()) == {"spade/LockPick-v0", "spade/Nim-v0"}
        assert memory.near("a pile of stones", k=2)  # the index is rebuilt from SQLite


@pytest.fixture
def small_disk(tmp_path):
    """A 3 MiB tmpfs (root only), unmounted afterwards."""
    mount = tmp_path / f"disk-{uuid.uuid4().hex[:6]}"
    mount.mkdir()
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=3m", "tmpfs", str(mount)], capture_output=True
    )
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.decode().strip()}")
    yield mount
    subprocess.run(["umount", "-l", str(mount)], check=False)


def _fill(mount, leave: int):
    """Fill the disk but ``leave`` bytes; returns the filler, to free it afterwards."""
    filler = mount / "filler"
    info = os.statvfs(mount)
    free = info.f_bavail * info.f_frsize
    with open(filler, "wb") as handle:
        handle.write(b"\0" * max(0, free - leave))
    return filler


@pytest.mark.parametrize("leave", [0, 8192, 24576, 65536])
def test_adds_on_a_small_full_disk_say_what_they_did(small_disk, programs, capsys, leave):
    root = Registry(small_disk / "root")
    memory_path = small_disk / "memory"
    with EnvironmentMemory(memory_path, HashingEmbedder()) as memory:
        root.add(*programs["lock_pick"], memory=memory)
    filler = _fill(small_disk, leave)
    code, out, err = _run(capsys, "add", NIM, "--root", root.root, "--memory", memory_path)
    assert "Traceback" not in err and err.count("\n") <= 1, err
    registered = "spade/Nim-v0" in {e.id for e in root.list()}
    if code == 0:
        assert registered and out.split() == ["spade/Nim-v0", NIM]
    else:
        assert "ENOSPC" in err or "disk is full" in err, err
        assert registered == ("was added as spade/Nim-v0" in err), err
    filler.unlink()
    code, _, err = _run(capsys, "stats", "--memory", memory_path)
    assert code == 0, err
    with EnvironmentMemory(memory_path) as memory:
        assert set(memory.ids()) == {e.id for e in root.list()}


def test_a_remove_on_a_full_disk_says_whether_it_was_done(stores, capsys, monkeypatch):
    root, memory_path = stores
    monkeypatch.setattr(registry_store, "remove_entry", _raise_full)
    code, out, err = _run(
        capsys, "remove", "LockPick-v0", "--root", root.root, "--memory", memory_path
    )
    assert (code, out, err) == (
        1,
        "",
        "spadegym remove: LockPick-v0 was not removed: the disk is full (ENOSPC).\n",
    )
    assert [e.id for e in root.list()] == ["spade/LockPick-v0"]
    monkeypatch.undo()
    monkeypatch.setattr(Store, "remove", _raise_full)
    code, out, err = _run(
        capsys, "remove", "LockPick-v0", "--root", root.root, "--memory", memory_path
    )
    assert code == 1 and "LockPick-v0 was removed; finishing it met the disk is full" in err
    assert root.list() == []
    monkeypatch.undo()
    code, _, _ = _run(capsys, "stats", "--memory", memory_path)  # the journal finishes it
    with EnvironmentMemory(memory_path) as memory:
        assert memory.ids() == []
