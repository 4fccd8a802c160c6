"""The environment memory: accepted environments, their plays, and novelty checks.

It answers what has been accepted, how it was played, and whether a new program is a game
the memory already holds.

``import spadegym.memory`` needs neither torch nor faiss: both load on first use.

The modules, by role:

- The memory itself: ``store`` (``EnvironmentMemory``, a folder; it is assembled from the
  ``behaviour`` and ``similarity`` mixins), ``interface`` (``MemoryLike``, what the rest of
  spadegym asks of it) and ``default`` (the user's memory, seeded with the shipped library).
- "Is this a copy?": what a program is, read statically (``fingerprint``: the normalised-AST
  fingerprint and code shingles) and by playing it in a sandbox (``signature``: behaviour on
  fixed probes; ``behaviour``: the memory's workers and stored signatures); who to compare it
  with (``codekeys``: neighbours by code, beside the index's neighbours by meaning); the
  signals (``compare``, with ``crossplay`` replaying stored solutions in the candidate); the
  rule and its tuned thresholds (``novelty.judge``); and the memory's entry points
  (``similarity``: ``check_novelty``, ``similar``, ``similar_to``).
- Search by meaning: ``embedders`` (text to vectors) and ``vector_index`` (FAISS, rebuilt from
  SQLite when stale or damaged).
- The SQLite store, the source of truth: ``database`` (the connection; damage is one error),
  ``records`` (the environment table), ``kept_programs`` (sources and signatures), ``stats``
  (play statistics, regret, the frontier), ``journal`` (registry writes in flight),
  ``identity`` (the embedder a memory was built with) and ``integrity`` (a full check when the
  files changed behind the memory's back).
- Computed ahead for the shipped library, so a new memory seeds fast: ``precomputed``
  (summaries and embeddings) and ``shipped_signatures`` (behavioural signatures).
- ``progress``: a line on slow work (loading the embedder, rebuilding the index).
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
from spadegym.memory.novelty import DedupConfig, Novelty, Signals, Verdict, embedding_text, judge
from spadegym.memory.signature import Signature, compute_signature
from spadegym.memory.stats import PlayBatch, PlayStats
from spadegym.memory.store import DamagedMemoryError, EnvironmentMemory, EnvRecord, Neighbour
from spadegym.memory.vector_index import IndexParams

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
