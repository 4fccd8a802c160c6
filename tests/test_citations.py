"""The project's files cite its own docs/, never a shared/ folder outside the repository."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FOLDERS = ["spadegym", "spadegym_train", "examples", "benchmarks", "docs"]
CITED = re.compile(r"\b(shared|docs)/([A-Za-z_]+\.md)")


def sources() -> list[Path]:
    files = [ROOT / "README.md"]
    for folder in FOLDERS:
        files += [p for p in (ROOT / folder).rglob("*") if p.suffix in (".py", ".md")]
    return files


def test_cited_documents_are_in_docs():
    wrong = []
    for path in sources():
        for folder, name in CITED.findall(path.read_text(encoding="utf-8", errors="replace")):
            if folder == "shared" or not (ROOT / "docs" / name).is_file():
                wrong.append(f"{path.relative_to(ROOT)} cites {folder}/{name}")
    assert wrong == []


def test_the_lock_pick_example_is_the_contracts_own():
    example = (ROOT / "examples" / "good" / "lock_pick.py").read_text(encoding="utf-8")
    assert example.startswith("# The contract's own example (docs/CONTRACT.md section 1)")
    contract = (ROOT / "docs" / "CONTRACT.md").read_text(encoding="utf-8")
    assert "class LockPickEnv:" in contract and "class LockPickEnv:" in example
