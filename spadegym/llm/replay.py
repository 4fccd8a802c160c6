"""Recorded replies: ``RecordingChat`` writes every exchange down, ``ReplayChat`` plays them back.

A replay file is JSONL. Two kinds of line are understood:

- a recorded exchange, as ``RecordingChat`` writes it:
  ``{"messages": [...], "replies": ["...", ...], "model": "..."}``. It answers exactly that
  conversation again (matched by a hash of the messages), once per recording.
- a hand-written reply: ``{"reply": "...", "purpose": "design", "match": "...", "id": "..."}``.
  ``purpose`` is what the request is for: ``"design"`` (a first designer turn, the default),
  ``"repair"`` (a turn after validation failed; the request holds the earlier assistant reply)
  or ``"hint"`` (the hint-writer). ``match``, optional, is a substring that must occur in the
  request: in the last assistant message for a repair (the reply being repaired), otherwise in
  the last user message. Replies with a ``match`` are tried first; the others are served in
  file order. Each line is served once (``cycle=True`` starts the design replies over).

Lines with an ``"error"`` field (failed calls that ``RecordingChat`` noted) are skipped.
"""

from __future__ import annotations

import hashlib
import json
import threading
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from spadegym.errors import ConfigError
from spadegym.llm.base import ChatLLM, LLMError, Message, SyncChat, check_messages
from spadegym.util import jsonl

__all__ = ["PURPOSES", "RecordingChat", "ReplayChat", "messages_key", "request_purpose"]

PURPOSES = ("design", "repair", "hint")
"""What a designer request is for."""


def messages_key(messages: Sequence[Message]) -> str:
    """A stable hash of a conversation (roles and contents), to find its recorded replies."""
    canonical = json.dumps([[m["role"], m["content"]] for m in messages], ensure_ascii=False)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def request_purpose(messages: Sequence[Message]) -> str:
    """``"repair"``, ``"hint"`` or ``"design"``: what a designer request asks for."""
    from spadegym.designer.prompts import HINT_MARKER

    if any(m["role"] == "assistant" for m in messages):
        return "repair"
    system = next((m["content"] for m in messages if m["role"] == "system"), "")
    return "hint" if HINT_MARKER in system else "design"


@dataclass
class _Entry:
    line: int
    purpose: str
    match: str | None
    replies: list[str]
    key: str | None
    used: bool = False


class ReplayChat(SyncChat):
    """Answer requests from a replay file, without any model.

    Args:
        path: the JSONL file (see the module docstring for its lines).
        cycle: when the design replies run out, serve them again from the first (for demos
            asking for more candidates than the file holds). Off by default, so that a test
            notices a request it did not plan for.
        name: recorded in provenance; defaults to ``replay:<file name>``.

    Raises:
        ConfigError: the file is missing, or a line is not a JSON object of a known kind.
    """

    def __init__(self, path: str | Path, *, cycle: bool = False, name: str | None = None):
        self.path = Path(path)
        self.cycle = cycle
        self.name = name or f"replay:{self.path.name}"
        self._entries = _read_entries(self.path)
        self._lock = threading.Lock()
        self.served = 0
        """Replies served so far."""

    def __len__(self) -> int:
        return len(self._entries)

    def skip_served(self, replies: Iterable[str]) -> int:
        """Mark the lines whose replies an earlier run was already served as used.

        A resumed ``generate`` passes the replies its log holds, so the replay continues where
        the earlier run stopped instead of serving the first replies again.

        Returns:
            How many lines were marked.
        """
        marked = 0
        with self._lock:
            for reply in replies:
                entry = next((e for e in self._entries if not e.used and reply in e.replies), None)
                if entry is not None:
                    entry.used = True
                    marked += 1
        return marked

    def complete(self, messages: Sequence[Message], n: int = 1) -> list[str]:
        """Return the recorded replies for this request.

        Raises:
            LLMError: no recorded reply is left for a request of this purpose.
        """
        sent = check_messages(messages, n)
        purpose = request_purpose(sent)
        key = messages_key(sent)
        last_role = "assistant" if purpose == "repair" else "user"
        text = next((m["content"] for m in reversed(sent) if m["role"] == last_role), "")
        replies: list[str] = []
        with self._lock:
            while len(replies) < n:
                entry = self._pick(purpose, key, text)
                if entry is None:
                    raise LLMError(
                        f"{self.name}: no recorded {purpose} reply is left for this request "
                        f"({self.served} served from {len(self._entries)} lines). Record more "
                        "replies, or pass cycle=True to reuse the design replies."
                    )
                entry.used = True
                replies += entry.replies
            self.served += len(replies)
        return replies[:n]

    def _pick(self, purpose: str, key: str, text: str) -> _Entry | None:
        free = [e for e in self._entries if not e.used]
        for entry in free:
            if entry.key == key:
                return entry
        mine = [e for e in free if e.key is None and e.purpose == purpose]
        for entry in mine:
            if entry.match is not None and entry.match in text:
                return entry
        for entry in mine:
            if entry.match is None:
                return entry
        if self.cycle and purpose == "design":
            again = [
                e
                for e in self._entries
                if e.key is None and e.purpose == "design" and e.match is None
            ]
            if again:
                for entry in again:
                    entry.used = False
                return again[0]
        return None


