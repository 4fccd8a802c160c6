"""Pools: one program per worker, batches in parallel, stuck programs quarantined."""

from __future__ import annotations

import ast
import time
from pathlib import Path

import pytest
from protocol_check import protocol_gaps
from sample_programs import make_program

from spadegym.errors import ProgramError
from spadegym.sandbox import EnvHandle, InProcessWorker, Pool, SandboxConfig, SandboxPool
from spadegym.sandbox.handle import HandleOwner, program_digest
from spadegym.vector import EnvBatch

SANDBOX = Path(__file__).resolve().parent.parent.parent / "spadegym" / "sandbox"
OTHER = make_program('return "0", 1.0, True, False, {}')
STUCK = make_program("total = sum(range(10 ** 13))\nreturn 'x', 0.0, False, False, {}")


def pids(pool: SandboxPool, handles: list[EnvHandle]) -> list[int]:
    return [h.worker.pid for h in handles]


def test_the_pool_implements_the_pool_protocol():
    with SandboxPool(1) as pool:
        assert isinstance(pool, Pool)


def test_different_programs_never_share_a_worker(lock_pick):
    with SandboxPool(size=2) as pool:
        handles = [pool.open(source) for source in (lock_pick, OTHER, lock_pick, OTHER)]
        assert handles[0].worker is handles[2].worker
        assert handles[1].worker is handles[3].worker is not handles[0].worker
        assert len(set(pids(pool, handles))) == 2
        assert [len(w.programs) for w in pool.workers] == [1, 1]  # each loaded one program
        third = pool.open(make_program('return "3", 0.0, False, False, {}'))
        assert third.worker not in (handles[0].worker, handles[1].worker)  # a third program
        pool.release_many([*handles, third])


def test_one_programs_instances_spread_to_size_workers(lock_pick):
    with SandboxPool(size=2) as pool:
        handles = [pool.open(lock_pick) for _ in range(6)]
        assert len({id(h.worker) for h in handles}) == 2
        assert sorted(pool.load_of(w) for w in pool.workers) == [3, 3]
        for seed, handle in enumerate(handles):
            handle.reset(seed)
        answers = [handle.solution()[0] for handle in handles]
        results = pool.step_batch(list(zip(handles, answers)))
        assert all(r.reward == 1.0 and r.terminated for r in results)


def test_a_heterogeneous_batch_runs_one_worker_per_program(lock_pick):
    programs = [lock_pick, OTHER, make_program('return "2", 0.0, False, False, {}')]
    with SandboxPool(size=2) as pool:
        handles = [pool.open(programs[k % 3]) for k in range(12)]
        assert len(pool.workers) == 3
        for handle in handles:
            assert all(h.worker is handle.worker for h in handles if h.source == handle.source)


def test_pool_opens_resets_and_releases_in_batches(lock_pick):
    failing_reset = make_program(
        "return '0', 0.0, True, False, {}", reset_body="raise ValueError('no board')"
    )
    refused = "import os\n" + lock_pick
    with SandboxPool(size=2) as pool:
        opened = pool.open_many(
            [(lock_pick, "a"), (refused, "b"), (failing_reset, "c"), (lock_pick, "d")]
        )
        assert isinstance(opened[1], ProgramError) and opened[1].kind == "policy"
        handles = [opened[0], opened[2], opened[3]]
        assert all(isinstance(h, EnvHandle) for h in handles)
        assert sum(pool.load_of(w) for w in pool.workers) == 3  # the refused one holds none
        assert len(pool.workers) == 2  # the refused program's worker was stopped
        resets = pool.reset_batch([(h, seed, None) for seed, h in enumerate(handles)])
        assert "3-digit lock" in resets[0][0] and "3-digit lock" in resets[2][0]
        assert isinstance(resets[1], ProgramError) and "no board" in str(resets[1])
        assert resets[0] == handles[0].worker.reset(handles[0].instance, 0, None)
        pool.release_many(handles)
        assert all(pool.load_of(w) == 0 for w in pool.workers) and all(h.lost for h in handles)


def test_idle_workers_past_keep_idle_are_stopped(lock_pick):
    programs = [make_program(f'return "{k}", 0.0, False, False, {{}}') for k in range(4)]
    with SandboxPool(size=1, keep_idle=2) as pool:
        handles = [pool.open(source) for source in programs]
        assert len(pool.workers) == 4
        pool.release_many(handles)
        kept = {digest for w in pool.workers for digest in w.programs}
        assert kept == {program_digest(programs[2]), program_digest(programs[3])}  # the latest
        again = pool.open(programs[3])
        assert again.worker in pool.workers and len(pool.workers) == 2


def test_describe_loads_a_program_on_a_worker_of_its_own(lock_pick):
    with SandboxPool(size=1) as pool:
        info = pool.describe(lock_pick, "lock")
        assert info.class_name == "LockPickEnv" and info.max_turns == 8
        assert pool.describe(OTHER).class_name == "ProbeEnv"
        assert len(pool.workers) == 2
        handle = pool.open(lock_pick)
        assert handle.worker is pool.workers[0]  # the described program's worker hosts it
        with pytest.raises(ProgramError) as caught:
            pool.describe("import os\n" + lock_pick)
        assert caught.value.kind == "policy" and len(pool.workers) == 2


