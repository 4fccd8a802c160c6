"""WorkerSupply: started ahead, handed out once, killed after use, failures reach the caller."""

from __future__ import annotations

import os
import time

import pytest

from spadegym.errors import SandboxError
from spadegym.sandbox import InProcessWorker, SandboxConfig, WorkerSupply, fresh_worker


def wait_for(predicate, seconds: float = 20.0) -> None:
    deadline = time.monotonic() + seconds
    while not predicate():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.01)


def test_workers_are_started_ahead_and_each_is_used_once():
    with WorkerSupply(SandboxConfig(), ahead=2) as supply:
        wait_for(lambda: supply.ready == 2)
        with supply.lease() as first, supply.lease() as second:
            assert first.alive and second.alive and first is not second
            assert first._proc.pid != second._proc.pid
        wait_for(lambda: supply.ready == 2)  # both replaced once the leases ended


def test_no_worker_starts_while_a_lease_is_held():
    with WorkerSupply(SandboxConfig(), ahead=2) as supply:
        wait_for(lambda: supply.ready == 2)
        with supply.lease():
            time.sleep(0.5)
            assert supply.ready == 1
        wait_for(lambda: supply.ready == 2)


def test_a_lease_kills_its_worker_at_the_end_of_the_block():
    with WorkerSupply(SandboxConfig(), ahead=1) as supply:
        with supply.lease() as worker:
            pid = worker._proc.pid
            assert worker.ping() == "pong"
        assert not worker.alive
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)


def test_close_kills_the_waiting_workers():
    supply = WorkerSupply(SandboxConfig(), ahead=2)
    wait_for(lambda: supply.ready == 2)
    waiting = list(supply._ready)
    supply.close()
    assert supply.ready == 0 and not any(w.alive for w in waiting)


def test_ahead_zero_starts_on_demand():
    with WorkerSupply(SandboxConfig(), ahead=0) as supply:
        assert supply.ready == 0 and supply._thread is None
        with supply.lease() as worker:
            assert worker.alive


def test_in_process_workers_need_no_start():
    with WorkerSupply(SandboxConfig(isolation="none"), ahead=3) as supply:
        assert supply.ahead == 0
        with supply.lease() as worker:
            assert isinstance(worker, InProcessWorker)
    with fresh_worker(SandboxConfig(isolation="none")) as worker:
        assert isinstance(worker, InProcessWorker)


def test_a_worker_that_cannot_start_fails_the_lease(monkeypatch):
    monkeypatch.setattr("spadegym.sandbox.client.sys.executable", "/nonexistent/python")
    with WorkerSupply(SandboxConfig(), ahead=1) as supply:
        wait_for(lambda: supply._thread is not None and not supply._thread.is_alive())
        with pytest.raises(SandboxError, match="could not start a sandbox worker"), supply.lease():
            pass


def test_a_taken_worker_is_the_callers_and_is_replaced():
    with WorkerSupply(SandboxConfig(), ahead=1) as supply:
        wait_for(lambda: supply.ready == 1)
        worker = supply.take()
        try:
            assert worker.alive
            wait_for(lambda: supply.ready == 1)  # a replacement, started in the background
        finally:
            worker.kill()
        assert supply.ready == 1  # killing the taken worker is the caller's business
