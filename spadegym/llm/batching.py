"""``RequestBatcher``: requests from many threads gathered into batches for one worker thread.

A local model generates far more tokens per second for eight sequences in one ``generate`` call
than for eight calls in a row, but its callers (``evaluate``'s threads, ``generate``'s
candidates, asyncio tasks) each ask for one conversation. The batcher sits between them: a
caller submits a request and waits on a future; one worker thread waits a short window after
the first request arrives, takes the requests in flight that share its key (the sampling
settings) up to a number of rows, runs them as one batch, and hands each caller its own result.
A batch that fails fails its own callers only. The worker stops after a short idle spell and
starts again on the next request, so a batcher nobody closes holds no thread.
"""

from __future__ import annotations

import concurrent.futures
import queue
import threading
import time
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field
from typing import Any

from spadegym.llm.base import LLMError

__all__ = ["RequestBatcher"]


@dataclass
class _Request:
    key: Hashable
    payload: Any
    rows: int
    future: concurrent.futures.Future = field(default_factory=concurrent.futures.Future)


class RequestBatcher:
    """Run requests in batches on one worker thread.

    Args:
        run_batch: ``run_batch(key, payloads) -> results``, one result per payload, in order.
            Whatever it raises is raised to every caller of that batch, and to no one else.
        max_rows: rows in one batch; a batch takes requests of one key in arrival order while
            their rows fit (a single request larger than this runs alone).
        window: seconds the worker waits, after the first request reaches an idle worker, for
            others to join it. Requests that arrive while a batch runs wait for the next one
            anyway, so the window only matters after a pause.
        idle_exit: seconds without requests after which the worker thread ends.
        name: the worker thread's name.
    """

    def __init__(
        self,
        run_batch: Callable[[Any, list[Any]], Sequence[Any]],  # (a key given to submit, its jobs)
        *,
        max_rows: int = 16,
        window: float = 0.02,
        idle_exit: float = 2.0,
        name: str = "batcher",
    ):
        if max_rows < 1 or window < 0 or idle_exit <= 0:
            raise ValueError(
                f"max_rows={max_rows}, window={window}, idle_exit={idle_exit}: need "
                "max_rows >= 1, window >= 0 and idle_exit > 0."
            )
        self._run_batch = run_batch
        self.max_rows = max_rows
        self.window = window
        self.idle_exit = idle_exit
        self.name = name
        self.batches = 0
        """Batches run so far."""
        self._queue: queue.SimpleQueue[_Request | None] = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._closed = False

    def submit(self, key: Hashable, payload: Any, rows: int = 1) -> concurrent.futures.Future:
        """Queue one request; its future resolves to its result.

        Args:
            key: requests with equal keys may share a batch; others never do.
            payload: what ``run_batch`` receives for this request.
            rows: how many rows of ``max_rows`` the request takes.

        Raises:
            LLMError: the batcher is closed.
        """
        request = _Request(key, payload, max(1, rows))
        with self._lock:
            if self._closed:
                raise LLMError(f"{self.name} is closed; build a new backend to generate again.")
            self._queue.put(request)
            if self._thread is None:
                self._thread = threading.Thread(target=self._work, name=self.name, daemon=True)
                self._thread.start()
        return request.future

    def close(self) -> None:
        """Stop taking requests, finish the batch in progress, and fail the queued ones."""
        with self._lock:
            self._closed = True
            thread = self._thread
            if thread is not None:
                self._queue.put(None)
        if thread is not None and thread is not threading.current_thread():
            thread.join()
        self._fail(self._drain())

    # -- the worker ----------------------------------------------------------------------

    def _work(self) -> None:
        pending: list[_Request] = []
        while True:
            if not pending:
                try:
                    first = self._queue.get(timeout=self.idle_exit)
                except queue.Empty:
                    with self._lock:
                        # Decided under the lock that submit holds while it enqueues, so a
                        # request is never left behind with no thread to run it.
                        if self._queue.empty():
                            self._thread = None
                            return
                    continue
                if first is None:
                    return
                pending.append(first)
                if not self._gather(pending):
                    self._fail(pending)
                    return
            else:
                # Requests that arrived during the last batch join the next one at once.
                for request in self._drain():
                    if request is None:
                        self._fail(pending)
                        return
                    pending.append(request)
            if self._closed:  # what close() found queued is failed, not run
                self._fail(pending)
                return
            self._run(self._take(pending))

    def _gather(self, pending: list[_Request]) -> bool:
        """Collect arrivals for ``window`` seconds; False when ``close`` came meanwhile."""
        deadline = time.monotonic() + self.window
        while self._rows(pending, pending[0].key) < self.max_rows:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                break
            try:
                request = self._queue.get(timeout=remaining)
            except queue.Empty:
                break
            if request is None:
                return False
            pending.append(request)
        return True

    @staticmethod
    def _rows(pending: list[_Request], key: Hashable) -> int:
        return sum(r.rows for r in pending if r.key == key)

    def _take(self, pending: list[_Request]) -> list[_Request]:
        """The oldest request's key, and its requests in arrival order while they fit."""
        key = pending[0].key
        batch: list[_Request] = []
        rows = 0
        for request in pending:
            if request.key != key:
                continue
            if batch and rows + request.rows > self.max_rows:
                break
            batch.append(request)
            rows += request.rows
        for request in batch:
            pending.remove(request)
        return batch

    def _run(self, batch: list[_Request]) -> None:
        live = [r for r in batch if r.future.set_running_or_notify_cancel()]
        if not live:
            return
        self.batches += 1
        try:
            results = self._run_batch(live[0].key, [r.payload for r in live])
            if len(results) != len(live):
                raise LLMError(
                    f"{self.name}: a batch of {len(live)} requests gave {len(results)} results."
                )
        except BaseException as exc:  # noqa: BLE001 - handed to the callers, never lost
            for request in live:
                request.future.set_exception(exc)
            return
        for request, result in zip(live, results):
            request.future.set_result(result)

    def _drain(self) -> list[_Request | None]:
        out: list[_Request | None] = []
        while True:
            try:
                out.append(self._queue.get_nowait())
            except queue.Empty:
                return out

    def _fail(self, requests: Sequence[_Request | None]) -> None:
        for request in requests:
            if request is not None and request.future.set_running_or_notify_cancel():
                request.future.set_exception(
                    LLMError(f"{self.name} was closed before this request ran.")
                )
