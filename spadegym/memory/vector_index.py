"""The FAISS side of the memory: exact search while small, HNSW past a size threshold.

The index file is replaced atomically and stamped, so that a stale or broken file is noticed
and rebuilt from SQLite rather than trusted: the stamp says which SQLite rows it holds, and a
CRC-32 of its payload (also kept in SQLite) shows whether the bytes are the ones written.
A search that returns an impossible score (vectors are unit length, so a cosine lies in
[-1, 1]) also marks the index as broken.

faiss is imported inside the functions that need it, so importing the memory package stays
cheap.
"""

from __future__ import annotations

import json
import math
import os
import struct
import zlib
from collections.abc import Callable
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from spadegym.errors import ConfigError
from spadegym.util import leftovers

if TYPE_CHECKING:
    from faiss import IndexIDMap

TEMP_PREFIX = ".index-"
"""Temporary index files: ``.index-<pid>-<host>-<hex>.tmp`` (see ``spadegym.util.leftovers``)."""

SCORE_SLACK = 1e-3
"""How far past [-1, 1] a float32 cosine may stray before the index is taken as broken."""


@dataclass(frozen=True)
class IndexParams:
    """How the vector index is built.

    Attributes:
        hnsw_threshold: above this many vectors the exact index is replaced by HNSW. Exact
            search costs ``O(n * dim)`` per query: about a millisecond per 20k vectors on one
            core, so it stays exact (and perfectly accurate) while it is cheap.
        hnsw_m: HNSW graph degree. On the benchmark's clustered 384-d vectors at 1M, 16 (with
            ``ef_construction`` 40) caps recall@10 near 0.90 whatever ``ef_search``; 32 with
            80 reaches 0.99 at ``ef_search`` 128 (0.5 ms a query), for a 1M build of about
            3.5 minutes on two cores.
        ef_construction: HNSW build-time beam width.
        ef_search: HNSW query-time beam width (recall against latency).
    """

    hnsw_threshold: int = 50_000
    hnsw_m: int = 32
    ef_construction: int = 80
    ef_search: int = 128

    def __post_init__(self) -> None:
        if self.hnsw_threshold < 1:
            raise ConfigError(f"hnsw_threshold={self.hnsw_threshold} must be at least 1")
        if self.hnsw_m < 4 or self.ef_construction < 8 or self.ef_search < 8:
            raise ConfigError(
                f"HNSW parameters M={self.hnsw_m}, ef_construction={self.ef_construction}, "
                f"ef_search={self.ef_search} are too small; use M >= 4 and ef >= 8"
            )


@dataclass(frozen=True)
class IndexStamp:
    """What an index file claims to hold, checked against SQLite before it is trusted.

    Attributes:
        count: number of vectors.
        max_rowid: largest SQLite row id included (rows are only ever appended).
        epoch: SQLite's removal counter when the file was written; a removal makes older
            files unusable.
        kind: ``"flat"`` or ``"hnsw"``.
        dim: vector length.
        checksum: CRC-32 of the serialised index (0 until it is written).
    """

    count: int
    max_rowid: int
    epoch: int
    kind: str
    dim: int
    checksum: int = 0


def kind_for(count: int, params: IndexParams) -> str:
    """The index kind a memory of ``count`` vectors should use."""
    return "hnsw" if count > params.hnsw_threshold else "flat"


def new_index(dim: int, kind: str, params: IndexParams) -> IndexIDMap:
    """Return an empty FAISS index (inner product, ids from SQLite) of the given kind."""
    import faiss

    inner: faiss.Index
    if kind == "flat":
        inner = faiss.IndexFlatIP(dim)
    else:
        hnsw = faiss.IndexHNSWFlat(dim, params.hnsw_m, faiss.METRIC_INNER_PRODUCT)
        hnsw.hnsw.efConstruction = params.ef_construction
        hnsw.hnsw.efSearch = params.ef_search
        inner = hnsw
    # faiss's Python wrapper keeps a reference to ``inner``, so it outlives this frame.
    return faiss.IndexIDMap2(inner)


def build_index(ids: np.ndarray, vectors: np.ndarray, kind: str, params: IndexParams) -> IndexIDMap:
    """Build an index of ``kind`` over ``vectors`` (rows of norm 1) labelled by ``ids``."""
    index = new_index(vectors.shape[1], kind, params)
    if len(ids):
        index.add_with_ids(np.ascontiguousarray(vectors, dtype=np.float32), ids.astype(np.int64))
    return index


def set_ef_search(index: IndexIDMap, ef_search: int) -> None:
    """Set the HNSW query beam of ``index`` (no effect on an exact index)."""
    import faiss

    inner = faiss.downcast_index(index.index)
    if isinstance(inner, faiss.IndexHNSW):
        inner.hnsw.efSearch = ef_search


def index_kind(index: IndexIDMap) -> str:
    """``"hnsw"`` or ``"flat"``, read from the index itself."""
    import faiss

    return "hnsw" if isinstance(faiss.downcast_index(index.index), faiss.IndexHNSW) else "flat"


