"""``import`` is all or none: every item is checked before any is written."""

from __future__ import annotations

import errno
import io
import json
import tarfile
import warnings

import pytest

from spadegym.cli import main
from spadegym.memory import EnvironmentMemory, HashingEmbedder
from spadegym.registry import DuplicateEnvironmentError, Registry, RegistryError
from spadegym.registry.store import Registry as StoreRegistry
from spadegym.validation import validate

pytest.importorskip("faiss")


@pytest.fixture(autouse=True)
def _quiet_shadowing():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the source and target roots share ids in-process
        yield


@pytest.fixture
def target(tmp_path, programs):
    """A root holding LockPick, and its memory."""
    registry = Registry(tmp_path / "target")
    memory = EnvironmentMemory(tmp_path / "memory", HashingEmbedder())
    registry.add(*programs["lock_pick"], memory=memory)
    yield registry, memory
    memory.close()


def _export(tmp_path, programs, *items):
    """A bundle of ``items`` (program texts) made in a scratch root, in that order."""
    source = Registry(tmp_path / "source")
    env_ids = [source.add(text, validate(text)) for text in items]
    return source.export(env_ids, tmp_path / "bundle.tar.gz")


def _unchanged(registry, memory):
    assert [e.id for e in registry.list()] == ["spade/LockPick-v0"]
    assert memory.ids() == ["spade/LockPick-v0"]


def test_a_duplicate_second_item_leaves_the_first_unwritten(tmp_path, programs, target, capsys):
    registry, memory = target
    copy = programs["lock_pick"][0].replace("LockPickEnv", "CombinationEnv")
    bundle = _export(tmp_path, programs, programs["nim"][0], copy)
    with pytest.raises(DuplicateEnvironmentError, match="Nothing was imported") as caught:
        registry.import_(bundle, memory=memory)
    assert caught.value.duplicate_of == "spade/LockPick-v0"
    assert "spade/Combination-v0: CombinationEnv was not added: it duplicates" in str(caught.value)
    _unchanged(registry, memory)
    code = main(["import", str(bundle), "--root", str(registry.root), "--memory", str(memory.path)])
    _, err = capsys.readouterr()
    assert code == 1 and err.count("\n") == 1 and "duplicates spade/LockPick-v0" in err
    _unchanged(registry, memory)


def test_an_invalid_manifest_id_is_reported_as_one(tmp_path, programs, target, capsys):
    registry, memory = target
    nim = programs["nim"][0]
    bundle = _export(tmp_path, programs, nim)
    with tarfile.open(bundle) as tar:
        manifest = json.loads(tar.extractfile("Nim-v0/manifest.json").read())
    manifest["id"] = "other/Nim-v0"
    bad = tmp_path / "bad.tar.gz"
    with tarfile.open(bad, "w:gz") as tar:
        for name, data in (("Nim-v0/env.py", nim.encode()), ("Nim-v0/manifest.json", None)):
            data = data if data is not None else json.dumps(manifest).encode()
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    code = main(["import", str(bad), "--root", str(registry.root), "--memory", str(memory.path)])
    _, err = capsys.readouterr()
    assert code == 1 and err.count("\n") == 1
    assert "has the id 'other/Nim-v0', which is not a valid id for that folder" in err
    assert "novelty" not in err
    _unchanged(registry, memory)


def test_one_game_twice_in_a_bundle_is_refused(tmp_path, programs, target):
    registry, memory = target
    nim = programs["nim"][0]
    bundle = _export(tmp_path, programs, nim, nim.replace("class NimEnv", "class StonesEnv"))
    with pytest.raises(RegistryError, match="is a copy of spade/Nim-v0 in the same bundle"):
        registry.import_(bundle, memory=memory)
    _unchanged(registry, memory)


def test_a_write_failing_half_way_takes_back_what_was_written(
    tmp_path, programs, target, monkeypatch, capsys
):
    registry, memory = target
    bundle = _export(tmp_path, programs, programs["nim"][0], programs["ice_maze"][0])
    real = StoreRegistry._write
    calls = []

    def write(self, *args, **kwargs):
        calls.append(1)
        if len(calls) == 2:
            raise OSError(errno.ENOSPC, "No space left on device")
        return real(self, *args, **kwargs)

    monkeypatch.setattr(StoreRegistry, "_write", write)
    with pytest.raises(OSError, match="No space left"):
        registry.import_(bundle, memory=memory)
    assert len(calls) == 2
    _unchanged(registry, memory)
    calls.clear()
    code = main(["import", str(bundle), "--root", str(registry.root), "--memory", str(memory.path)])
    _, err = capsys.readouterr()
    assert code == 1 and err == (
        "spadegym import: nothing was imported: the disk is full (ENOSPC). Free some space "
        "and run it again.\n"
    )
    _unchanged(registry, memory)
    monkeypatch.setattr(StoreRegistry, "_write", real)
    assert registry.import_(bundle, memory=memory) == ["spade/Nim-v0", "spade/IceMaze-v0"]