def test_a_stuck_program_is_quarantined_and_the_batch_keeps_its_pace(lock_pick):
    config = SandboxConfig(call_timeout=1.0, kill_grace=1.0)
    fast = make_program("return 'fine', 0.0, False, False, {}", max_turns=50)
    # No watchdog: its probe, played at the first reset, would catch the stuck step there.
    with (
        SandboxPool(2, config, watchdog=None) as pool,
        EnvBatch([fast, STUCK, fast, STUCK], pool=pool, seed=0) as batch,
    ):
        batch.reset(seed=0)
        started = time.monotonic()
        _, _, terminated, _, infos = batch.step(["a"] * 4)
        first = time.monotonic() - started
        assert first >= 1.0  # waited for the hard deadline once
        assert infos[1]["final_info"]["error"]["kind"] == "timeout"
        assert "quarantined" in infos[1]["error"]["message"]  # its autoreset is refused
        assert terminated == [False, True, False, True]
        for _ in range(3):
            started = time.monotonic()
            obs, _, terminated, _, infos = batch.step(["a"] * 4)
            assert time.monotonic() - started < 0.9
            assert (
                obs[0] == obs[2] == "fine" and "error" not in infos[0] and "error" not in infos[2]
            )
            assert terminated[1] and terminated[3]
            assert "quarantined" in infos[1]["final_info"]["error"]["message"]


def test_quarantine_can_be_turned_off():
    config = SandboxConfig(call_timeout=0.5, kill_grace=0.5)
    with SandboxPool(1, config, quarantine_after=0, watchdog=None) as pool:
        handle = pool.open(STUCK)
        handle.reset(0)
        with pytest.raises(ProgramError, match="could not be interrupted"):
            handle.step("a")
        handle.reset(1)  # still runs: nothing quarantined
        assert not pool.quarantined(handle.digest)


def test_spares_give_a_new_program_a_worker_started_ahead(lock_pick):
    with SandboxPool(size=1, spares=1) as pool:
        supply = pool._supply
        deadline = time.monotonic() + 20
        while supply.ready < 1:
            assert time.monotonic() < deadline
            time.sleep(0.01)
        waiting = supply._ready[0]
        handle = pool.open(lock_pick)
        assert handle.worker is waiting  # no process was started for the program
        pool.release(handle)
    assert not waiting.alive and supply.ready == 0  # closing the pool stops the spares too


# -- the boundary between the pool and its handles ---------------------------------------------


def test_the_pool_is_what_a_handle_asks_of_its_owner():
    with SandboxPool(1) as pool:
        assert protocol_gaps(HandleOwner, SandboxPool, pool) == []


def test_the_pool_and_the_handle_use_only_each_others_public_methods():
    # A private name reached through anything but the object itself (``pool`` is the instance
    # that ``SandboxPool.from_workers`` builds) is one side reaching into the other.
    own = {"pool.py": {"self", "pool"}, "handle.py": {"self"}}
    reached = []
    for name, allowed in own.items():
        tree = ast.parse((SANDBOX / name).read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Attribute)
                and node.attr.startswith("_")
                and not node.attr.startswith("__")
                and ast.unparse(node.value) not in allowed
            ):
                reached.append(f"{name}:{node.lineno}: {ast.unparse(node)}")
    assert reached == []


class Owner:
    """A ``HandleOwner`` that records what a handle reports, and refuses what it is told to."""

    def __init__(self) -> None:
        self.calls: list[tuple] = []
        self.refuse: ProgramError | None = None

    def check_quarantine(self, digest: str, label: str) -> None:
        self.calls.append(("check", label))
        if self.refuse is not None:
            raise self.refuse

    def strike(self, digest: str, label: str) -> None:
        self.calls.append(("strike", label))

    def watch_resets(self, handles) -> None:
        self.calls.append(("resets", len(handles)))

    def watch_call(self, handle, op: str, seconds: float) -> None:
        assert seconds >= 0
        self.calls.append(("call", op))


def test_a_handle_reports_to_its_owner_through_the_public_boundary():
    owner = Owner()
    worker = InProcessWorker()
    handle = EnvHandle(worker, OTHER, "other.py", pool=owner)
    assert owner.calls == [("check", "other.py")]  # creating the instance is guarded
    handle.reset(0)
    handle.step("x")
    assert owner.calls[1:] == [
        ("resets", 1),
        ("check", "other.py"),
        ("call", "reset"),
        ("check", "other.py"),
        ("call", "step"),
    ]
    owner.refuse = ProgramError("other.py is quarantined", "timeout")
    with pytest.raises(ProgramError, match="quarantined"):
        handle.step("x")
    handle.mark_closed()
    assert handle.lost
    owner.refuse = None
    handle.recreate()
    assert not handle.lost and handle.step("x").terminated
