"""Reading JSON-lines files whose every line must be an object (corpora, recorded replies)."""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path

from spadegym.errors import ConfigError


def objects(lines: Iterable[str], path: Path | str, kind: str) -> list[tuple[int, dict]]:
    """``(line number, object)`` for every non-blank line, numbered from 1.

    Args:
        lines: the file's lines.
        path: the file, to name in messages.
        kind: what the file is, for messages ("a corpus file", "a replay file").

    Raises:
        ConfigError: naming ``path:line`` when a line is not a JSON object.
    """
    found = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except ValueError as exc:
            raise ConfigError(
                f"{path}:{number} is not JSON ({exc}); {kind} holds one JSON object a line."
            ) from exc
        if not isinstance(record, dict):
            raise ConfigError(f"{path}:{number} is not a JSON object.")
        found.append((number, record))
    return found
