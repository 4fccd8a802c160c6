from __future__ import annotations

import json
import multiprocessing
import os
import subprocess
import sys
import warnings

import gymnasium
import pytest
from gymnasium.envs.registration import EnvSpec
from gymnasium.utils.env_checker import check_env
from registry_helpers import REPO, child_env

import spadegym
from spadegym.registry import (
    ENTRY_POINT,
    Registry,
    RegistryError,
    ShadowedEnvironmentWarning,
    TamperedEnvironmentError,
    register_roots,
)


def test_check_env_passes_on_every_registered_environment(root):
    ids = [e.id for e in root.list()]
    assert len(ids) == 6
    for env_id in ids:
        env = gymnasium.make(env_id)
        try:
            assert type(env.unwrapped).__name__ == "ProgramEnv"
            assert env.spec.max_episode_steps == root.get(env_id).manifest.max_turns
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                check_env(env.unwrapped, skip_render_check=True)
        finally:
            env.close()


def test_spec_to_json_round_trip(root):
    spec = gymnasium.spec("spade/LockPick-v0")
    assert spec.entry_point == ENTRY_POINT
    again = EnvSpec.from_json(spec.to_json())
    assert again == spec
    env = gymnasium.make(again)
    try:
        obs, _ = env.reset(seed=0)
        assert "lock" in obs
    finally:
        env.close()


def test_entry_points_name_the_functions_gymnasium_calls(root):
    # The spec's entry points are strings, which no import checker reads: load them as
    # gymnasium.make and gymnasium.make_vec do.
    from gymnasium.envs.registration import load_env_creator

    from spadegym.registry import make_env
    from spadegym.registry.registration import VECTOR_ENTRY_POINT
    from spadegym.vector.gym import make_vector

    spec = gymnasium.spec("spade/LockPick-v0")
    assert spec.vector_entry_point == VECTOR_ENTRY_POINT
    assert load_env_creator(spec.entry_point) is make_env
    assert load_env_creator(spec.vector_entry_point) is make_vector


def test_kwargs_pass_through(root):
    env = gymnasium.make("spade/LockPick-v0", isolation="none", max_turns=3)
    try:
        inner = env.unwrapped
        assert type(inner._worker).__name__ == "InProcessWorker"
        assert inner.max_turns == 3
        env.reset(seed=1)
        results = [env.step("\\boxed{000}") for _ in range(3)]
        assert results[-1][3] is True  # truncated by the program's own limit
    finally:
        env.close()


def test_make_vec_sync_and_async(root):
    # Async mode works with its defaults (text in shared memory, spadegym.vector.text_memory) and
    # without shared memory.
    for mode, vector_kwargs in (("sync", {}), ("async", {}), ("async", {"shared_memory": False})):
        envs = gymnasium.make_vec(
            "spade/LockPick-v0", num_envs=2, vectorization_mode=mode, vector_kwargs=vector_kwargs
        )
        try:
            obs, _ = envs.reset(seed=[3, 4])
            assert len(obs) == 2 and all("lock" in o for o in obs)
            obs, rewards, terminated, truncated, _ = envs.step(("\\boxed{123}", "hello"))
            assert len(rewards) == 2 and not any(terminated)
        finally:
            envs.close()


def _make_and_reset(env_id: str, queue) -> None:
    import gymnasium

    import spadegym  # noqa: F401  (registers from disk in this fresh process)

    env = gymnasium.make(env_id)
    try:
        queue.put(env.reset(seed=0)[0])
    finally:
        env.close()


def test_registration_is_seen_in_a_spawned_process(root, isolated, monkeypatch):
    monkeypatch.setenv("SPADEGYM_REGISTRY_PATH", str(root.root))
    context = multiprocessing.get_context("spawn")
    queue = context.Queue()
    process = context.Process(target=_make_and_reset, args=("spade/Nim-v0", queue))
    process.start()
    try:
        first = queue.get(timeout=60)
    finally:
        process.join(30)
    assert process.exitcode == 0
    assert first.startswith("A new game of Nim")


