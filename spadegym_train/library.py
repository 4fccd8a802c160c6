"""Where environments come from and go to: registry folders, read and written.

Reading: every ``<root>/<Name>-v<N>/env.py``, straight from the folders (the shipped library
is trusted and needs no manifest). Writing: accepted programs are added to the run's own
registry with ``spadegym.registry.Registry.add`` (their passing report is reused, so they are
not validated twice), or in the same folder layout where that class is not available.
The held-out evaluation slice is chosen by a hash of the id, so it never depends on the order
of the folder listing or on which other environments exist.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

SHIPPED_REGISTRY = Path(__file__).resolve().parent.parent / "registry"
"""The shipped library, next to the packages in a source checkout."""


@dataclass(frozen=True)
class LibraryEnv:
    """A registry environment: its id and program."""

    env_id: str
    source: str


def read_library(root: str | Path | None) -> list[LibraryEnv]:
    """Every environment in a registry folder, sorted by id."""
    root = Path(root) if root is not None else SHIPPED_REGISTRY
    found = []
    for program in sorted(root.glob("*/env.py")):
        found.append(LibraryEnv(program.parent.name, program.read_text(encoding="utf-8")))
    return found


def held_out(env_id: str, fraction: float) -> bool:
    """Whether ``env_id`` belongs to the evaluation slice (stable across runs and machines)."""
    digest = hashlib.sha256(env_id.encode("utf-8")).digest()
    return int.from_bytes(digest[:4], "big") / 2**32 < fraction


def split_library(envs: list[LibraryEnv], fraction: float) -> tuple[list[LibraryEnv],
                                                                    list[LibraryEnv]]:
    """``(train, eval)``: the held-out slice by ``held_out``, the rest for training."""
    train = [e for e in envs if not held_out(e.env_id, fraction)]
    evaluation = [e for e in envs if held_out(e.env_id, fraction)]
    return train, evaluation


def register(root: Path, program: str, report: Any, provenance: dict[str, Any]) -> str:
    """Add an accepted program to the run's registry; returns its folder name (the id).

    Args:
        root: the run's registry folder.
        program: the validated program text.
        report: its passing ``ValidationReport``.
        provenance: where it came from (iteration, skill, scripted or generated).
    """
    try:
        from spadegym.registry import Registry  # the shared registry, once it offers add()
    except ImportError:
        Registry = None  # noqa: N806
    if Registry is not None and hasattr(Registry, "add"):
        entry = Registry(root).add(program, report=report, provenance=provenance)
        return str(getattr(entry, "folder", None) or getattr(entry, "id", entry)).split("/")[-1]
    from spadegym.registry.ids import base_name, folder_name, free_name, parse_folder

    root.mkdir(parents=True, exist_ok=True)
    taken = [parsed[0] for p in root.iterdir() if (parsed := parse_folder(p.name))]
    folder = folder_name(free_name(base_name(report.class_name or "Env"), taken), 0)
    target = root / folder
    temp = root / f".tmp-{folder}"
    temp.mkdir()
    (temp / "env.py").write_text(program, encoding="utf-8")
    record = {"id": folder, "provenance": provenance, "validation": report.to_dict()}
    (temp / "report.json").write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")
    temp.rename(target)
    return folder
