"""What ``spadegym eval`` shows while a model plays: episodes begun and replies, on stderr.

``evaluate`` prints a line per finished environment; a slow local model can take many minutes
per environment, so ``ReplyProgress`` wraps the chat backend and counts, as they happen, the
episodes begun (a request that holds no earlier reply of the model is an episode's first turn)
and the model's replies. On a terminal one line is rewritten in place; otherwise a line is
written at the first reply and then at most every ``interval`` seconds. ``evaluate`` calls
``episode_done`` as each episode ends (``on_episode``), which counts it as finished.
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any, TextIO

from spadegym.llm.base import Message

__all__ = ["ReplyProgress"]


class ReplyProgress:
    """A chat backend that reports each reply (see the module).

    Args:
        llm: the backend (``complete(messages, n)``).
        episodes: episodes the run will play, for the counter (``None``: not known).
        stream: where the line goes (default stderr).
        interval: seconds between lines when ``stream`` is not a terminal.
        clock: the time source (tests pass a fake one).
    """

    def __init__(
        self,
        llm: Any,
        episodes: int | None,
        *,
        stream: TextIO | None = None,
        interval: float = 10.0,
        clock: Callable[[], float] = time.perf_counter,
    ):
        self.llm = llm
        self.name = getattr(llm, "name", type(llm).__name__)
        self.episodes = episodes
        self.stream = stream or sys.stderr
        self.tty = bool(getattr(self.stream, "isatty", lambda: False)())
        self.interval = interval
        self.clock = clock
        self.started = clock()
        self.last: float | None = None
        self.begun = 0
        self.finished = 0
        self.replies = 0
        self._lock = threading.Lock()
        self._shown = False

    def __getattr__(self, name: str) -> Any:  # everything else is the backend's
        return getattr(self.llm, name)

    def complete(self, messages: Sequence[Message], n: int = 1) -> list[str]:
        """The backend's replies; the counter moves when they arrive."""
        first = not any(m.get("role") == "assistant" for m in messages)
        with self._lock:
            self.begun += first
        replies = self.llm.complete(messages, n)
        with self._lock:
            self.replies += len(replies)
            self._show()
        return replies

    def episode_done(self, episode: Any = None) -> None:
        """Count one episode as finished (``evaluate``'s ``on_episode``)."""
        with self._lock:
            self.finished += 1
            self._show(force=True)

    def line(self) -> str:
        """The counter as text."""
        seconds = int(self.clock() - self.started)
        total = "" if self.episodes is None else f"/{self.episodes}"
        return (
            f"eval: episodes finished {self.finished}{total} (begun {self.begun}), model "
            f"replies {self.replies}, {seconds // 60}m{seconds % 60:02d}s"
        )

    def _show(self, force: bool = False) -> None:
        now = self.clock()
        if self.tty:
            self.stream.write("\r" + self.line())
            self._shown = True
        elif force or self.last is None or now - self.last >= self.interval:
            self.stream.write(self.line() + "\n")
            self.last = now
        else:
            return
        self.stream.flush()

    def done(self) -> None:
        """End the in-place line (before other output)."""
        with self._lock:
            if self.tty and self._shown:
                self.stream.write("\n")
                self.stream.flush()
                self._shown = False
