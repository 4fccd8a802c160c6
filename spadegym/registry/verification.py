"""Verifying a registry root: every folder checked, failing ones re-validated with ``fix``.

``verify_root`` checks that each folder holds a valid manifest and a program matching its
sha256, re-validates failing programs and rewrites their manifests when asked, removes the
temporary files of writers killed mid-write, and rebuilds the root's index.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from spadegym.registry import ids
from spadegym.registry.entry import (
    clean_folder_leftovers,
    clean_leftovers,
    load_program,
    locked,
    rewrite_manifest,
    write_file,
)
from spadegym.registry.errors import RegistryError
from spadegym.registry.index import build_index, save_index
from spadegym.registry.manifest import Provenance, build_manifest, parse_manifest


@dataclass(frozen=True)
class VerifyResult:
    """What ``Registry.verify`` found in one folder."""

    id: str
    path: Path
    ok: bool
    problem: str = ""
    fixed: bool = False


def verify_root(
    root: Path, *, fix: bool = False, config: Any = None, workers: int = 2
) -> list[VerifyResult]:
    """Check every folder of ``root``; see ``Registry.verify``.

    Raises:
        RegistryError: ``root`` is not a folder.
    """
    root = Path(root)
    if not root.is_dir():
        raise RegistryError(f"{root} is not a folder; nothing to verify.")
    names = sorted(
        n for n in os.listdir(root) if not n.startswith((".", "_")) and (root / n).is_dir()
    )
    results: dict[str, VerifyResult] = {}
    broken: list[str] = []
    for name in names:
        path = root / name
        try:
            load_program(path)
            results[name] = VerifyResult(ids.gym_id(name), path, True)
        except RegistryError as exc:
            results[name] = VerifyResult(ids.gym_id(name), path, False, str(exc))
            if ids.parse_folder(name) is not None and (path / "env.py").is_file():
                broken.append(name)
    if fix and broken:
        results.update(_fix(root, broken, config, workers))
    with locked(root):
        # Temporary files of writers killed mid-write: safe to remove under the lock.
        clean_leftovers(root)
        for name in names:
            clean_folder_leftovers(root / name)
        save_index(build_index(root))
    return [results[name] for name in names]


def _fix(root: Path, names: Sequence[str], config: Any, workers: int) -> dict[str, VerifyResult]:
    from spadegym.validation import validate_many

    texts = {name: (root / name / "env.py").read_bytes() for name in names}
    reports = validate_many(
        [t.decode("utf-8", "replace") for t in texts.values()], config, workers=workers
    )
    results = {}
    with locked(root):
        for name, report in zip(names, reports):
            path = root / name
            if not report.ok:
                results[name] = VerifyResult(
                    ids.gym_id(name), path, False, f"validation failed:\n{report.feedback()}"
                )
                continue
            if (path / "env.py").read_bytes() != texts[name]:
                results[name] = VerifyResult(
                    ids.gym_id(name), path, False, "env.py changed during validation; run again."
                )
                continue
            try:
                old = parse_manifest((path / "manifest.json").read_bytes())
                created, provenance = old.created, old.provenance
            except (OSError, RegistryError):
                created, provenance = None, Provenance(origin="verify")
            program = report.program
            assert program is not None  # a passed report holds its program
            if program.encode("utf-8") != texts[name]:
                # validation normalised the text (line endings, blank edges): store what ran
                write_file(path / ".env.py.tmp", program.encode("utf-8"))
                os.replace(path / ".env.py.tmp", path / "env.py")
            manifest = build_manifest(
                ids.gym_id(name), program, report, provenance=provenance, created=created
            )
            rewrite_manifest(path, manifest.to_json())
            results[name] = VerifyResult(ids.gym_id(name), path, True, fixed=True)
    return results
