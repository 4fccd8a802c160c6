"""The run log of ``generate``: one JSONL line per event, on disk before the call returns.

Every reply is written the moment it arrives, so a crash or Ctrl-C loses nothing. Reading a
log back gives, per candidate slot, the replies already received and the final verdict, which
is what lets a run resume.

Writing never raises: the log is written from the candidate threads, and an error there (a
full disk) must not unwind them into ``generate``'s exit. The first failure is kept in
``failed`` and passed to ``on_failure`` (``generate`` stops the run, saying why), and later
records are dropped; a line cut short is skipped when the log is read back.
"""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from spadegym.errors import ConfigError

__all__ = ["Prior", "RunLog"]


@dataclass
class Prior:
    """What the log of an earlier run holds about one slot."""

    replies: dict[str, str] = field(default_factory=dict)
    final: dict[str, Any] | None = None


class RunLog:
    """An append-only JSONL log, one line per event, flushed and synced as it is written.

    Args:
        path: the log file (created with its folder).
        key: the settings' fingerprint; a log written under another key is refused.
        settings: written on the first line, for the record.

    Raises:
        ConfigError: the log belongs to a run with other settings.
    """

    def __init__(
        self,
        path: Path,
        key: str,
        settings: dict[str, Any],
        on_failure: Callable[[OSError], None] | None = None,
    ):
        self.path = path
        self.key = key
        self.prior: dict[int, Prior] = {}
        self.failed: OSError | None = None
        """The error that stopped the writes (a full disk), if one did."""
        self.on_failure = on_failure
        self._lock = threading.Lock()
        path.parent.mkdir(parents=True, exist_ok=True)
        fresh = not path.exists() or path.stat().st_size == 0
        if not fresh:
            self._read()
        self._handle = path.open("a", encoding="utf-8")
        if not fresh and not path.read_bytes().endswith(b"\n"):
            self._handle.write("\n")  # a line cut short by a crash stays on its own
        self.write({"event": "run", "key": key, "settings": settings, "time": time.time()})

    def _read(self) -> None:
        for number, line in enumerate(self.path.read_text(encoding="utf-8").splitlines(), 1):
            try:
                record = json.loads(line)
            except ValueError:
                continue  # a line cut short by a crash
            if not isinstance(record, dict):
                continue
            event = record.get("event")
            if event == "run" and record.get("key") != self.key:
                raise ConfigError(
                    f"the log {self.path} (line {number}) was written by a generate run with "
                    "other settings (seed, skills, kinds, difficulty, corpus or model); resuming "
                    "it would mix two runs. Use the same settings, or another log file."
                )
            index = record.get("candidate")
            if not isinstance(index, int):
                continue
            prior = self.prior.setdefault(index, Prior())
            if event == "reply" and isinstance(record.get("reply"), str):
                prior.replies[str(record.get("id"))] = record["reply"]
            elif event == "candidate":
                prior.final = record

    def write(self, record: dict[str, Any]) -> bool:
        """Append one record and push it to disk before returning.

        Returns:
            False when it could not be written (see ``failed``); never raises ``OSError``.
        """
        line = json.dumps(record, ensure_ascii=False) + "\n"
        with self._lock:
            if self.failed is not None:
                return False
            try:
                self._handle.write(line)
                self._handle.flush()
                os.fsync(self._handle.fileno())
                return True
            except OSError as exc:
                self.failed = exc
        if self.on_failure is not None:
            self.on_failure(self.failed)
        return False

    def close(self) -> None:
        """Close the file (an error flushing it is kept in ``failed``, not raised)."""
        with self._lock:
            try:
                self._handle.close()
            except OSError as exc:
                self.failed = self.failed or exc
