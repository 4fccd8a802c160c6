"""``RequestBatcher`` with a plain function for a model: who shares a batch, who sees a batch's
failure, and how the worker thread starts, idles out and closes."""

from __future__ import annotations

import threading
import time

import pytest

from spadegym.llm import LLMError
from spadegym.llm.batching import RequestBatcher


class Recorder:
    """A batch function that records each batch and answers ``payload * 10``."""

    def __init__(self, fail_on=None, delay: float = 0.0):
        self.batches: list[tuple[object, list]] = []
        self.fail_on = fail_on
        self.delay = delay

    def __call__(self, key, payloads):
        self.batches.append((key, list(payloads)))
        time.sleep(self.delay)
        if self.fail_on is not None and self.fail_on in payloads:
            raise RuntimeError(f"batch with {self.fail_on} failed")
        return [p * 10 for p in payloads]


def ask_together(batcher, requests):
    """Submit (key, payload, rows) requests from one thread each, released at once."""
    barrier = threading.Barrier(len(requests))
    results: dict[int, object] = {}

    def ask(k, key, payload, rows):
        barrier.wait()
        try:
            results[k] = batcher.submit(key, payload, rows).result(timeout=10)
        except Exception as exc:  # the test looks at which callers failed
            results[k] = exc

    threads = [
        threading.Thread(target=ask, args=(k, *request)) for k, request in enumerate(requests)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return [results[k] for k in range(len(requests))]


def test_concurrent_requests_share_one_batch_and_get_their_own_answers():
    run = Recorder()
    batcher = RequestBatcher(run, max_rows=16, window=0.3)
    answers = ask_together(batcher, [("greedy", p, 1) for p in range(6)])
    assert answers == [0, 10, 20, 30, 40, 50]
    assert len(run.batches) == 1 and sorted(run.batches[0][1]) == list(range(6))
    assert batcher.batches == 1
    batcher.close()


def test_keys_never_mix_and_rows_are_capped():
    run = Recorder()
    batcher = RequestBatcher(run, max_rows=4, window=0.3)
    requests = [("a", 1, 2), ("a", 2, 2), ("a", 3, 2), ("b", 4, 1), ("a", 5, 9)]
    answers = ask_together(batcher, requests)
    assert answers == [10, 20, 30, 40, 50]
    for key, payloads in run.batches:
        rows = sum(r for k, p, r in requests if p in payloads)
        assert {k for k, p, r in requests if p in payloads} == {key}
        assert rows <= 4 or payloads == [5]  # a request wider than max_rows runs alone
    assert len(run.batches) >= 4


def test_a_failing_batch_fails_its_own_callers_only():
    run = Recorder(fail_on=3)
    batcher = RequestBatcher(run, max_rows=2, window=0.3)
    answers = ask_together(batcher, [("k", p, 1) for p in range(4)])
    failed = [k for k, a in enumerate(answers) if isinstance(a, RuntimeError)]
    assert 3 in failed and len(failed) == 2  # 3 and whichever request shared its batch
    assert all(answers[k] == 10 * k for k in range(4) if k not in failed)
    assert str(answers[3]) == "batch with 3 failed"
    assert batcher.submit("k", 7).result(timeout=10) == 70  # the worker survived


def test_a_wrong_number_of_results_is_an_error_for_the_batch():
    batcher = RequestBatcher(lambda key, payloads: [], window=0)
    with pytest.raises(LLMError, match="a batch of 1 requests gave 0 results"):
        batcher.submit("k", 1).result(timeout=10)


def test_close_finishes_the_running_batch_fails_the_queued_and_refuses_more():
    run = Recorder(delay=0.5)
    batcher = RequestBatcher(run, max_rows=1, window=0, name="tiny generation")
    first = batcher.submit("k", 1)
    time.sleep(0.1)  # the first batch is running
    second = batcher.submit("k", 2)
    batcher.close()
    assert first.result(timeout=10) == 10
    with pytest.raises(LLMError, match="tiny generation was closed before this request ran"):
        second.result(timeout=10)
    with pytest.raises(LLMError, match="tiny generation is closed; build a new backend"):
        batcher.submit("k", 3)
    assert not any(t.name == "tiny generation" for t in threading.enumerate())


def test_the_worker_ends_when_idle_and_starts_again_on_demand():
    batcher = RequestBatcher(Recorder(), window=0, idle_exit=0.1, name="idle worker")
    assert batcher.submit("k", 1).result(timeout=10) == 10
    time.sleep(0.5)
    assert not any(t.name == "idle worker" for t in threading.enumerate())
    assert batcher.submit("k", 2).result(timeout=10) == 20
    batcher.close()


def test_a_cancelled_request_is_skipped():
    run = Recorder(delay=0.3)
    batcher = RequestBatcher(run, max_rows=1, window=0)
    busy = batcher.submit("k", 1)
    time.sleep(0.1)
    dropped = batcher.submit("k", 2)
    assert dropped.cancel()
    assert busy.result(timeout=10) == 10
    assert batcher.submit("k", 3).result(timeout=10) == 30
    assert [payloads for _, payloads in run.batches] == [[1], [3]]
    batcher.close()


def test_settings_are_checked():
    with pytest.raises(ValueError, match="need max_rows >= 1"):
        RequestBatcher(Recorder(), max_rows=0)
