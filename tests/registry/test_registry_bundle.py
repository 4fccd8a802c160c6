from __future__ import annotations

import io
import json
import tarfile

import pytest
from registry_helpers import variant

from spadegym.memory import EnvironmentMemory, HashingEmbedder
from spadegym.registry import (
    SCHEMA_VERSION,
    DuplicateEnvironmentError,
    Registry,
    RegistryError,
    ShadowedEnvironmentWarning,
)
from spadegym.registry.manifest import parse_manifest


def test_export_then_import_keeps_ids_and_provenance(root, tmp_path):
    bundle = root.export(["LockPick-v0", "spade/Nim-v0"], tmp_path / "two.tar.gz")
    with tarfile.open(bundle) as tar:
        assert sorted(tar.getnames()) == [
            "LockPick-v0/env.py",
            "LockPick-v0/manifest.json",
            "Nim-v0/env.py",
            "Nim-v0/manifest.json",
        ]
    other = Registry(tmp_path / "other")
    with pytest.warns(ShadowedEnvironmentWarning):  # both roots are registered in this process
        assert other.import_(bundle) == ["spade/LockPick-v0", "spade/Nim-v0"]
    assert other.get("Nim-v0").source() == root.get("Nim-v0").source()
    assert other.get("Nim-v0").manifest.provenance.origin == "import"
    assert other.import_(bundle) == ["spade/LockPick-v0", "spade/Nim-v0"]  # idempotent
    assert len(other) == 2


def _bundle(tmp_path, members):
    path = tmp_path / "b.tar.gz"
    with tarfile.open(path, "w:gz") as tar:
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return path


def test_import_refuses_altered_or_odd_bundles(root, tmp_path):
    env = root.get("LockPick-v0")
    manifest = env.manifest.to_json().encode()
    source = env.source().encode()
    other = Registry(tmp_path / "other")
    altered = _bundle(
        tmp_path,
        {"LockPick-v0/env.py": source + b"# changed\n", "LockPick-v0/manifest.json": manifest},
    )
    with pytest.raises(RegistryError, match="does not match the sha256"):
        other.import_(altered)
    escaping = _bundle(tmp_path, {"../LockPick-v0/env.py": source})
    with pytest.raises(RegistryError, match="is not <Name>-v<N>/env.py"):
        other.import_(escaping)
    renamed = _bundle(tmp_path, {"Other-v0/env.py": source, "Other-v0/manifest.json": manifest})
    with pytest.raises(RegistryError, match="has the id .spade/LockPick-v0., which is not a valid"):
        other.import_(renamed)
    assert not other.root.exists() or len(other) == 0


def test_manifest_schema_versions(root):
    data = json.loads(root.get("LockPick-v0").manifest.to_json())
    data["added_later"] = {"kept": True}  # a field this version does not know
    again = parse_manifest(data)
    assert again.model_dump()["added_later"] == {"kept": True}
    data["schema_version"] = SCHEMA_VERSION + 1
    with pytest.raises(RegistryError, match="newer spadegym"):
        parse_manifest(data)
    with pytest.raises(RegistryError, match="sha256"):
        parse_manifest({**data, "schema_version": 1, "sha256": "xyz"})


def test_remove_and_update_stats(root):
    import gymnasium

    stats = root.update_stats("LockPick-v0", plays=32, win_rate_plain=0.25, regret=0.4)
    assert stats.stats.plays == 32 and stats.stats.updated
    assert root.get("LockPick-v0").manifest.stats.regret == 0.4
    assert root.remove("spade/LockPick-v0") == "spade/LockPick-v0"
    assert "LockPick-v0" not in root and len(root) == 5
    with pytest.raises(gymnasium.error.Error):
        gymnasium.spec("spade/LockPick-v0")
    with pytest.raises(RegistryError, match="not in the registry"):
        root.remove("LockPick-v0")


def test_memory_refuses_duplicates_and_records_additions(tmp_path, programs):
    memory = EnvironmentMemory(tmp_path / "memory", embedder=HashingEmbedder())
    registry = Registry(tmp_path / "r")
    program, report = programs["lock_pick"]
    env_id = registry.add(program, report, memory=memory)
    assert env_id in memory
    copy, copy_report = variant(program, report, 1)
    with pytest.raises(DuplicateEnvironmentError, match="duplicates spade/LockPick-v0") as caught:
        registry.add(copy, copy_report, memory=memory)
    assert caught.value.duplicate_of == "spade/LockPick-v0"
    nim, nim_report = programs["nim"]
    assert registry.add(nim, nim_report, memory=memory) == "spade/Nim-v0"
    assert len(memory) == 2 and len(registry) == 2
