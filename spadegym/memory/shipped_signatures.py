"""Behavioural signatures of the shipped library, computed ahead and shipped with the package.

Seeding a memory with the library's 76 programs would otherwise play each one in a sandbox
(several seconds in all). The file maps each program's sha256 to its signature, so a program
that changed, or a file written by another Python (whose ``random`` could draw differently),
is simply not found and gets played as any other program.

Regenerate after changing a shipped program: ``python -m spadegym.memory.shipped_signatures``.
"""

from __future__ import annotations

import functools
import gzip
import hashlib
import json
import sys
from pathlib import Path
from typing import Any

from spadegym.memory.signature import SIGNATURE_VERSION, Signature, compute_signature

LIBRARY_SIGNATURES = Path(__file__).with_name("data") / "library_signatures.json.gz"


def _python() -> str:
    return f"{sys.version_info[0]}.{sys.version_info[1]}"


@functools.lru_cache(maxsize=1)
def _shipped() -> dict[str, dict[str, Any]]:
    try:
        data = json.loads(gzip.decompress(LIBRARY_SIGNATURES.read_bytes()))
    except (OSError, ValueError):
        return {}
    if data.get("python") != _python() or data.get("version") != SIGNATURE_VERSION:
        return {}
    signatures: dict[str, dict[str, Any]] = data.get("signatures", {})
    return signatures


def shipped_signature(source_sha256: str) -> Signature | None:
    """The precomputed signature of a shipped program, by the sha256 of its source."""
    value = _shipped().get(source_sha256)
    return None if value is None else Signature.from_json(value)


def build_library_signatures(path: Path = LIBRARY_SIGNATURES) -> int:
    """Play every shipped program in a sandbox worker of its own and write their signatures.

    Returns:
        How many signatures were written.
    """
    from spadegym.registry import Registry, shipped_root
    from spadegym.sandbox import fresh_worker
    from spadegym.validation import ValidationConfig

    root = shipped_root()
    if root is None:
        raise FileNotFoundError("the shipped library was not found; run from a source checkout")
    registry = Registry(root)
    signatures = {}
    for entry in registry.list():
        source = registry.get(entry.id).source()
        sha = hashlib.sha256(source.encode("utf-8")).hexdigest()
        with fresh_worker(ValidationConfig().sandbox) as worker:  # a worker holds one program
            signatures[sha] = compute_signature(worker, source, entry.id).to_json()
    payload = {"python": _python(), "version": SIGNATURE_VERSION, "signatures": signatures}
    path.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(payload, sort_keys=True, separators=(",", ":")).encode()
    path.write_bytes(gzip.compress(text, 9, mtime=0))
    _shipped.cache_clear()
    return len(signatures)


if __name__ == "__main__":
    print(f"{build_library_signatures()} signatures written to {LIBRARY_SIGNATURES}")
