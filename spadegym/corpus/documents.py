"""Documents, corpora, and the loaders for JSONL files, text folders and Hugging Face datasets."""

from __future__ import annotations

import functools
import hashlib
import random
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from spadegym.errors import ConfigError
from spadegym.util import jsonl

__all__ = [
    "DEFAULT_MAX_WORDS",
    "Corpus",
    "Document",
    "default_corpus",
    "load_corpus",
    "truncate_words",
]

DEFAULT_MAX_WORDS = 6000
"""Documents are cut to this many words, as SPADE does, so a prompt stays a sensible size."""

TEXT_FIELDS = ("text", "orig_doc")
"""Fields a JSONL line or dataset row may keep its text in, tried in this order."""

TEXT_SUFFIXES = frozenset({".txt", ".md", ".rst"})
"""Files of a folder corpus that are read; the rest are ignored."""

_WORD = re.compile(r"\S+")


@dataclass(frozen=True)
class Document:
    """One grounding document.

    Attributes:
        id: stable across runs and machines: the record's own ``id`` when it has one, a
            folder corpus's relative path, or ``doc-`` and a hash of the text.
        text: the text, already cut to the corpus's word budget.
        title: a short title, when the source gives one.
        topic: a coarse topic (``"science"``, ``"games"``, ...), when known.
        source: where the text comes from (licence notes for the default corpus).
    """

    id: str
    text: str
    title: str = ""
    topic: str = ""
    source: str = ""

    @property
    def words(self) -> int:
        """Number of whitespace-separated words."""
        return len(_WORD.findall(self.text))


def truncate_words(text: str, max_words: int = DEFAULT_MAX_WORDS) -> str:
    """The first ``max_words`` words of ``text``, its spacing and line breaks kept.

    Raises:
        ConfigError: ``max_words`` is below 1.
    """
    if max_words < 1:
        raise ConfigError(f"max_words={max_words}: keep at least one word.")
    for count, match in enumerate(_WORD.finditer(text), start=1):
        if count == max_words:
            return text[: match.end()]
    return text.rstrip()


def text_id(text: str) -> str:
    """The id of a document that brings none: a short hash of its text."""
    return "doc-" + hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


class Corpus:
    """An ordered collection of documents with seeded uniform sampling.

    Args:
        documents: the documents; ids must be unique.
        name: what the corpus is called in provenance (a path, ``"default"``, ``"hf:..."``).

    Raises:
        ConfigError: the corpus is empty, or two documents share an id.
    """

    def __init__(self, documents: Iterable[Document], name: str = "corpus"):
        self.documents = list(documents)
        self.name = name
        if not self.documents:
            raise ConfigError(
                f"corpus {name!r} holds no documents; give a JSONL file with a "
                "text field, a folder of .txt/.md files, or a dataset."
            )
        self._by_id: dict[str, Document] = {}
        for doc in self.documents:
            if doc.id in self._by_id:
                raise ConfigError(
                    f"corpus {name!r}: document id {doc.id!r} appears twice; ids "
                    "must be unique (drop the duplicate or rename it)."
                )
            self._by_id[doc.id] = doc

    def __len__(self) -> int:
        return len(self.documents)

    def __iter__(self) -> Iterator[Document]:
        return iter(self.documents)

    def __repr__(self) -> str:
        return f"Corpus({self.name!r}, {len(self)} documents)"

    def get(self, doc_id: str) -> Document | None:
        """The document with this id, or ``None``."""
        return self._by_id.get(doc_id)

    def sample(self, rng: random.Random) -> Document:
        """One document, uniformly at random from ``rng``."""
        return self.documents[rng.randrange(len(self.documents))]

    def sampler(self, seed: int = 0) -> Iterator[Document]:
        """An endless stream of uniformly sampled documents; the same seed, the same stream."""
        rng = random.Random(seed)
        while True:
            yield self.sample(rng)

    def topics(self) -> dict[str, int]:
        """How many documents each topic has."""
        counts: dict[str, int] = {}
        for doc in self.documents:
            counts[doc.topic] = counts.get(doc.topic, 0) + 1
        return counts

    # -- loaders ----------------------------------------------------------------------------

    @classmethod
    def from_jsonl(
        cls,
        path: str | Path,
        *,
        text_field: str | None = None,
        max_words: int = DEFAULT_MAX_WORDS,
        name: str | None = None,
    ) -> Corpus:
        """Read a JSONL file: one object a line, its text in ``text`` or ``orig_doc``.

        ``id``, ``title``, ``topic`` and ``source`` are read when present. Lines with an
        empty text are skipped; identical texts without ids are kept once.

        Raises:
            ConfigError: the file cannot be read, or a line is not a JSON object with text.
        """
        path = Path(path)
        try:
            lines = path.read_text(encoding="utf-8").splitlines()
        except (OSError, UnicodeDecodeError) as exc:
            raise ConfigError(f"cannot read corpus file {path}: {exc}.") from exc
        records = [
            (f"{path}:{number}", record)
            for number, record in jsonl.objects(lines, path, "a corpus file")
        ]
        return cls(_documents(records, text_field, max_words), name or str(path))

    @classmethod
    def from_folder(
        cls, path: str | Path, *, max_words: int = DEFAULT_MAX_WORDS, name: str | None = None
    ) -> Corpus:
        """Read every ``.txt``, ``.md`` and ``.rst`` file under a folder, one document each.

        The id is the file's path relative to the folder, the title its first line.
        """
        root = Path(path)
        docs = []
        for file in sorted(p for p in root.rglob("*") if p.suffix in TEXT_SUFFIXES and p.is_file()):
            try:
                text = file.read_text(encoding="utf-8").strip()
            except (OSError, UnicodeDecodeError) as exc:
                raise ConfigError(f"cannot read corpus file {file}: {exc}.") from exc
            if not text:
                continue
            title = text.splitlines()[0].lstrip("# ").strip()[:120]
            docs.append(
                Document(
                    file.relative_to(root).as_posix(),
                    truncate_words(text, max_words),
                    title,
                    "",
                    str(file),
                )
            )
        return cls(docs, name or str(root))

    @classmethod
    def from_huggingface(
        cls,
        name_or_path: str,
        *,
        split: str = "train",
        text_field: str | None = None,
        config_name: str | None = None,
        limit: int | None = None,
        max_words: int = DEFAULT_MAX_WORDS,
    ) -> Corpus:
        """Read a Hugging Face dataset.

        A folder saved with ``save_to_disk`` is read directly; anything else goes to
        ``datasets.load_dataset`` (a hub name needs network access).

        Args:
            name_or_path: the dataset.
            split: which split.
            text_field: the text column; ``text`` or ``orig_doc`` when ``None``.
            config_name: the dataset configuration, if it has several.
            limit: read at most this many rows.
            max_words: word budget per document.

        Raises:
            ConfigError: ``datasets`` is not installed, or the dataset cannot be read.
        """
        try:
            import datasets
        except ModuleNotFoundError as exc:
            raise ConfigError(
                "reading a Hugging Face dataset needs the datasets package: pip install datasets."
            ) from exc
        try:
            if (Path(name_or_path) / "dataset_info.json").exists() or (
                Path(name_or_path) / "state.json"
            ).exists():
                data: Any = datasets.load_from_disk(name_or_path)
                if isinstance(data, datasets.DatasetDict):
                    data = data[split]
            else:
                data = datasets.load_dataset(name_or_path, config_name, split=split)
        except Exception as exc:  # datasets raises many kinds; all mean "cannot read it"
            raise ConfigError(
                f"cannot load the dataset {name_or_path!r} (split {split!r}): "
                f"{type(exc).__name__}: {exc}."
            ) from exc
        rows = data if limit is None else data.select(range(min(limit, len(data))))
        records = ((f"{name_or_path}[{k}]", dict(row)) for k, row in enumerate(rows))
        return cls(_documents(records, text_field, max_words), f"hf:{name_or_path}")