def _read_entries(path: Path) -> list[_Entry]:
    if path.exists() and not (path.is_file() or path.is_dir()):
        # A FIFO or a device (/dev/zero): reading one can block, or never end.
        raise ConfigError(
            f"the replay file {path} is not a regular file (a FIFO, socket or device); give a "
            "JSONL file of replies (see spadegym.llm.replay)."
        )
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise ConfigError(
            f"cannot read the replay file {path}: {exc}. Record one with "
            "RecordingChat, or write one (see spadegym.llm.replay)."
        ) from exc
    except UnicodeDecodeError as exc:
        raise ConfigError(
            f"the replay file {path} is not UTF-8 text (byte {exc.start}); a replay file is "
            "JSONL, one reply record a line (see spadegym.llm.replay)."
        ) from None
    entries = [
        _entry(record, path, number)
        for number, record in jsonl.objects(lines, path, "a replay file")
        if "error" not in record
    ]
    if not entries:
        raise ConfigError(f"the replay file {path} holds no replies.")
    return entries


def _entry(record: dict[str, Any], path: Path, number: int) -> _Entry:
    where = f"{path}:{number}"
    if "messages" in record:
        replies = record.get("replies")
        if (
            not isinstance(replies, list)
            or not all(isinstance(r, str) for r in replies)
            or not replies
        ):
            raise ConfigError(
                f'{where}: a recorded exchange needs a non-empty "replies" list of strings.'
            )
        messages = check_messages(record["messages"], 1)
        return _Entry(number, request_purpose(messages), None, replies, messages_key(messages))
    reply = record.get("reply")
    purpose = record.get("purpose", "design")
    match = record.get("match")
    if not isinstance(reply, str):
        raise ConfigError(
            f'{where}: a hand-written line needs a "reply" string (or '
            '"messages" and "replies" for a recorded exchange).'
        )
    if purpose not in PURPOSES:
        raise ConfigError(f"{where}: purpose {purpose!r} is not one of {', '.join(PURPOSES)}.")
    if match is not None and (not isinstance(match, str) or not match):
        raise ConfigError(f"{where}: match must be a non-empty string.")
    return _Entry(number, purpose, match, [reply], None)


class RecordingChat:
    """Wrap any backend and append every exchange to a JSONL file, as it happens.

    The file can be replayed with ``ReplayChat``. Failed calls are written too (with an
    ``"error"`` field) and raised again.

    Args:
        inner: the backend that answers.
        path: the JSONL file to append to (created with its folder).
    """

    def __init__(self, inner: ChatLLM, path: str | Path):
        self.inner = inner
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.name = inner.name
        self._lock = threading.Lock()

    def complete(self, messages: Sequence[Message], n: int = 1) -> list[str]:
        """Ask ``inner`` and record the exchange."""
        started = time.perf_counter()
        try:
            replies = self.inner.complete(messages, n)
        except Exception as exc:
            self._write(messages, None, started, exc)
            raise
        self._write(messages, replies, started, None)
        return replies

    async def acomplete(self, messages: Sequence[Message], n: int = 1) -> list[str]:
        """Ask ``inner`` asynchronously and record the exchange."""
        started = time.perf_counter()
        try:
            replies = await self.inner.acomplete(messages, n)
        except Exception as exc:
            self._write(messages, None, started, exc)
            raise
        self._write(messages, replies, started, None)
        return replies

    def _write(
        self,
        messages: Sequence[Message],
        replies: list[str] | None,
        started: float,
        error: Exception | None,
    ) -> None:
        record: dict[str, Any] = {
            "model": self.name,
            "time": time.time(),
            "seconds": round(time.perf_counter() - started, 3),
            "messages": [dict(m) for m in messages],
        }
        if error is None:
            record["replies"] = replies
        else:
            record["error"] = f"{type(error).__name__}: {error}"
        line = json.dumps(record, ensure_ascii=False) + "\n"
        with self._lock, self.path.open("a", encoding="utf-8") as handle:
            handle.write(line)
