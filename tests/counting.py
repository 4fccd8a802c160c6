"""``CountingEmbedder``: the hashing embedder, keeping every text it was asked to embed."""

from __future__ import annotations

import numpy as np

from spadegym.memory import HashingEmbedder


class CountingEmbedder:
    """A ``HashingEmbedder`` (same name, same vectors) that records the texts it embeds."""

    def __init__(self) -> None:
        self.inner = HashingEmbedder()
        self.name, self.dim = self.inner.name, self.inner.dim
        self.texts: list[str] = []

    def embed(self, texts: list[str]) -> np.ndarray:
        self.texts += texts
        return self.inner.embed(texts)
