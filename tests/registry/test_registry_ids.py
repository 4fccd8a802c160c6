from __future__ import annotations

import pytest
from registry_helpers import REPO, variant

from spadegym.registry import InvalidIdError, Registry, RegistryError, RejectedProgramError, ids


def test_base_name_strips_env_and_non_ascii():
    assert ids.base_name("LockPickEnv") == "LockPick"
    assert ids.base_name("Env") == "Env"
    assert ids.base_name("_3dEnv") == "Env_3d"
    assert ids.base_name("CaféEnv") == "Caf"


def test_parse_id_forms():
    assert ids.parse_id("spade/LockPick-v0") == ("LockPick", 0)
    assert ids.parse_id("LockPick-v12") == ("LockPick", 12)
    assert ids.parse_id("LockPick") == ("LockPick", None)
    for bad in ("spade/Lock Pick-v0", "LockPick-v01", "9Lives-v0", "a/b/c-v0", ""):
        with pytest.raises(InvalidIdError, match="not an environment id"):
            ids.parse_id(bad)


def test_free_name_never_reuses_a_taken_name():
    assert ids.free_name("Nim", []) == "Nim"
    assert ids.free_name("Nim", ["Nim"]) == "Nim2"
    assert ids.free_name("Nim", ["Nim", "Nim2", "Nim3"]) == "Nim4"


def test_ids_come_from_class_names_and_are_valid_gym_ids(root):
    from gymnasium.envs.registration import parse_env_id

    got = {e.id for e in root.list()}
    assert got == {
        "spade/BankSettlement-v0",
        "spade/BudgetAllocation-v0",
        "spade/IceMaze-v0",
        "spade/LockPick-v0",
        "spade/Nim-v0",
        "spade/SequenceStreak-v0",
    }
    for env_id in got:
        namespace, name, version = parse_env_id(env_id)
        assert (namespace, version) == ("spade", 0) and env_id == f"spade/{name}-v0"


def test_same_program_twice_gets_the_same_id(tmp_path, programs):
    registry = Registry(tmp_path / "r")
    program, report = programs["lock_pick"]
    first = registry.add(program, report)
    assert registry.add(program, report) == first
    assert len(registry) == 1


def test_different_program_under_a_taken_name_gets_a_new_name(tmp_path, programs):
    registry = Registry(tmp_path / "r")
    program, report = programs["lock_pick"]
    assert registry.add(program, report) == "spade/LockPick-v0"
    assert registry.add(*variant(program, report, 1)) == "spade/LockPick2-v0"
    assert registry.add(*variant(program, report, 2)) == "spade/LockPick3-v0"
    # the first entry was not touched
    assert registry.get("LockPick-v0").source() == program


def test_explicit_new_version(tmp_path, programs):
    registry = Registry(tmp_path / "r")
    program, report = programs["lock_pick"]
    registry.add(program, report)
    assert (
        registry.add(*variant(program, report, 1), version_of="LockPick-v0") == "spade/LockPick-v1"
    )
    assert (
        registry.add(*variant(program, report, 2), version_of="spade/LockPick")
        == "spade/LockPick-v2"
    )
    assert registry.get("LockPick").id == "spade/LockPick-v2"  # no version: the latest
    with pytest.raises(RegistryError, match="no environment named Nope"):
        registry.add(*variant(program, report, 3), version_of="Nope-v0")


def test_names_taken_in_other_roots_are_not_reused(tmp_path, programs):
    program, report = programs["lock_pick"]
    shipped = Registry(tmp_path / "shipped")
    shipped.add(program, report)
    user = Registry(tmp_path / "user", others=[tmp_path / "shipped"])
    assert user.add(program, report) == "spade/LockPick-v0"  # already there: same id
    assert len(user) == 0
    assert user.add(*variant(program, report, 1)) == "spade/LockPick2-v0"


def test_add_validates_when_no_report_is_given(tmp_path):
    registry = Registry(tmp_path / "r")
    bad = (REPO / "examples" / "bad" / "imports_os.py").read_text()
    with pytest.raises(RejectedProgramError, match="policy") as caught:
        registry.add(bad)
    assert not caught.value.report.ok
    assert not (tmp_path / "r").exists() or len(registry) == 0


def test_a_report_for_another_program_is_refused(tmp_path, programs):
    registry = Registry(tmp_path / "r")
    lock, lock_report = programs["lock_pick"]
    nim, _ = programs["nim"]
    with pytest.raises(RegistryError, match="another program"):
        registry.add(nim, lock_report)
    failing = type(lock_report)(ok=False)
    with pytest.raises(RegistryError, match="failing ValidationReport"):
        registry.add(lock, failing)
