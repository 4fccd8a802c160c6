"""A candidate is embedded once: ``check_novelty`` hands its embedding to the ``add`` after it."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from counting import CountingEmbedder

from spadegym.errors import ConfigError
from spadegym.memory import DedupConfig, EnvironmentMemory
from spadegym.memory.fingerprint import summarize
from spadegym.memory.novelty import Embedded, embedding_text

pytest.importorskip("faiss")

EXAMPLES = Path(__file__).parents[2] / "examples" / "good"
LOCK_PICK = (EXAMPLES / "lock_pick.py").read_text(encoding="utf-8")
NIM = (EXAMPLES / "nim.py").read_text(encoding="utf-8")
FIRST = "The lock has 3 dials."


@pytest.fixture
def counted(tmp_path):
    embedder = CountingEmbedder()
    # No behavioural signatures: these tests count embeddings, and need no sandbox.
    dedup = DedupConfig(behaviour=False)
    with EnvironmentMemory(tmp_path / "memory", embedder, dedup=dedup) as memory:
        yield memory, embedder


def text_of(source: str, first: str | None) -> str:
    summary = summarize(source)
    return embedding_text(summary.title, summary.description, first)


def test_the_add_after_a_novelty_check_embeds_nothing(counted):
    memory, embedder = counted
    memory.add("spade/Nim-v0", NIM)
    embedder.texts.clear()
    verdict = memory.check_novelty(LOCK_PICK, first_observation=FIRST)
    assert verdict.novel and verdict.embedding is not None
    memory.add("spade/LockPick-v0", LOCK_PICK, first_observation=FIRST, embedding=verdict.embedding)
    assert embedder.texts == [text_of(LOCK_PICK, FIRST)]  # once, by the check
    # The stored vector is the candidate's own: it is its own nearest neighbour.
    assert memory.near(text_of(LOCK_PICK, FIRST), k=1)[0].env_id == "spade/LockPick-v0"


def test_an_embedding_of_another_text_or_embedder_is_made_anew(counted):
    memory, embedder = counted
    verdict = memory.check_novelty(LOCK_PICK, first_observation=FIRST)
    embedder.texts.clear()
    # The check saw another first observation than the add is given: its vector is not used.
    memory.add(
        "spade/LockPick-v0", LOCK_PICK, first_observation="other", embedding=verdict.embedding
    )
    assert embedder.texts == [text_of(LOCK_PICK, "other")]
    foreign = Embedded(text_of(NIM, None), "another-model", tuple(np.ones(memory.dim).tolist()))
    memory.add("spade/Nim-v0", NIM, embedding=foreign)
    assert embedder.texts[1:] == [text_of(NIM, None)]


def test_an_exact_copy_is_judged_without_an_embedding(counted):
    memory, embedder = counted
    memory.add("spade/Nim-v0", NIM)
    embedder.texts.clear()
    verdict = memory.check_novelty(NIM)
    assert not verdict.novel and verdict.embedding is None and embedder.texts == []


def test_embeddings_must_match_the_items(counted):
    memory, _ = counted
    with pytest.raises(ConfigError) as err:
        memory.add_many([("spade/Nim-v0", NIM, None)], embeddings=[])
    assert str(err.value) == (
        "add_many got 0 embeddings for 1 items; pass one per item (None to embed it)"
    )
