"""Say so when something takes a while: a line when it has run a couple of seconds, one at its end.

Loading the embedder the first time, embedding many programs and rebuilding a large index can
take from seconds to minutes. Quick operations print nothing; slow ones print what they are
doing and, when done, how long they took, through the caller's ``progress`` function (the
command line passes one that writes to stderr; the library prints nothing by default).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

Progress = Callable[[str], None]
"""Receives one line of progress."""

DELAY = 2.0
"""Seconds an operation runs before it is announced."""


@contextmanager
def announce(progress: Progress | None, what: str, delay: float | None = None) -> Iterator[None]:
    """Run the body; if it lasts more than ``delay`` seconds, report ``what`` and its time.

    Args:
        progress: where lines go; ``None`` reports nothing.
        what: the operation, e.g. ``"loading the embedder all-MiniLM-L6-v2"``.
        delay: seconds before the first line (default ``DELAY``).
    """
    delay = DELAY if delay is None else delay
    if progress is None:
        yield
        return
    started = time.perf_counter()
    shown = threading.Event()

    def show() -> None:
        shown.set()
        progress(f"{what} ...")

    timer = threading.Timer(delay, show)
    timer.daemon = True
    timer.start()
    try:
        yield
    finally:
        timer.cancel()
        if shown.is_set():
            progress(f"{what}: done in {time.perf_counter() - started:.1f} s")
