"""Fresh sandbox workers started before they are needed.

Validation gives every program a worker no other program has touched, and starting one (a
Python process that isolates itself) costs about 50 ms, half of a typical validation. A
``WorkerSupply`` starts them on a background thread ahead of need, so a long-lived caller (the
trainer, ``spadegym.validation.Validator``) pays nothing when it takes one. Nothing is
shared: each worker is handed out once, serves one program, and is killed when its lease ends.
A worker waiting in the supply is already isolated and has seen no program.
"""

from __future__ import annotations

import collections
import contextlib
import threading
from collections.abc import Iterator

from spadegym.sandbox.client import SandboxWorker, Worker
from spadegym.sandbox.config import SandboxConfig
from spadegym.sandbox.handle import make_worker

__all__ = ["WorkerSupply", "fresh_worker"]


@contextlib.contextmanager
def fresh_worker(config: SandboxConfig) -> Iterator[Worker]:
    """A worker started now for one use, killed when the block ends."""
    worker = make_worker(config)
    try:
        yield worker
    finally:
        _dispose(worker)


def _dispose(worker: Worker) -> None:
    # A used worker holds nothing worth a graceful exit: kill it at once.
    if isinstance(worker, SandboxWorker):
        worker.kill()
    else:
        worker.close()


class WorkerSupply:
    """Keeps ``ahead`` started, unused workers ready; ``lease()`` hands one out for one use.

    Workers are started in the background only while no lease is held: validations come in
    bursts, and starting a process during one would take a core from the validations. A
    burst larger than ``ahead`` starts its extra workers on demand.

    Args:
        config: the sandbox the workers run (``isolation="none"`` workers need no start, so
            none are kept ahead).
        ahead: how many started workers to keep waiting. 0 starts each worker on demand.

    A worker that fails to start in the background stops the background thread; later leases
    start their worker on demand, so the failure reaches the caller as the usual
    ``SandboxError``. The supply may be used from several threads at once.
    """

    def __init__(self, config: SandboxConfig, ahead: int = 2):
        self.config = config
        self.ahead = ahead if config.isolation == "process" else 0
        self._ready: collections.deque[SandboxWorker] = collections.deque()
        self._changed = threading.Condition()
        self._closed = False
        self._starting = False
        self._leased = 0
        self._thread: threading.Thread | None = None
        if self.ahead > 0:
            self._thread = threading.Thread(
                target=self._fill, name="spadegym-worker-supply", daemon=True
            )
            self._thread.start()

    def _fill(self) -> None:
        while True:
            with self._changed:
                self._changed.wait_for(
                    lambda: self._closed or (len(self._ready) < self.ahead and self._leased == 0)
                )
                if self._closed:
                    return
                self._starting = True
            worker = SandboxWorker(self.config)
            try:
                worker.start()
            except Exception:  # leases start their own workers and report the failure
                with self._changed:
                    self._starting = False
                    self._changed.notify_all()
                return
            with self._changed:
                self._starting = False
                if self._closed:
                    worker.kill()
                    return
                self._ready.append(worker)
                self._changed.notify_all()

    def take(self) -> Worker:
        """A started worker nobody has used, for the caller to keep (and to kill).

        The supply starts a replacement in the background. Raises ``SandboxError`` when a
        worker cannot be started.
        """
        return self._take()

    def _take(self) -> Worker:
        """A started worker nobody has used (waits for one being started, else starts one)."""
        with self._changed:
            if not self._ready and self._starting:
                self._changed.wait_for(lambda: self._ready or not self._starting)
            if self._ready:
                worker: Worker = self._ready.popleft()
                self._changed.notify_all()  # the filler starts the next one
                return worker
        worker = make_worker(self.config)
        if isinstance(worker, SandboxWorker):
            worker.start()
        return worker

    @contextlib.contextmanager
    def lease(self) -> Iterator[Worker]:
        """A fresh, started worker for the block, killed when it ends.

        Raises:
            SandboxError: a worker could not be started.
        """
        with self._changed:
            self._leased += 1
        try:
            worker = self._take()
            try:
                yield worker
            finally:
                _dispose(worker)
        finally:
            with self._changed:
                self._leased -= 1
                self._changed.notify_all()

    @property
    def ready(self) -> int:
        """Workers started and waiting."""
        with self._changed:
            return len(self._ready)

    def close(self) -> None:
        """Stop starting workers and kill the waiting ones."""
        with self._changed:
            self._closed = True
            self._changed.notify_all()
        if self._thread is not None:
            self._thread.join()
        with self._changed:
            waiting, self._ready = list(self._ready), collections.deque()
        for worker in waiting:
            worker.kill()

    def __enter__(self) -> WorkerSupply:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
