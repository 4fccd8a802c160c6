"""The environment memory: accepted environments, their plays, and novelty checks.

It answers what has been accepted, how it was played, and whether a new program is a game
the memory already holds.

``import spadegym.memory`` needs neither torch nor faiss: both load on first use.
"""

from __future__ import annotations

from spadegym.memory.embedders import (
    DEFAULT_MODEL,
    Embedder,
    HashingEmbedder,
    SentenceTransformerEmbedder,
    embedder_from_name,
)
from spadegym.memory.fingerprint import ProgramSummary, code_similarity, shingles, summarize
from spadegym.memory.index import IndexParams
from spadegym.memory.novelty import DedupConfig, Novelty, embedding_text, judge
from spadegym.memory.stats import PlayBatch, PlayStats
from spadegym.memory.store import DamagedMemoryError, EnvironmentMemory, EnvRecord, Neighbour

__all__ = [
    "DEFAULT_MODEL",
    "DamagedMemoryError",
    "DedupConfig",
    "Embedder",
    "EnvRecord",
    "EnvironmentMemory",
    "HashingEmbedder",
    "IndexParams",
    "Neighbour",
    "Novelty",
    "PlayBatch",
    "PlayStats",
    "ProgramSummary",
    "SentenceTransformerEmbedder",
    "code_similarity",
    "embedder_from_name",
    "embedding_text",
    "judge",
    "shingles",
    "summarize",
]
