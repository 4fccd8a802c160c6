"""The spadegym home: created by the first write, which says so once; reading leaves none."""

from __future__ import annotations

import pytest
from sample_programs import LOCK_PICK

from spadegym.registry import Registry, home, use_home, user_root

ANNOUNCEMENT = "spadegym: created {} for your registry and memory (the first write there;"


@pytest.fixture
def fresh_home(tmp_path, monkeypatch, isolated_spadegym):
    """A SPADEGYM_HOME that does not exist yet, and no announcement made in this process."""
    folder = tmp_path / "not-yet"
    monkeypatch.setenv("SPADEGYM_HOME", str(folder))
    monkeypatch.setattr(home, "_announced", False)
    return folder


def test_the_first_write_announces_the_home_once(fresh_home, capsys):
    Registry(user_root()).add(LOCK_PICK)
    assert fresh_home.is_dir()
    err = capsys.readouterr().err
    assert err.count(ANNOUNCEMENT.format(fresh_home)) == 1
    home.make_folder(fresh_home / "memory")
    assert capsys.readouterr().err == ""


def test_folders_elsewhere_and_a_runs_workspace_are_not_announced(fresh_home, tmp_path, capsys):
    home.make_folder(tmp_path / "elsewhere" / "deep")
    with use_home(tmp_path / "run") as workspace:
        home.make_folder(workspace / "registry")
    assert capsys.readouterr().err == "" and not fresh_home.exists()


@pytest.mark.parametrize("command", [["stats"], ["similar", "spade/NimDuel-v0", "--no-sandbox"]])
def test_reading_commands_create_no_home(fresh_home, capsys, command, monkeypatch):
    pytest.importorskip("faiss")
    from spadegym.cli import main

    monkeypatch.setenv("SPADEGYM_SHIPPED_REGISTRY", str(_library()))
    code = main(command)
    err = capsys.readouterr().err
    assert f"spadegym: no memory at {fresh_home / 'memory'} yet; reading the shipped" in err
    assert code == 0 and not fresh_home.exists()


def _library():
    from spadegym.registry.roots import _shipped

    return _shipped("library", "registry")