def save_index(path: Path, index: IndexIDMap, stamp: IndexStamp) -> IndexStamp:
    """Write ``index`` and its stamp to ``path`` atomically (temp file, fsync, rename).

    Returns:
        The stamp as written, with the payload's checksum.
    """
    import faiss

    payload = faiss.serialize_index(index)
    stamp = IndexStamp(**{**asdict(stamp), "checksum": zlib.crc32(payload.data)})
    header = json.dumps(asdict(stamp)).encode()
    tmp = path.with_name(leftovers.temp_name(TEMP_PREFIX, ".tmp"))
    try:
        with open(tmp, "wb") as f:
            f.write(struct.pack("<Q", len(header)))
            f.write(header)
            f.write(payload.data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return stamp


def load_index(path: Path, checksum: int | None = None) -> tuple[IndexIDMap, IndexStamp] | None:
    """Read an index file; ``None`` when it is missing, truncated, damaged or unreadable.

    A broken file is not an error: SQLite holds every vector, so the caller rebuilds.

    Args:
        path: the index file.
        checksum: the checksum SQLite recorded when the file was last written, if any; a file
            with another one is not the file this memory wrote last.
    """
    import faiss

    try:
        data = path.read_bytes()
        (length,) = struct.unpack_from("<Q", data, 0)
        stamp = IndexStamp(**json.loads(data[8 : 8 + length]))
        payload = memoryview(data)[8 + length :]
        if stamp.checksum != zlib.crc32(payload) or checksum not in (None, stamp.checksum):
            return None
        index = faiss.deserialize_index(np.frombuffer(data, dtype=np.uint8, offset=8 + length))
    except (OSError, ValueError, TypeError, struct.error, RuntimeError, RecursionError):
        return None
    if not isinstance(index, faiss.IndexIDMap):  # not a file this module wrote
        return None
    if index.ntotal != stamp.count or index.d != stamp.dim:
        return None
    return index, stamp


def scores_are_sound(scores: list[float]) -> bool:
    """Whether every score could be a cosine of unit vectors (else the vectors are damaged)."""
    return all(math.isfinite(s) and abs(s) <= 1.0 + SCORE_SLACK for s in scores)


class SyncedIndex:
    """An in-memory index kept level with SQLite, and its file.

    Args:
        path: the index file.
        dim: vector length.
        params: index parameters.
    """

    def __init__(self, path: Path, dim: int, params: IndexParams):
        import faiss  # noqa: F401 (loaded with the memory, not at its first search: ~40 ms)

        self.path = path
        self.dim = dim
        self.params = params
        self.index: IndexIDMap | None = None
        self.stamp: IndexStamp | None = None
        self.saved: IndexStamp | None = None
        """The stamp of the file on disk as this process last read or wrote it."""
        self.unsaved = 0
        self.distrust_file = False
        """Set when the index answered the impossible: the file holds the same damage."""

    def sync(
        self,
        state: tuple[int, int, int],
        fetch: Callable[[int], tuple[np.ndarray, np.ndarray]],
        checksum: int | None = None,
    ) -> bool:
        """Load, catch up or rebuild so the index holds exactly SQLite's rows.

        Args:
            state: SQLite's ``(count, largest id, removal epoch)``.
            fetch: returns ids and vectors of the rows with id above its argument.
            checksum: the file checksum SQLite recorded at the last save, if any; read only
                when the file is about to be loaded.

        Returns:
            ``True`` when the index was rebuilt (the caller should save it).
        """
        count, max_id, epoch = state
        if self.index is None and not self.distrust_file:
            loaded = load_index(self.path, checksum)
            if loaded is not None:
                self.index, self.stamp = loaded
                self.saved = self.stamp
                set_ef_search(self.index, self.params.ef_search)
        index, stamp = self.index, self.stamp
        kind = kind_for(count, self.params)
        if (
            index is not None
            and stamp is not None
            and (stamp.epoch, stamp.dim, stamp.kind) == (epoch, self.dim, kind)
            and stamp.max_rowid <= max_id
        ):
            if stamp.max_rowid < max_id:
                ids, vectors = fetch(stamp.max_rowid)
                index.add_with_ids(vectors, ids)
                self.unsaved += len(ids)
                self.stamp = IndexStamp(index.ntotal, max_id, epoch, kind, self.dim)
            if index.ntotal == count:
                return False
        ids, vectors = fetch(0)
        self.index = build_index(ids, vectors, kind, self.params)
        self.stamp = IndexStamp(count, max_id, epoch, kind, self.dim)
        self.unsaved = count
        return True

    def invalidate(self) -> None:
        """Forget the index (it answered the impossible): the next ``sync`` rebuilds it."""
        self.index, self.stamp, self.saved = None, None, None
        self.distrust_file = True

    def loaded(self) -> bool:
        """Whether an index is held (else the next ``sync`` reads the file or rebuilds)."""
        return self.index is not None

    def behind(self) -> bool:
        """Whether the file on disk lags the index held here."""
        if self.index is None or self.stamp is None:
            return False
        return self.saved is None or replace(self.saved, checksum=0) != replace(
            self.stamp, checksum=0
        )

    def search(self, vector: np.ndarray, k: int) -> list[tuple[int, float]]:
        """The ``k`` nearest row ids by inner product, with scores, best first."""
        if self.index is None or self.index.ntotal == 0 or k <= 0:
            return []
        import faiss

        # One query is too small to share: OpenMP threads only add wake-up latency, tens of
        # milliseconds on a busy machine or beside torch's own thread pool.
        threads = faiss.omp_get_max_threads()
        faiss.omp_set_num_threads(1)
        try:
            scores, ids = self.index.search(vector.reshape(1, -1).astype(np.float32), k)
        finally:
            faiss.omp_set_num_threads(threads)
        return [(int(i), float(s)) for i, s in zip(ids[0], scores[0], strict=True) if i >= 0]

    def save(self) -> int | None:
        """Write the file; the caller holds the memory's file lock.

        Returns:
            The checksum written (for SQLite to record), or None when there is no index.
        """
        if self.index is None or self.stamp is None:
            return None
        leftovers.remove_dead(self.path.parent, TEMP_PREFIX, ".tmp")
        self.saved = save_index(self.path, self.index, self.stamp)
        self.distrust_file = False
        self.unsaved = 0
        return self.saved.checksum
