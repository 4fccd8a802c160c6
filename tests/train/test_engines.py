from __future__ import annotations

from spadegym_train.engines.vllm import prune_adapters


def test_only_the_newest_adapter_folders_are_kept(tmp_path):
    saved = []
    for step in range(5):
        folder = tmp_path / f"step-{step}"
        folder.mkdir()
        (folder / "adapter_model.safetensors").write_bytes(b"x")
        saved = prune_adapters([*saved, folder], keep=3)
    assert [p.name for p in saved] == ["step-2", "step-3", "step-4"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["step-2", "step-3", "step-4"]
