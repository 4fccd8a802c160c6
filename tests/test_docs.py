"""The Markdown a user reads first: its links lead somewhere, and its Python examples run."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", ROOT / "examples" / "README.md", ROOT / "registry" / "README.md"]
LINK = re.compile(r"\]\(([^)\s]+)\)")
BLOCK = re.compile(r"```python\n(.*?)```", re.S)
NEEDS = re.compile(r"#\s*\(needs ")  # a block that needs a model or a server says so first


def anchors(page: Path) -> set[str]:
    """GitHub's anchors for the page's headings."""
    found = set()
    for line in page.read_text(encoding="utf-8").splitlines():
        if line.startswith("#"):
            title = line.lstrip("#").strip().lower()
            found.add(re.sub(r"[^\w\- ]", "", title).replace(" ", "-"))
    return found


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_relative_links_lead_somewhere(page):
    for target in LINK.findall(page.read_text(encoding="utf-8")):
        if re.match(r"[a-z]+:", target):
            continue  # http(s), mailto
        path, _, anchor = target.partition("#")
        file = (page.parent / path).resolve() if path else page
        assert file.exists(), f"{page.name} links {target}, which does not exist"
        if anchor and file.suffix == ".md":
            assert anchor in anchors(file), f"{page.name} links #{anchor}, not a heading"


def readme_blocks() -> list[tuple[int, str]]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    return [
        (text[: m.start()].count("\n") + 1, m.group(1))
        for m in BLOCK.finditer(text)
        if not NEEDS.match(m.group(1).lstrip())
    ]


@pytest.mark.parametrize(("line", "code"), readme_blocks(), ids=lambda v: str(v)[:12])
def test_readme_python_examples_run(line, code, tmp_path):
    env = {
        **os.environ,
        "SPADEGYM_HOME": str(tmp_path / "home"),
        "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
    }
    env.pop("SPADEGYM_REGISTRY_PATH", None)
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, f"README.md line {line}:\n{code}\n{done.stderr[-3000:]}"
