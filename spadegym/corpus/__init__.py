"""Grounding documents for the designer: load a corpus, sample from it with a seed.

A corpus is a list of ``Document`` s. ``load_corpus`` reads JSONL files (a ``text`` or
``orig_doc`` field per line, as SPADE's corpora have), folders of text files, and Hugging
Face datasets (optional dependency); ``default_corpus()`` is the small corpus that ships with
spadegym. Every document has a stable id, recorded in the provenance of each environment it
grounded.
"""

from __future__ import annotations

from spadegym.corpus.documents import (
    DEFAULT_MAX_WORDS,
    Corpus,
    Document,
    default_corpus,
    load_corpus,
    truncate_words,
)

__all__ = [
    "DEFAULT_MAX_WORDS",
    "Corpus",
    "Document",
    "default_corpus",
    "load_corpus",
    "truncate_words",
]
