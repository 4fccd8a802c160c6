"""The index of a registry root: one small JSON file, so that registration reads no manifest.

``<root>/.index/index.json`` lists every valid entry (folder, sha256, max_turns, title, skill,
kind, players) and every folder that was skipped, with the reason. It carries a stamp of the
root (its mtime in nanoseconds and the number of names in it); an index whose stamp differs
from the root's is stale and is rebuilt from the manifests. Entries are added and removed by
renaming folders in the root, which changes the root's mtime, so every writer leaves a trace
the stamp sees; the index lives in a subfolder so that writing it leaves the root's mtime
alone. A hand edit inside an entry folder is not seen: run ``spadegym verify`` after one.

A root that cannot be written (an installed package) keeps its index in the user's cache
folder instead. This module imports no pydantic unless an index has to be rebuilt.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

from spadegym.registry import ids

INDEX_VERSION = 1
INDEX_DIR = ".index"
LOCK_NAME = ".lock"

log = logging.getLogger("spadegym.registry")


class IndexEntry(NamedTuple):
    """What registration and listing need to know of one environment.

    A named tuple: an index of 10,000 entries is read at every ``import spadegym``, and tuples
    are the cheapest records to build.
    """

    folder: str
    sha256: str
    max_turns: int
    title: str
    skill: str | None
    kind: str
    num_players: int

    @property
    def id(self) -> str:
        """The Gymnasium id, ``spade/<folder>``."""
        return ids.gym_id(self.folder)


@dataclass
class Index:
    """The entries of one root, and the folders skipped with the reason for each."""

    root: Path
    stamp: list[int]
    entries: dict[str, IndexEntry] = field(default_factory=dict)
    skipped: dict[str, str] = field(default_factory=dict)

    def to_json(self) -> str:
        """The index file's text."""
        rows = [
            [e.folder, e.sha256, e.max_turns, e.title, e.skill, e.kind, e.num_players]
            for e in self.entries.values()
        ]
        return json.dumps(
            {
                "version": INDEX_VERSION,
                "root": os.path.realpath(self.root),
                "stamp": self.stamp,
                "entries": rows,
                "skipped": self.skipped,
            },
            ensure_ascii=False,
        )


def entry_from_manifest(manifest: object) -> IndexEntry:
    """The index entry of a ``Manifest``."""
    return IndexEntry(
        manifest.folder,
        manifest.sha256,
        manifest.max_turns,
        manifest.title,
        manifest.skill,
        manifest.kind,
        manifest.num_players,
    )


def root_stamp(root: Path) -> list[int]:
    """The root's mtime (ns) and the number of names in it: what every write changes."""
    return [os.stat(root).st_mtime_ns, len(os.listdir(root))]


def is_entry_name(name: str) -> bool:
    """Whether a name in a root can be an entry (temporary and index folders start with '.')."""
    return not name.startswith((".", "_"))


def _cache_path(root: Path) -> Path:
    cache = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    key = hashlib.sha256(os.path.realpath(root).encode("utf-8", "surrogatepass")).hexdigest()
    return Path(cache) / "spadegym" / "registry-index" / f"{key[:24]}.json"


def _read(path: Path, root: Path, stamp: list[int]) -> Index | None:
    try:
        with open(path, encoding="utf-8") as handle:
            data = json.load(handle)
        if (
            data.get("version") != INDEX_VERSION
            or data.get("stamp") != stamp
            or data.get("root") != os.path.realpath(root)
        ):
            return None
        entries = {row[0]: IndexEntry(*row) for row in data["entries"]}
        return Index(root, stamp, entries, dict(data["skipped"]))
    except (OSError, ValueError, TypeError, KeyError, AttributeError):
        return None


def _make_index_dir(root: Path) -> None:
    try:  # before any stamp is taken: creating the folder changes the root's mtime
        (root / INDEX_DIR).mkdir(exist_ok=True)
    except OSError:
        pass


def load_index(root: Path, *, save: bool = True) -> Index:
    """The index of ``root``: read if fresh, else rebuilt from the manifests (and saved).

    Args:
        root: an existing registry root.
        save: write a rebuilt index back (beside the folders, or in the user's cache).
    """
    root = Path(root)
    if save:
        _make_index_dir(root)
    stamp = root_stamp(root)
    for path in (root / INDEX_DIR / "index.json", _cache_path(root)):
        index = _read(path, root, stamp)
        if index is not None:
            return index
    index = build_index(root, stamp)
    if save:
        save_index(index)
    return index


def build_index(root: Path, stamp: list[int] | None = None) -> Index:
    """Scan every folder of ``root`` and read its manifest.

    The stamp is taken before the scan, so a change made during it makes the index stale
    rather than silently missing.
    """
    from spadegym.registry.entry import read_entry

    root = Path(root)
    if stamp is None:
        _make_index_dir(root)
        stamp = root_stamp(root)
    index = Index(root, stamp)
    for name in sorted(os.listdir(root)):
        if not is_entry_name(name) or not (root / name).is_dir():
            continue
        manifest, problem = read_entry(root / name)
        if manifest is None:
            index.skipped[name] = problem
        else:
            index.entries[name] = entry_from_manifest(manifest)
    return index


def save_index(index: Index) -> Path | None:
    """Write ``index`` atomically beside its folders, else in the cache; the path, or None."""
    text = index.to_json()
    for path in (index.root / INDEX_DIR / "index.json", _cache_path(index.root)):
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_name(f".index-{uuid.uuid4().hex}.tmp")  # open() honours the umask
            try:
                with open(tmp, "w", encoding="utf-8") as handle:
                    handle.write(text)
                os.replace(tmp, path)
            except BaseException:
                tmp.unlink(missing_ok=True)
                raise
            return path
        except OSError as exc:
            log.debug("could not write the registry index to %s: %s", path, exc)
    return None
