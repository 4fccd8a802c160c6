"""The shipped library's memory rows, computed ahead: a new default memory seeds in a blink.

Seeding the user's memory with the 76 library environments would cost about a second of
parsing and, the first time, loading the embedding model and embedding them all (20-30 s on a
laptop CPU). ``library_rows.json.gz`` beside this module holds the two costly parts for every
shipped program, keyed by the program's sha256:

- its summary (title, fingerprint, normalised code...), valid for one version of the code
  that computes summaries (``code_version``: ``fingerprint.py``, ``util/compat.py`` and the
  Python minor version, since ``ast`` output changes between Pythons);
- its embedding, per embedder name, with the sha256 of the text that was embedded.

Anything that does not match exactly (another program, another embedder, another text, other
summary code) is computed as usual, so a stale file costs time, never correctness. The file is
rewritten by ``python -m spadegym.memory.precomputed`` (it needs the default embedder), and
``tests/memory/test_memory_precomputed.py`` fails when it is stale.
"""

from __future__ import annotations

import base64
import dataclasses
import gzip
import hashlib
import json
import sys
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np

from spadegym.memory.fingerprint import ProgramSummary

DATA = Path(__file__).with_name("library_rows.json.gz")
"""The file of precomputed rows."""

FORMAT = 1


@cache
def code_version() -> str:
    """A hash of what summaries depend on: the summarising code and the Python minor version."""
    from spadegym.memory import fingerprint
    from spadegym.util import compat

    digest = hashlib.sha256(f"python {sys.version_info[0]}.{sys.version_info[1]}\n".encode())
    for module in (fingerprint, compat):
        if module.__file__ is None:  # loaded from no file (frozen)
            return "unknown"
        try:
            digest.update(Path(module.__file__).read_bytes())
        except OSError:
            return "unknown"
    return digest.hexdigest()[:16]


def text_digest(text: str) -> str:
    """The sha256 of an embedded text (what the vectors are keyed by besides the program)."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


@cache
def _load(path: Path = DATA) -> dict[str, Any]:
    try:
        with gzip.open(path, "rt", encoding="utf-8") as handle:
            data = json.load(handle)
    except (OSError, ValueError, EOFError):
        return {}
    return data if isinstance(data, dict) and data.get("format") == FORMAT else {}


def summary(sha256: str) -> ProgramSummary | None:
    """The precomputed summary of the program with this sha256, if current."""
    data = _load()
    fields = data.get("summaries", {}).get(sha256)
    if fields is None or data.get("code") != code_version():
        return None
    try:
        found = ProgramSummary(**fields)
    except TypeError:  # the summary gained or lost a field since the file was written
        return None
    return found if found.source_sha256 == sha256 else None


def vector(sha256: str, embedder: str, text: str, dim: int) -> np.ndarray | None:
    """The precomputed embedding of ``text`` for the program ``sha256`` by ``embedder``."""
    entry = _load().get("vectors", {}).get(embedder, {}).get(sha256)
    if entry is None or entry.get("text") != text_digest(text):
        return None
    values = np.frombuffer(base64.b64decode(entry["vector"]), dtype="<f4")
    return values.astype(np.float32) if values.shape == (dim,) else None


# -- writing the file ----------------------------------------------------------------------


def library_programs(root: Path | None = None) -> list[tuple[str, str | None]]:
    """``(program, first observation)`` of every environment of the shipped library."""
    from spadegym.registry import Registry, shipped_root

    root = root or shipped_root()
    if root is None:
        return []
    registry = Registry(root)
    out = []
    for entry in registry.list():
        env = registry.get(entry.id)
        out.append((env.source(), env.manifest.first_observation or None))
    return out


def compute(programs: list[tuple[str, str | None]], embedders: list[Any]) -> dict[str, Any]:
    """The file's contents for ``programs``, with vectors from each of ``embedders``."""
    from spadegym.memory.fingerprint import summarize
    from spadegym.memory.novelty import embedding_text

    summaries = [summarize(program) for program, _ in programs]
    texts = [
        embedding_text(s.title, s.description, obs)
        for s, (_, obs) in zip(summaries, programs, strict=True)
    ]
    vectors: dict[str, dict[str, dict[str, str]]] = {}
    for embedder in embedders:
        rows = np.asarray(embedder.embed(texts), dtype="<f4")
        vectors[embedder.name] = {
            s.source_sha256: {
                "text": text_digest(text),
                "vector": base64.b64encode(row.tobytes()).decode("ascii"),
            }
            for s, text, row in zip(summaries, texts, rows, strict=True)
        }
    return {
        "format": FORMAT,
        "code": code_version(),
        "summaries": {s.source_sha256: dataclasses.asdict(s) for s in summaries},
        "vectors": vectors,
    }


def write(data: dict[str, Any], path: Path = DATA) -> None:
    """Write the file reproducibly (sorted keys, no timestamp in the gzip header)."""
    text = json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    path.write_bytes(gzip.compress(text.encode("utf-8"), compresslevel=9, mtime=0))
    _load.cache_clear()
    code_version.cache_clear()


def main(argv: list[str] | None = None) -> int:
    """Rewrite ``library_rows.json.gz`` from the shipped library with the default embedder."""
    import argparse

    from spadegym.memory.embedders import DEFAULT_MODEL, SentenceTransformerEmbedder

    parser = argparse.ArgumentParser(prog="python -m spadegym.memory.precomputed")
    parser.add_argument("--output", type=Path, default=DATA, help="the file to write")
    args = parser.parse_args(argv)
    programs = library_programs()
    if not programs:
        print("no shipped library found; nothing written", file=sys.stderr)
        return 1
    data = compute(programs, [SentenceTransformerEmbedder(DEFAULT_MODEL, device="cpu")])
    write(data, args.output)
    size = args.output.stat().st_size
    print(f"wrote {len(programs)} programs to {args.output} ({size // 1024} KiB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