def test_import_is_quiet_and_skips_bad_folders(root, isolated):
    (root.root / "NoManifest-v0").mkdir()
    (root.root / "NoManifest-v0" / "env.py").write_text("class NoManifestEnv: pass\n")
    (root.root / "bad name").mkdir()
    (root.root / "Broken-v0").mkdir()
    (root.root / "Broken-v0" / "env.py").write_text("x = 1\n")
    (root.root / "Broken-v0" / "manifest.json").write_text("{not json")
    code = (
        "import sys, logging, gymnasium, spadegym\n"
        "ids = sorted(k for k in gymnasium.registry if k.startswith('spade/'))\n"
        "print(len(ids), 'torch' in sys.modules)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env=child_env(root.root, isolated),
        cwd=REPO,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    assert done.stdout.split() == ["6", "False"]
    skipped = root.skipped()
    assert "no manifest.json" in skipped["NoManifest-v0"]
    assert "spadegym verify --fix --root" in skipped["NoManifest-v0"]
    assert "not JSON" in skipped["Broken-v0"]
    assert "not <Name>-v<N>" in skipped["bad name"]


def test_skipped_folders_are_logged(root, caplog):
    (root.root / "NoManifest-v0").mkdir()
    (root.root / "NoManifest-v0" / "env.py").write_text("class NoManifestEnv: pass\n")
    with caplog.at_level("WARNING", logger="spadegym.registry"):
        register_roots([root.root])
    assert any(
        "NoManifest-v0" in r.getMessage() and "verify --fix" in r.getMessage()
        for r in caplog.records
    )


def test_tampered_program_is_refused_with_the_repair_command(root):
    path = root.get("LockPick-v0").path / "env.py"
    path.write_text(path.read_text() + "\n# edited by hand\n")
    with pytest.raises(TamperedEnvironmentError, match="spadegym verify --fix --root") as caught:
        gymnasium.make("spade/LockPick-v0")
    assert "sha256" in str(caught.value)
    results = {r.id: r for r in root.verify()}
    assert not results["spade/LockPick-v0"].ok
    assert sum(r.ok for r in results.values()) == 5
    fixed = {r.id: r for r in root.verify(fix=True)}
    assert fixed["spade/LockPick-v0"].fixed and fixed["spade/LockPick-v0"].ok
    manifest = root.get("LockPick-v0").manifest
    assert manifest.provenance.origin == "add"  # kept across the rewrite
    env = gymnasium.make("spade/LockPick-v0")
    env.close()


def test_fix_refuses_a_program_that_no_longer_validates(root):
    path = root.get("LockPick-v0").path / "env.py"
    path.write_text(path.read_text().replace("import random", "import os\nimport random"))
    results = {r.id: r for r in root.verify(fix=True)}
    result = results["spade/LockPick-v0"]
    assert not result.ok and not result.fixed and "validation failed" in result.problem
    with pytest.raises(TamperedEnvironmentError):
        root.get("LockPick-v0").source()


def test_verify_fix_writes_first_manifests(tmp_path, programs):
    # the shipped library starts as folders holding only env.py
    shipped = tmp_path / "shipped"
    for name in ("lock_pick", "nim"):
        folder = shipped / f"{name.title().replace('_', '')}-v0"
        folder.mkdir(parents=True)
        (folder / "env.py").write_text(programs[name][0])
    registry = Registry(shipped)
    assert len(registry) == 0 and len(registry.skipped()) == 2
    results = registry.verify(fix=True)
    assert [(r.id, r.fixed) for r in results] == [
        ("spade/LockPick-v0", True),
        ("spade/Nim-v0", True),
    ]
    assert {e.id for e in registry.list()} == {"spade/LockPick-v0", "spade/Nim-v0"}
    assert registry.get("Nim-v0").manifest.provenance.origin == "verify"


def test_earlier_roots_shadow_later_ones_with_a_warning(tmp_path, programs):
    program, report = programs["lock_pick"]
    first, second = Registry(tmp_path / "a"), Registry(tmp_path / "b")
    first.add(program, report)
    from registry_helpers import variant

    with pytest.warns(ShadowedEnvironmentWarning):  # a different program, same id in its root
        second.add(*variant(program, report, 1))
    with pytest.warns(ShadowedEnvironmentWarning, match="spade/LockPick-v0"):
        origin = register_roots([first.root, second.root])
    assert origin["spade/LockPick-v0"] == first.root
    assert gymnasium.spec("spade/LockPick-v0").kwargs["folder"].startswith(str(first.root))


def test_index_is_reused_and_rebuilt_when_stale(root):
    from spadegym.registry.index import INDEX_DIR, load_index

    index_file = root.root / INDEX_DIR / "index.json"
    stamp = json.loads(index_file.read_text())["stamp"]
    assert load_index(root.root).stamp == stamp
    os.rename(root.root / "Nim-v0", root.root / ".moved")  # an edit made behind our back
    assert "Nim-v0" not in load_index(root.root).entries
    assert json.loads(index_file.read_text())["stamp"] != stamp


def test_unknown_id_suggests_close_ones(root):
    with pytest.raises(RegistryError, match="Did you mean LockPick-v0"):
        root.get("LockPik-v0")


def test_top_level_exports():
    assert spadegym.Registry is Registry
    from spadegym.vector import EnvBatch

    assert spadegym.EnvBatch is EnvBatch
