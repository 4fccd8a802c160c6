"""check_novelty without a worker starts one (cross-play), unless told not to."""

from __future__ import annotations

import contextlib

import pytest
from devset import programs

from spadegym.memory import EnvironmentMemory, HashingEmbedder

SOURCES = programs()


@pytest.fixture
def memory(tmp_path):
    pytest.importorskip("faiss")
    with EnvironmentMemory(tmp_path / "m", HashingEmbedder()) as memory:
        memory.add_many([(n, SOURCES[n], None) for n in ("lock", "nim", "maze")])
        started = []
        real = memory.sandbox

        @contextlib.contextmanager
        def counted():
            started.append(1)
            with real() as worker:
                yield worker

        memory.sandbox = counted
        memory.started = started
        yield memory


def test_a_rewrite_is_caught_because_a_worker_is_started(memory):
    verdict = memory.check_novelty(SOURCES["lock_rewrite"])
    assert memory.started == [1]
    assert (verdict.novel, verdict.nearest_id, verdict.signal) == (False, "lock", "cross-play")


def test_start_sandbox_false_judges_on_static_signals_only(memory):
    verdict = memory.check_novelty(SOURCES["lock_rewrite"], start_sandbox=False)
    assert memory.started == []
    assert verdict.novel  # the rewrite changed code and wording enough to pass as new


def test_no_worker_for_an_exact_copy_or_an_empty_memory(memory, tmp_path):
    assert not memory.check_novelty(SOURCES["lock_renamed"]).novel
    assert memory.started == []
    with EnvironmentMemory(tmp_path / "empty", HashingEmbedder()) as empty:
        assert empty.check_novelty(SOURCES["lock"]).novel
