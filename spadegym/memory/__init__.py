"""The environment memory: accepted environments, their plays, and novelty checks.

It answers what has been accepted, how it was played, and whether a new program is a game
the memory already holds.

``import spadegym.memory`` needs neither torch nor faiss: both load on first use.
"""

from __future__ import annotations

from spadegym.memory.crossplay import CrossPlay, cross_play
from spadegym.memory.embedders import (
    DEFAULT_MODEL,
    Embedder,
    HashingEmbedder,
    SentenceTransformerEmbedder,
    embedder_from_name,
)
from spadegym.memory.fingerprint import ProgramSummary, code_similarity, shingles, summarize
from spadegym.memory.index import IndexParams
from spadegym.memory.novelty import DedupConfig, Novelty, Signals, Verdict, embedding_text, judge
from spadegym.memory.signature import Signature, compute_signature
from spadegym.memory.stats import PlayBatch, PlayStats
from spadegym.memory.store import DamagedMemoryError, EnvironmentMemory, EnvRecord, Neighbour

__all__ = [
    "DEFAULT_MODEL",
    "CrossPlay",
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
    "Signals",
    "Signature",
    "Verdict",
    "code_similarity",
    "compute_signature",
    "cross_play",
    "embedder_from_name",
    "embedding_text",
    "judge",
    "shingles",
    "summarize",
]
