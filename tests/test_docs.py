"""The Markdown a user reads: its links lead somewhere, its Python examples run, the site builds.

The pages are README.md (the front door, kept short), the two folder READMEs, and every page of
the documentation site under docs/ (mkdocs.yml), wherever an example moved to from the README.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = sorted((ROOT / "docs").rglob("*.md"))
PAGES = [
    ROOT / "README.md",
    ROOT / "examples" / "README.md",
    ROOT / "registry" / "README.md",
    *DOCS,
]
RUN = [ROOT / "README.md", *DOCS]  # the pages whose Python examples run
README_LIMIT = 12_000  # characters: the README is a front page; the rest lives in docs/
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


def python_blocks() -> list[tuple[str, str]]:
    """Each runnable block of the pages, as ("<page>:<line>", code)."""
    blocks = []
    for page in RUN:
        text = page.read_text(encoding="utf-8")
        blocks += [
            (f"{page.relative_to(ROOT)}:{text[: m.start()].count(chr(10)) + 1}", m.group(1))
            for m in BLOCK.finditer(text)
            if not NEEDS.match(m.group(1).lstrip())
        ]
    return blocks


def test_the_examples_are_found():
    # The README keeps its validate and gymnasium.make examples; the pages hold the others.
    where = [place.partition(":")[0] for place, _ in python_blocks()]
    assert where.count("README.md") >= 2, where
    assert len(where) >= 8, where


@pytest.mark.parametrize(("place", "code"), python_blocks(), ids=lambda v: str(v)[:40])
def test_python_examples_run(place, code, tmp_path):
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
    assert done.returncode == 0, f"{place}:\n{code}\n{done.stderr[-3000:]}"


def test_readme_is_a_front_page():
    size = len((ROOT / "README.md").read_text(encoding="utf-8"))
    assert size <= README_LIMIT, (
        f"README.md is {size} characters, over {README_LIMIT:,}: move the detail into a page "
        "under docs/ and link it"
    )


def test_every_page_is_in_the_site():
    config = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    missing = [
        str(p.relative_to(ROOT / "docs"))
        for p in DOCS
        if p.relative_to(ROOT / "docs").as_posix() not in config
    ]
    assert not missing, f"pages under docs/ that mkdocs.yml's nav does not list: {missing}"


def offline() -> list[str]:
    """A command prefix that cuts the network (a new empty network namespace), or none."""
    try:
        cut = subprocess.run(["unshare", "-n", "true"], capture_output=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired):
        return []
    return ["unshare", "-n"] if cut.returncode == 0 else []


@pytest.mark.slow
def test_the_site_builds_strictly_and_offline(tmp_path):
    # Offline where this machine can cut the network: a theme font or plugin that fetches
    # at build time fails the build here, as it would in CI without a network.
    try:
        import mkdocs  # noqa: F401
    except ImportError:
        pytest.fail(
            "mkdocs is not installed: pip install -e '.[dev]' (mkdocs-material, mkdocstrings)"
        )
    done = subprocess.run(
        [
            *offline(),
            sys.executable,
            "-m",
            "mkdocs",
            "build",
            "--strict",
            "-q",
            "-d",
            str(tmp_path),
        ],
        cwd=ROOT,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    api = (tmp_path / "api" / "spadegym.validation" / "index.html").read_text(encoding="utf-8")
    assert "ValidationReport" in api, "the API pages render no docstrings"