def _documents(
    records: Iterable[tuple[str, dict[str, Any]]], text_field: str | None, max_words: int
) -> list[Document]:
    docs: list[Document] = []
    seen: set[str] = set()
    fields = (text_field,) if text_field else TEXT_FIELDS
    for where, record in records:
        text = next((record[f] for f in fields if isinstance(record.get(f), str)), None)
        if text is None:
            raise ConfigError(
                f"{where} has no text field ({' or '.join(fields)}); put the "
                "document's text in one, or name the field with text_field=."
            )
        text = truncate_words(text.strip(), max_words)
        if not text:
            continue
        given = record.get("id")
        doc_id = str(given) if isinstance(given, str | int) and str(given) else text_id(text)
        if given is None and doc_id in seen:
            continue  # the same text twice: keep it once
        seen.add(doc_id)
        docs.append(
            Document(
                doc_id,
                text,
                str(record.get("title") or ""),
                str(record.get("topic") or ""),
                str(record.get("source") or ""),
            )
        )
    return docs


DEFAULT_CORPUS_FILE = Path(__file__).with_name("data") / "default.jsonl"
"""The corpus that ships with spadegym: short documents written for the project."""


@functools.lru_cache(maxsize=4)
def default_corpus(max_words: int = DEFAULT_MAX_WORDS) -> Corpus:
    """The shipped corpus, used when no corpus is given.

    Several hundred short documents on science, mathematics, everyday procedures, games, and
    software tools, written for the project.
    """
    return Corpus.from_jsonl(DEFAULT_CORPUS_FILE, max_words=max_words, name="default")


def load_corpus(
    spec: str | Path | Corpus | Iterable[str] | None = None,
    *,
    max_words: int = DEFAULT_MAX_WORDS,
    **options: Any,
) -> Corpus:
    """Load a corpus from whatever names one.

    Args:
        spec: ``None`` or ``"default"`` (the shipped corpus); a ``Corpus`` (returned as is);
            ``"hf:<name or path>"`` (a Hugging Face dataset); a folder; a JSONL file; or an
            iterable of texts.
        max_words: word budget per document.
        **options: passed to the loader (``text_field``, ``split``, ...).

    Raises:
        ConfigError: the spec names nothing readable.
    """
    if spec is None or spec == "default":
        return default_corpus(max_words)
    if isinstance(spec, Corpus):
        return spec
    if isinstance(spec, str) and spec.startswith("hf:"):
        return Corpus.from_huggingface(spec[3:], max_words=max_words, **options)
    if isinstance(spec, str | Path):
        path = Path(spec)
        if path.is_dir():
            return Corpus.from_folder(path, max_words=max_words, **options)
        if path.is_file():
            return Corpus.from_jsonl(path, max_words=max_words, **options)
        raise ConfigError(
            f"corpus {str(spec)!r} is neither a file nor a folder; give a JSONL "
            "file, a folder of text files, hf:<dataset>, or None for the default."
        )
    texts = list(spec)
    if not all(isinstance(t, str) for t in texts):
        raise ConfigError("a corpus given as a list must hold strings (document texts).")
    return Corpus(
        _documents(((f"texts[{k}]", {"text": t}) for k, t in enumerate(texts)), None, max_words),
        "texts",
    )
