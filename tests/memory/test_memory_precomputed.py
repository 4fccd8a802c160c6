"""The shipped library's precomputed memory rows: current, exact, and what makes seeding fast.

When a test here fails because the file is stale (the library, the summaries or the embedding
text changed), regenerate it with ``python -m spadegym.memory.precomputed``.
"""

from __future__ import annotations

import time
import tomllib
from pathlib import Path

import numpy as np
import pytest

from spadegym.memory import DEFAULT_MODEL, embedding_text, summarize
from spadegym.memory import precomputed as pre
from spadegym.memory.default import open_memory

ROOT = Path(__file__).resolve().parents[2]
STALE = "the precomputed library rows are stale: run `python -m spadegym.memory.precomputed`"


@pytest.fixture(scope="module")
def library():
    programs = pre.library_programs(ROOT / "registry")
    assert len(programs) >= 70
    return [(program, obs, summarize(program)) for program, obs in programs]


def test_the_file_ships_with_the_package():
    data = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    assert pre.DATA.name in data["package-data"]["spadegym.memory"]
    assert pre.DATA.is_file() and pre.DATA.stat().st_size < 400_000


def test_every_library_program_has_its_current_summary_and_vector(library):
    data = pre._load()
    assert data.get("code") == pre.code_version(), STALE
    assert set(data["summaries"]) == {s.source_sha256 for _, _, s in library}, STALE
    for _program, obs, summary in library:
        assert pre.summary(summary.source_sha256) == summary, STALE
        text = embedding_text(summary.title, summary.description, obs)
        assert pre.vector(summary.source_sha256, DEFAULT_MODEL, text, 384) is not None, STALE


def test_a_mismatch_falls_back_to_computing(library):
    program, obs, summary = library[0]
    text = embedding_text(summary.title, summary.description, obs)
    assert pre.vector(summary.source_sha256, DEFAULT_MODEL, text + " changed", 384) is None
    assert pre.vector(summary.source_sha256, "hashing-384", text, 384) is None
    assert pre.vector(summary.source_sha256, DEFAULT_MODEL, text, 128) is None
    assert pre.summary("0" * 64) is None


def test_the_vectors_are_the_default_models(library, minilm):
    chosen = library[:: max(1, len(library) // 8)]
    texts = [embedding_text(s.title, s.description, obs) for _, obs, s in chosen]
    fresh = minilm.embed(texts)
    for (_, _, summary), text, row in zip(chosen, texts, fresh):
        stored = pre.vector(summary.source_sha256, DEFAULT_MODEL, text, 384)
        assert float(np.dot(stored, row)) > 0.9999, STALE


def test_a_new_default_memory_seeds_in_under_a_second_without_the_model(tmp_path, monkeypatch):
    pytest.importorskip("faiss")
    monkeypatch.delenv("SPADEGYM_SHIPPED_REGISTRY", raising=False)
    open_memory(tmp_path / "warm", seed=False).close()  # imports faiss and friends first
    started = time.perf_counter()
    memory = open_memory(tmp_path / "memory")
    seconds = time.perf_counter() - started
    try:
        assert len(memory) >= 70
        assert memory.embedder._model is None  # nothing was embedded
        assert seconds < 1.0 or seconds < 3.0 and _busy(), f"seeding took {seconds:.2f} s"
        copy = (ROOT / "registry" / "NimDuel-v0" / "env.py").read_text()
        assert memory.find_copy(copy) == "spade/NimDuel-v0"
    finally:
        memory.close()


def _busy() -> bool:
    """Whether the machine is loaded (shared CI cores): then a looser bound is allowed."""
    import os

    return os.getloadavg()[0] > (os.cpu_count() or 1)
