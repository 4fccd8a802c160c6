"""Hand-edited indexes, hostile manifests and leftovers: one bad entry never costs a root."""

from __future__ import annotations

import io
import json
import logging
import os
import subprocess
import sys
import tarfile

import gymnasium
import pytest
from registry_helpers import REPO, child_env

from spadegym.cli import main
from spadegym.registry import Registry, RegistryError, register_roots
from spadegym.registry.index import INDEX_DIR, check_row, load_index
from spadegym.registry.manifest import parse_manifest
from spadegym.util import leftovers

DEEP = "[" * 100_000 + "]" * 100_000


def _edit_index(root: Registry, edit) -> None:
    """Edit the index file's rows by hand, keeping its stamp fresh."""
    load_index(root.root)
    path = root.root / INDEX_DIR / "index.json"
    data = json.loads(path.read_text())
    edit(data["entries"])
    path.write_text(json.dumps(data))


def test_a_dropped_row_does_not_unregister_the_environment(root, caplog):
    _edit_index(root, lambda rows: rows.remove(next(r for r in rows if r[0] == "Nim-v0")))
    with caplog.at_level(logging.WARNING, logger="spadegym.registry"):
        assert "Nim-v0" in load_index(root.root).entries
    assert "has no row for the folder 'Nim-v0'" in caplog.text
    assert "spade/Nim-v0" in register_roots([root.root])


def test_a_bad_max_turns_is_not_trusted(root, caplog):
    def edit(rows):
        next(r for r in rows if r[0] == "LockPick-v0")[2] = "8"

    _edit_index(root, edit)
    with caplog.at_level(logging.WARNING, logger="spadegym.registry"):
        register_roots([root.root])
    assert "bad max_turns" in caplog.text
    env = gymnasium.make("spade/LockPick-v0", isolation="none")
    assert env.spec.max_episode_steps == 8
    env.close()


def test_a_row_leaving_the_root_does_not_break_import(root, isolated):
    _edit_index(
        root, lambda rows: rows.append(["../../etc-v0", "0" * 64, 8, "x", None, "puzzle", 1])
    )
    code = (
        "import gymnasium, spadegym; print(sum(k.startswith('spade/') for k in gymnasium.registry))"
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
    assert done.stdout.split() == ["6"]


@pytest.mark.parametrize(
    ("row", "problem"),
    [
        (["Nim-v0", "0" * 64, 8, "t", None, "puzzle", 1], None),
        (["../x", "0" * 64, 8, "t", None, "puzzle", 1], "folder '../x' is not <Name>-v<N>"),
        (["Nim-v0", "abc", True, "t", None, "race", 3], "Nim-v0: bad sha256, max_turns"),
        (["Nim-v0", "0" * 64, 0, "t", None, "puzzle", 1], "Nim-v0: bad max_turns"),
        (["Nim-v0"], "a row must be a list of 7 values"),
        ({"folder": "Nim-v0"}, "a row must be a list of 7 values"),
    ],
)
def test_index_rows_are_checked(row, problem):
    checked = check_row(row)
    if problem is None:
        assert checked.folder == "Nim-v0"
    else:
        assert isinstance(checked, str) and checked.startswith(problem)


def test_a_deeply_nested_manifest_skips_one_entry(root, isolated, capsys):
    (root.root / "Deep-v0").mkdir()
    (root.root / "Deep-v0" / "env.py").write_text("class DeepEnv: pass\n")
    (root.root / "Deep-v0" / "manifest.json").write_text(DEEP)
    with pytest.raises(RegistryError, match="nests its JSON too deeply"):
        parse_manifest(DEEP)
    assert "too deeply" in root.skipped()["Deep-v0"] and len(root) == 6
    assert "spade/Nim-v0" in register_roots([root.root])
    assert main(["list", "--root", str(root.root)]) == 0
    out = capsys.readouterr().out
    assert "spade/Deep-v0" in out and "BROKEN: manifest.json nests its JSON too deeply" in out
    assert "6 environments, 1 broken (`spadegym verify` says why)" in out
    assert main(["list", "--root", str(root.root), "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert rows[-1]["id"] == "spade/Deep-v0" and "too deeply" in rows[-1]["broken"]
    assert main(["remove", "Deep-v0", "--root", str(root.root), "--no-memory"]) == 0
    assert not (root.root / "Deep-v0").exists()


def _bundle(path, members):
    with tarfile.open(path, "w:gz") as tar:
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return path


def test_a_deeply_nested_manifest_in_a_bundle_is_a_registry_error(root, tmp_path, capsys):
    source = root.get("Nim-v0").source().encode()
    bundle = _bundle(
        tmp_path / "deep.tar.gz", {"Nim-v0/env.py": source, "Nim-v0/manifest.json": DEEP.encode()}
    )
    other = Registry(tmp_path / "other")
    with pytest.raises(RegistryError, match="Nim-v0: manifest.json nests its JSON too deeply"):
        other.import_(bundle)
    assert main(["import", str(bundle), "--root", str(tmp_path / "other")]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "nests its JSON too deeply" in err


def test_leftover_index_files_of_dead_writers_are_removed(root):
    folder = root.root / INDEX_DIR
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    stale = folder / f".index-{dead.pid}-{leftovers.HOST}-00ff.tmp"
    live = folder / f".index-{os.getppid()}-{leftovers.HOST}-00ff.tmp"
    other_host = folder / f".index-{dead.pid}-elsewhere-00ff.tmp"
    for file in (stale, live, other_host):
        file.write_text("{")
    os.rename(root.root / "Nim-v0", root.root / "Nim-v9")  # makes the index stale: rewritten
    load_index(root.root)
    assert not stale.exists() and live.exists() and other_host.exists()


def test_verify_removes_the_temporary_files_of_killed_rewrites(root):
    folder = root.get("Nim-v0").path
    (folder / ".manifest-0123.tmp").write_text("{")
    (root.root / ".tmp-deadbeef").mkdir()
    assert all(r.ok for r in root.verify())
    assert not (folder / ".manifest-0123.tmp").exists()
    assert not (root.root / ".tmp-deadbeef").exists()


def test_the_registry_modules_import_each_other_without_cycles():
    import ast

    package = REPO / "spadegym" / "registry"
    graph: dict[str, set[str]] = {}
    for path in package.glob("*.py"):
        names = set()
        for node in ast.walk(ast.parse(path.read_text())):  # function-level imports included
            if isinstance(node, ast.ImportFrom) and node.module:
                if node.module.startswith("spadegym.registry."):
                    names.add(node.module.rsplit(".", 1)[1])
                elif node.module == "spadegym.registry":
                    names.update(a.name for a in node.names if (package / f"{a.name}.py").exists())
        graph[path.stem] = names - {path.stem}
    graph.pop("__init__")

    def reaches(start: str, goal: str, seen: set[str]) -> bool:
        return any(
            nxt == goal or (nxt not in seen and reaches(nxt, goal, seen | {nxt}))
            for nxt in graph.get(start, ())
        )

    assert {"store", "bundle", "entry", "index"} <= set(graph)
    cycles = sorted(m for m in graph if reaches(m, m, {m}))
    assert cycles == [], f"import cycles through {cycles}"
