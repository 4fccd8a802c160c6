"""What a new user meets first: --version, checked values, headers, help, clear misses."""

from __future__ import annotations

import pytest
from sample_programs import LOCK_PICK

from spadegym import __version__
from spadegym.cli import build_parser, main
from spadegym.registry import Registry


@pytest.fixture
def roots(isolated_spadegym, tmp_path, monkeypatch):
    """Two roots: the user's (LockPick) and an extra one (empty but present)."""
    Registry(isolated_spadegym / "registry").add(LOCK_PICK)
    extra = Registry(tmp_path / "extra")
    extra.root.mkdir(parents=True)
    monkeypatch.setenv("SPADEGYM_REGISTRY_PATH", str(extra.root))
    return isolated_spadegym / "registry", extra.root


def test_version(capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["--version"])
    assert exit_.value.code == 0
    assert capsys.readouterr().out.strip() == f"spadegym {__version__}"


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["list", "--skill", "optimization"], "did you mean Optimization?"),
        (["list", "--skill", "logical deduction"], "did you mean Logical_Deduction?"),
        (["play", "spade/X-v0", "--difficulty", "9"], "'9' is not a difficulty; difficulties"),
        (["eval", "--llm", "replay:x", "--difficulty", "0"], "'0' is not a difficulty"),
        (["stats", "--skill", "OPTIMIZATION"], "did you mean Optimization?"),
    ],
)
def test_skills_and_difficulties_are_checked_when_parsed(argv, message, capsys):
    with pytest.raises(SystemExit) as exit_:
        main(argv)
    assert exit_.value.code == 2
    assert message in capsys.readouterr().err


def test_list_has_a_header_row(roots, capsys):
    assert main(["list"]) == 0
    header, first = capsys.readouterr().out.splitlines()[:2]
    assert header.split() == ["id", "skill", "kind", "turns", "title"]
    assert first.split()[:4] == ["spade/LockPick-v0", "Logical_Deduction", "puzzle", "8"]


def test_every_registry_command_has_a_description():
    subparsers = build_parser()._subparsers._group_actions[0].choices
    for name in ("list", "show", "remove", "export", "import", "play", "add", "verify"):
        assert subparsers[name].description, f"spadegym {name} --help has no description"


def test_a_missing_id_names_every_root_searched_and_the_closest(roots, capsys):
    user, extra = roots
    assert main(["show", "spade/LockPik-v0"]) == 1
    err = capsys.readouterr().err
    assert f"'spade/LockPik-v0' is not in any registry root (searched {user}, {extra})." in err
    assert "Did you mean spade/LockPick-v0?" in err
    assert '"spadegym:spade/<Name>-v<N>"' in err


def test_play_states_one_turn_limit(roots, capsys, monkeypatch):
    import io

    monkeypatch.setattr("sys.stdin", io.StringIO(":quit\n"))
    assert main(["play", "spade/LockPick-v0"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("== Pick a combination lock by listening to the clicks. (spade/LockPi")
    assert "spadegym ends the episode after 8 replies if the game has not ended it sooner" in out
    assert "at most" not in out


def test_a_duplicate_names_the_cli_flag(isolated_spadegym, tmp_path, capsys):
    from spadegym.memory import EnvironmentMemory, HashingEmbedder

    program = tmp_path / "lock.py"
    program.write_text(LOCK_PICK)
    copy = tmp_path / "copy.py"
    copy.write_text(LOCK_PICK.replace("LockPickEnv", "SafeCrackEnv"))
    memory = tmp_path / "memory"
    EnvironmentMemory(memory, HashingEmbedder()).close()
    root = str(tmp_path / "root")
    assert main(["add", str(program), "--root", root, "--memory", str(memory)]) == 0
    capsys.readouterr()
    assert main(["add", str(copy), "--root", root, "--memory", str(memory)]) == 1
    err = capsys.readouterr().err
    assert "it duplicates spade/LockPick-v0" in err
    assert "pass --new-version-of spade/LockPick-v0 to make it a new version" in err
    assert "version_of=" not in err
