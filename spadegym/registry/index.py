"""The index of a registry root: one small JSON file, so that registration reads no manifest.

``<root>/.index/index.json`` lists every valid entry (folder, sha256, max_turns, title, skill,
kind, players) and every folder that was skipped, with the reason. It carries a stamp of the
root (its mtime in nanoseconds and the number of names in it); an index whose stamp differs
from the root's is stale and is rebuilt from the manifests. Entries are added and removed by
renaming folders in the root, which changes the root's mtime, so every writer leaves a trace
the stamp sees; the index lives in a subfolder so that writing it leaves the root's mtime
alone. A hand edit inside an entry folder is not seen: run ``spadegym verify`` after one.

An index is checked when it is read, since it can be edited by hand while its stamp stays
fresh: every row must be a well-formed entry (an ``<Name>-v<N>`` folder, a sha256, an int
``max_turns`` in the contract's range, a known kind), must name a folder that exists, and every
folder of the root must have a row. An index that fails a check is not trusted: it is rebuilt
from the manifests, with a logged warning.

A root that cannot be written (an installed package) keeps its index in the user's cache
folder instead. This module imports no pydantic unless an index has to be rebuilt.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from spadegym import contract
from spadegym.registry import ids
from spadegym.registry.entry import read_entry
from spadegym.util import leftovers

if TYPE_CHECKING:
    from spadegym.registry.manifest import Manifest

INDEX_VERSION = 1
INDEX_DIR = ".index"
_TEMP = ".index-"  # temporary index files: .index-<pid>-<host>-<hex>.tmp
_SHA256 = re.compile(r"[0-9a-f]{64}")

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


def entry_from_manifest(manifest: Manifest) -> IndexEntry:
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
    return _scan(root)[0]


def _scan(root: Path) -> tuple[list[int], list[str]]:
    """The root's stamp and the names in it (the mtime is read first: see ``build_index``)."""
    mtime = os.stat(root).st_mtime_ns
    names = os.listdir(root)
    return [mtime, len(names)], names


def is_entry_name(name: str) -> bool:
    """Whether a name in a root can be an entry (temporary and index folders start with '.')."""
    return not name.startswith((".", "_"))


def _cache_path(root: Path) -> Path:
    cache = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    key = hashlib.sha256(os.path.realpath(root).encode("utf-8", "surrogatepass")).hexdigest()
    return Path(cache) / "spadegym" / "registry-index" / f"{key[:24]}.json"


def check_row(row: Any) -> IndexEntry | str:
    """The entry an index row describes, or why the row is not one."""
    if not isinstance(row, list) or len(row) != len(IndexEntry._fields):
        return f"a row must be a list of {len(IndexEntry._fields)} values"
    entry = IndexEntry(*row)
    folder, sha, turns, title, skill, kind, players = entry
    if not isinstance(folder, str) or ids.parse_folder(folder) is None:
        return f"folder {folder!r} is not <Name>-v<N>"
    problems = [
        (isinstance(sha, str) and _SHA256.fullmatch(sha) is not None, "sha256"),
        (
            type(turns) is int and contract.MIN_TURNS <= turns <= contract.MAX_TURNS,
            f"max_turns (an int in {contract.MIN_TURNS}..{contract.MAX_TURNS})",
        ),
        (isinstance(title, str), "title"),
        (skill is None or isinstance(skill, str), "skill"),
        (kind in contract.KINDS, "kind"),
        (type(players) is int and players in (1, 2), "num_players"),
    ]
    bad = [name for ok, name in problems if not ok]
    return f"{folder}: bad {', '.join(bad)}" if bad else entry


def _read(path: Path, root: Path, stamp: list[int], names: list[str]) -> Index | None:
    """The index in ``path`` if it is fresh and every check passes, else None."""
    try:
        with open(path, encoding="utf-8") as handle:
            data = json.load(handle)
        if (
            not isinstance(data, dict)
            or data.get("version") != INDEX_VERSION
            or data.get("stamp") != stamp
            or data.get("root") != os.path.realpath(root)
        ):
            return None
        rows, skipped = data["entries"], data["skipped"]
        if not isinstance(rows, list) or not isinstance(skipped, dict):
            raise ValueError("entries must be a list and skipped an object")
    except (OSError, ValueError, TypeError, KeyError, RecursionError, MemoryError):
        return None
    entries: dict[str, IndexEntry] = {}
    for row in rows:
        entry = check_row(row)
        if isinstance(entry, str):
            _distrust(path, f"it has a bad row ({entry})")
            return None
        entries[entry.folder] = entry
    if not all(isinstance(k, str) and isinstance(v, str) for k, v in skipped.items()):
        _distrust(path, "its skipped folders are not names with reasons")
        return None
    listed = set(entries) | set(skipped)
    present = {name for name in names if is_entry_name(name)}
    gone = listed - present
    if gone:
        _distrust(path, f"it lists {min(gone)!r}, which is not in the root")
        return None
    missing = [name for name in present - listed if (root / name).is_dir()]
    if missing:
        _distrust(path, f"it has no row for the folder {min(missing)!r}")
        return None
    return Index(root, stamp, entries, dict(skipped))


def _distrust(path: Path, why: str) -> None:
    log.warning("registry index %s is not trusted: %s; rebuilding it from the manifests", path, why)


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
    stamp, names = _scan(root)
    for path in (root / INDEX_DIR / "index.json", _cache_path(root)):
        index = _read(path, root, stamp, names)
        if index is not None:
            return index
    index = build_index(root, stamp)
    if save:
        save_index(index)
    return index


def build_index(root: Path, stamp: list[int] | None = None) -> Index:
    """Scan every folder of ``root`` and read its manifest.

    The stamp is taken before the scan, so a change made during it makes the index stale
    rather than silently missing. One folder never stops the scan: whatever goes wrong while
    reading it is the reason it is skipped.
    """
    root = Path(root)
    if stamp is None:
        _make_index_dir(root)
        stamp = root_stamp(root)
    index = Index(root, stamp)
    for name in sorted(os.listdir(root)):
        if not is_entry_name(name) or not (root / name).is_dir():
            continue
        try:
            manifest, problem = read_entry(root / name)
        except Exception as exc:  # an unreadable folder is one skipped entry, not a lost root
            manifest, problem = None, f"it cannot be read ({type(exc).__name__}: {exc})."
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
            leftovers.remove_dead(path.parent, _TEMP, ".tmp")  # of writers killed mid-write
            tmp = path.with_name(leftovers.temp_name(_TEMP, ".tmp"))  # open() honours the umask
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
