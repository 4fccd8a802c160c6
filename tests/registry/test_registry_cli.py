from __future__ import annotations

import io
import json

import pytest
from registry_helpers import REPO

from spadegym.cli import main
from spadegym.registry import Registry


def _run(capsys, *argv, stdin=None, monkeypatch=None):
    if stdin is not None:
        monkeypatch.setattr("sys.stdin", io.StringIO(stdin))
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_add_list_show_remove(tmp_path, capsys):
    root = str(tmp_path / "r")
    lock = str(REPO / "examples" / "good" / "lock_pick.py")
    bad = str(REPO / "examples" / "bad" / "imports_os.py")
    code, out, err = _run(
        capsys, "add", lock, bad, "--root", root, "--no-memory", "--designer", "human"
    )
    assert code == 1
    assert out.split() == ["spade/LockPick-v0", lock]
    assert "skipped the novelty check (--no-memory)" in err
    assert "imports_os.py was rejected" in err and "policy" in err
    code, out, _ = _run(capsys, "list", "--root", root, "--json")
    rows = json.loads(out)
    assert [r["id"] for r in rows] == ["spade/LockPick-v0"] and rows[0]["max_turns"] == 8
    code, out, _ = _run(capsys, "list", "--root", root, "--markdown")
    assert out.splitlines()[0] == "| id | skill | kind | title | turns |"
    assert "| `spade/LockPick-v0` | Logical_Deduction | puzzle |" in out
    code, out, _ = _run(capsys, "show", "LockPick-v0", "--root", root)
    assert code == 0 and '"designer": "human"' in out and "class LockPickEnv" in out
    code, out, _ = _run(capsys, "remove", "LockPick-v0", "--root", root)
    assert code == 0 and out.strip() == "removed spade/LockPick-v0"
    code, _, err = _run(capsys, "show", "LockPick-v0", "--root", root)
    assert code == 1 and f"'LockPick-v0' is not in any registry root (searched {root})" in err


def test_play_reads_replies_from_stdin(root, capsys, monkeypatch):
    env = root.get("LockPick-v0").make(isolation="none")
    env.reset(seed=5)
    (answer,) = env.solution()
    env.close()
    code, out, _ = _run(
        capsys,
        "play",
        "LockPick-v0",
        "--root",
        str(root.root),
        "--seed",
        "5",
        "--hint",
        stdin=f"\\boxed{{999}}\n{answer}\n",
        monkeypatch=monkeypatch,
    )
    assert code == 0
    assert "Hint: Change one digit at a time" in out
    assert "Click. The lock opens." in out
    assert "Episode over (terminated): outcome 1.0 in 2 turns." in out
    code, out, _ = _run(
        capsys, "play", "Nim-v0", "--root", str(root.root), stdin=":quit\n", monkeypatch=monkeypatch
    )
    assert code == 0 and "[player 0 to move]" in out and "stopped before" in out


@pytest.mark.filterwarnings("ignore::spadegym.registry.ShadowedEnvironmentWarning")
def test_verify_fix_export_import(root, tmp_path, capsys):
    path = root.get("Nim-v0").path / "env.py"
    path.write_text(path.read_text() + "\n")
    code, out, err = _run(capsys, "verify", "--root", str(root.root))
    assert code == 1 and "BROKEN  spade/Nim-v0" in out and "verify --fix --root" in err
    code, out, _ = _run(capsys, "verify", "--root", str(root.root), "--fix", "--no-memory")
    assert code == 0 and "fixed   spade/Nim-v0" in out
    bundle = str(tmp_path / "b.tar.gz")
    code, out, _ = _run(
        capsys, "export", "Nim-v0", "IceMaze-v0", "-o", bundle, "--root", str(root.root)
    )
    assert code == 0 and "wrote 2 environments" in out
    code, out, _ = _run(capsys, "import", bundle, "--root", str(tmp_path / "other"), "--no-memory")
    assert code == 0 and out.split() == ["spade/Nim-v0", "spade/IceMaze-v0"]
    assert len(Registry(tmp_path / "other")) == 2
