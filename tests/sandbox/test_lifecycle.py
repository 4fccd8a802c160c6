"""A worker's life: it dies with its host, and every piece of program code runs under a deadline.

The deadline tests run code in an isolated worker as an escaped program would
(``sandbox_harness``): finalizers and exception texts that never end, garbage collected between
requests. The host-death tests start a real host process with real workers and kill it.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import threading
import time

from sample_programs import make_program
from sandbox_harness import run_isolated

from spadegym.errors import ProgramError
from spadegym.sandbox import SandboxConfig, SandboxWorker

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

HOST = textwrap.dedent("""
    import json, sys, threading, time
    from spadegym.sandbox import EnvHandle, SandboxConfig, SandboxWorker, protocol
    idle = SandboxWorker()
    idle.start()
    from_thread = SandboxWorker()
    starter = threading.Thread(target=from_thread.start)
    starter.start()
    starter.join()
    busy = SandboxWorker(SandboxConfig(call_timeout=30, kill_grace=30))
    handle = EnvHandle(busy, sys.argv[1])
    handle.reset(0)
    busy.send([protocol.step_request(handle.instance, "go")])  # spins in C from now on
    print(json.dumps([idle.pid, from_thread.pid, busy.pid]), flush=True)
    time.sleep(600)
""")

SPIN_IN_C = make_program("total = sum(range(10 ** 13))\nreturn 'x', 0.0, False, False, {}")


def _gone(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] in ("Z", "X")  # exited, unreaped
    except (FileNotFoundError, ProcessLookupError):
        return True


def _start_host() -> tuple[subprocess.Popen, list[int]]:
    env = {**os.environ, "PYTHONPATH": REPO}
    host = subprocess.Popen(
        [sys.executable, "-c", HOST, SPIN_IN_C], stdout=subprocess.PIPE, env=env, text=True
    )
    pids = json.loads(host.stdout.readline())
    assert all(not _gone(pid) for pid in pids)
    return host, pids


def _wait_gone(pids: list[int], seconds: float) -> list[int]:
    """The pids still running after ``seconds`` (killed then, so that none is left behind)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and not all(_gone(pid) for pid in pids):
        time.sleep(0.05)
    left = [pid for pid in pids if not _gone(pid)]
    for pid in left:
        os.kill(pid, signal.SIGKILL)
    return left


def test_workers_die_with_a_host_killed_by_sigterm():
    host, pids = _start_host()
    host.send_signal(signal.SIGTERM)
    host.wait(10)
    assert _wait_gone(pids, 2.0) == [], "workers outlived their host"


def test_workers_die_with_a_host_killed_by_sigkill():
    host, pids = _start_host()
    host.kill()
    host.wait(10)
    assert _wait_gone(pids, 2.0) == [], "workers outlived their host"


def test_a_worker_started_from_a_finished_thread_lives_on():
    # The parent-death signal follows the thread that started a process: workers are started
    # from one long-lived thread, so a pool's short-lived threads do not take them along.
    worker = SandboxWorker()
    try:
        starter = threading.Thread(target=worker.start)
        starter.start()
        starter.join()
        time.sleep(0.3)
        assert worker.alive and worker.ping() == "pong"
    finally:
        worker.close()


def test_a_finalizer_on_close_runs_under_the_deadline():
    result = run_isolated(
        """
class Spin:
    def __del__(self):
        while True:
            pass
runtime.instances[7], runtime.files[7] = Spin(), '<attack>'
started = time.monotonic()
out['close'] = runtime.handle({'op': 'close', 'i': 7})
out['seconds'] = time.monotonic() - started
""",
        call_timeout=0.3,
    )
    assert result["close"]["ok"] is True and result["seconds"] < 3, result


def test_garbage_is_collected_only_under_a_deadline():
    result = run_isolated(
        """
class Spin:
    def __del__(self):
        while True:
            pass
cycle = Spin()
cycle.me = cycle
del cycle
junk = [[] for _ in range(200000)]  # would start a collection, and the endless finalizer
out['enabled_between_requests'] = gc.isenabled()
started = time.monotonic()
runtime._arm(0.3)
try:
    gc.collect()  # what a request's window does when it allocates enough
finally:
    runtime._disarm()
out['seconds'] = time.monotonic() - started
""",
        call_timeout=0.3,
    )
    assert result["enabled_between_requests"] is False, result
    assert result["seconds"] < 3, result


def test_an_exception_text_that_never_ends_is_cut_by_the_deadline():
    result = run_isolated(
        """
class Endless(Exception):
    def __str__(self):
        while True:
            pass
class AttackEnv:
    def step(self, action):
        raise Endless()
runtime.instances[5], runtime.files[5] = AttackEnv(), '<attack>'
started = time.monotonic()
out['step'] = runtime.handle({'op': 'step', 'i': 5, 'a': 'x'})
out['seconds'] = time.monotonic() - started
""",
        call_timeout=0.3,
    )
    assert result["step"]["kind"] == "timeout" and result["seconds"] < 3, result


def test_class_facts_are_read_under_the_deadline_and_capped_while_walking():
    program = (
        "from spadegym.program import ToolEnv\n"
        "shared = [0]\n"
        "for _ in range(29):\n"
        "    shared = [shared, shared]  # 2**29 leaves, a few hundred bytes of memory\n"
        + make_program("return 'x', 0.0, False, False, {}").replace(
            "class ProbeEnv:", "class ProbeEnv(ToolEnv):\n    tools = shared"
        )
    )
    worker = SandboxWorker(SandboxConfig(load_timeout=5))
    try:
        started = time.monotonic()
        info = worker.load(program)
        assert time.monotonic() - started < 4
        assert info.tool_env and info.tools is None  # refused: larger than 65536 bytes
    finally:
        worker.close()


def test_a_worker_serves_one_program_only(lock_pick):
    worker = SandboxWorker()
    try:
        worker.load(lock_pick)
        worker.load(lock_pick)  # the same program again is fine
        try:
            worker.load(make_program("return 'x', 0.0, False, False, {}"))
        except ProgramError as exc:
            assert exc.kind == "protocol" and "holds one program only" in str(exc)
        else:
            raise AssertionError("a second program was loaded into the same worker")
    finally:
        worker.close()
