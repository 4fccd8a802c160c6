"""Importing a bundle, all or none: every item is checked before any is written.

The checks, cheapest first: the bundle's format, sizes, ids and sha256s (``read_bundle``); each
program's validation; copies within the bundle (equal normalised code); and, with a memory,
each program's novelty against the memory. Only then are the environments written, under the
memory's lock so that no other writer comes between; should a write still fail (a full disk),
the environments this import added are removed again before the error is raised.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import TYPE_CHECKING, Any

from spadegym.registry.admission import Admitted, duplicate_error
from spadegym.registry.bundle import BundleItem, read_bundle
from spadegym.registry.errors import RegistryError, RejectedProgramError

if TYPE_CHECKING:
    from spadegym.memory.interface import MemoryLike

log = logging.getLogger("spadegym.registry")


def import_bundle(
    registry: Any, path: Path, config: Any = None, memory: MemoryLike | None = None
) -> list[str]:
    """Check every environment of the bundle at ``path``, then add them all to ``registry``.

    ``registry`` is a ``Registry`` (``admit``, ``remove``, ``id_of``; not imported here, since
    ``Registry.import_`` imports this module).

    Returns:
        The ids the environments have in ``registry``, in the bundle's order.

    Raises:
        RegistryError: the bundle is malformed, or holds one game twice.
        RejectedProgramError: a program fails validation.
        DuplicateEnvironmentError: the memory holds one of the games already.
    """
    from spadegym.memory.fingerprint import summarize
    from spadegym.validation import validate_many

    items = read_bundle(path)
    reports = validate_many([item.program for item in items], config)
    for item, report in zip(items, reports, strict=True):
        if not report.ok:
            raise RejectedProgramError(
                f"{path}: {item.manifest.id} failed validation, so nothing was "
                f"imported:\n{report.feedback()}",
                report,
            )
    first: dict[str, str] = {}
    for item, report in zip(items, reports, strict=True):
        key = summarize(report.program).fingerprint
        if key in first:
            raise RegistryError(
                f"{path}: {item.manifest.id} is a copy of {first[key]} in the same bundle; "
                "nothing was imported. Export each game once."
            )
        first[key] = item.manifest.id
    if memory is None:
        return _add_all(registry, items, reports, None)
    for item, report in zip(items, reports, strict=True):
        if registry.id_of(report.program) is not None:
            continue  # registered already: its id comes back and nothing is written
        assert report.program is not None  # every report here passed, so it holds its program
        with memory.sandbox() as sandbox:
            verdict = memory.check_novelty(
                report.program,
                first_observation=report.properties.first_observation,
                sandbox=sandbox,
            )
        if not verdict.novel:
            error = duplicate_error(report.class_name, verdict)
            raise type(error)(
                f"{path}: {item.manifest.id}: {error} Nothing was imported.",
                error.duplicate_of,
                verdict,
            )
    with memory.locked():
        return _add_all(registry, items, reports, memory)


def _add_all(
    registry: Any,
    items: list[BundleItem],
    reports: list[Any],
    memory: MemoryLike | None,
) -> list[str]:
    """Add checked items; on any failure remove the ones added here, then re-raise."""
    added: list[Admitted] = []
    try:
        for item, report in zip(items, reports, strict=True):
            provenance = {**item.manifest.provenance.model_dump(), "origin": "import"}
            added.append(
                registry.admit(
                    item.program, report, provenance, memory=memory, preferred_id=item.manifest.id
                )
            )
    except BaseException:
        for done in reversed(added):
            if done.new:
                try:
                    registry.remove(done.env_id, memory=memory)
                except Exception as exc:  # the first error is the one to report
                    log.warning(
                        "could not take back %s after a failed import: %s", done.env_id, exc
                    )
        raise
    return [done.env_id for done in added]
