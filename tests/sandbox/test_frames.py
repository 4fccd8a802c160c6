"""The wire: a worker that lies, floods or stops reading is a ``ProgramError``, never a hang.

A broken worker here is a real isolated worker process whose serving loop was replaced by the
attack (what an escaped program could do with the pipe it holds): it answers with deep JSON,
bad UTF-8, impossible sizes or wrong types, or stops reading. The host must report each as a
``ProgramError`` within its deadlines and start a fresh worker next time.
"""

from __future__ import annotations

import time

import pytest
from sample_programs import make_program

from spadegym import contract
from spadegym.errors import ProgramError
from spadegym.sandbox import EnvHandle, SandboxConfig, SandboxWorker, launch, protocol

FAST = SandboxConfig(call_timeout=0.5, kill_grace=0.5, load_timeout=2.0)

PREFIX = (
    "import os, time\n"
    "from spadegym.sandbox import protocol\n"
    "from spadegym.sandbox.worker import prepare, _FrameReader, _write_all\n"
    "runtime, layers = prepare(a['settings'])\n"
    "_write_all(1, protocol.encode(protocol.hello_answer(os.getpid(), layers)))\n"
    "frames = _FrameReader(0)\n"
)


def raw(body: bytes | str) -> str:
    """A worker that reads one request and answers with ``body`` (or that expression)."""
    expression = body if isinstance(body, str) else repr(body)
    return PREFIX + (
        f"frames.next()\nbody = {expression}\n"
        "_write_all(1, protocol.HEADER.pack(len(body)) + body)\n"
    )


ATTACKS = {
    "deep JSON": raw("b'[' * 200_000 + b']' * 200_000"),
    "bad UTF-8": raw(b'\xff\xfe{"ok": true, "v": 1}'),
    "a non-finite number": raw(b'{"ok": true, "v": NaN}'),
    "a list for an answer": raw(b"[1, 2, 3]"),
    "an answer without a value": raw(b'{"ok": true}'),
    "a kind that is not a str": raw(b'{"ok": false, "kind": 5, "msg": "x"}'),
    "ok that is not a bool": raw(b'{"ok": "yes", "v": "pong"}'),
    "an impossible size": PREFIX + "frames.next()\n_write_all(1, b'\\x7f\\xff\\xff\\xff')\n",
    "half a frame, then exit": PREFIX + "frames.next()\n_write_all(1, b'\\x00\\x00\\x01\\x00{')\n",
    "silence": PREFIX + "frames.next()\ntime.sleep(60)\n",
    "exit": PREFIX + "frames.next()\nos._exit(0)\n",
}


@pytest.fixture
def broken(monkeypatch):
    """Start workers that run an attack instead of serving; undo with ``heal()``."""

    def use(attack: str) -> None:
        monkeypatch.setattr(launch, "BOOT", launch.BOOT_SETUP + attack)

    use.heal = monkeypatch.undo
    return use


@pytest.mark.parametrize("name", list(ATTACKS))
def test_a_lying_worker_is_a_program_error(broken, name):
    broken(ATTACKS[name])
    worker = SandboxWorker(FAST)
    try:
        started = time.monotonic()
        with pytest.raises(ProgramError) as caught:
            worker.ping()
        assert caught.value.kind in ("crash", "timeout"), caught.value
        assert time.monotonic() - started < 5
        assert not worker.alive
        broken.heal()
        assert worker.ping() == "pong"  # a fresh, real worker takes its place
    finally:
        worker.close()


@pytest.mark.parametrize(
    "body, call, message",
    [
        (b'{"ok": true, "v": {"program": "one", "class": 3}}', "load", "malformed answer to load"),
        (b'{"ok": true, "v": "one"}', "new", "malformed instance id"),
        (b'{"ok": true, "v": ["pong"]}', "ping", "malformed answer to ping"),
        (b'{"ok": true, "v": ["x", 0.5, false]}', "step", "must return a 5-tuple"),
        (b'{"ok": false, "kind": "lost", "msg": "' + b"y" * 5000 + b'"}', "ping", "y" * 2000),
    ],
)
def test_a_well_formed_lie_is_a_program_error(broken, body, call, message):
    broken(raw(body))
    worker = SandboxWorker(FAST)
    calls = {
        "load": lambda: worker.load(make_program("return 'x', 0.0, False, False, {}")),
        "new": lambda: worker.new(1),
        "ping": worker.ping,
        "step": lambda: worker.step(1, "a"),
    }
    try:
        with pytest.raises(ProgramError) as caught:
            calls[call]()
        assert message in str(caught.value) and len(str(caught.value)) <= 2003
    finally:
        worker.close()


def test_a_worker_that_stops_reading_cannot_block_the_host(broken):
    broken(PREFIX + "time.sleep(60)\n")  # never reads: the pipe fills up
    worker = SandboxWorker(FAST)
    try:
        started = time.monotonic()
        results = worker.step_many([(1, "x" * contract.MAX_ACTION_CHARS)] * 12)
        assert time.monotonic() - started < 5
        assert all(isinstance(r, ProgramError) and r.kind == "timeout" for r in results)
        assert "did not read its request" in str(results[0])
        assert worker.hard_timeouts == 1 and not worker.alive
    finally:
        worker.close()


@pytest.fixture
def echo():
    worker = SandboxWorker(FAST)
    handle = EnvHandle(worker, make_program("return str(len(action)), 0.0, False, False, {}"))
    handle.reset(0)
    yield worker, handle
    worker.close()


@pytest.mark.parametrize("length", [70_000, 500_000, 1_000_000])
def test_an_over_long_action_gets_the_limit_error_and_the_worker_lives(echo, length):
    worker, handle = echo
    pid, generation = worker.pid, worker.generation
    with pytest.raises(ProgramError) as caught:
        handle.step("x" * length)
    assert caught.value.kind == "action"
    assert str(caught.value) == (
        f"the action has {length} characters; actions are at most 65536 characters. "
        "Send a shorter reply."
    )
    assert worker.pid == pid and worker.generation == generation
    assert handle.step("abc").observation == "3"


def test_the_worker_survives_an_oversized_frame(echo):
    worker, handle = echo
    pid = worker.pid
    size = protocol.MAX_REQUEST_BYTES + 1
    assert worker._write(protocol.HEADER.pack(size) + b" " * size, time.monotonic() + 10)
    answer = worker._read_frame(time.monotonic() + 10)
    assert answer == {
        "ok": False,
        "kind": "protocol",
        "msg": f"a request frame of {size} bytes is too large",
    }
    assert worker.pid == pid and handle.step("ab").observation == "2"


def test_a_batch_too_large_for_one_frame_is_sent_in_several(echo):
    worker, handle = echo
    action = "\x00" * contract.MAX_ACTION_CHARS  # six bytes each as JSON
    results = worker.step_many([(handle.instance, action)] * 20)
    assert [r.observation for r in results] == [str(contract.MAX_ACTION_CHARS)] * 20


def test_requests_are_checked_before_they_are_sent():
    from spadegym.errors import SpadegymError

    with pytest.raises(SpadegymError, match="a seed must be an int or None"):
        protocol.reset_request(1, seed=True)
    with pytest.raises(SpadegymError, match="options must be a dict"):
        protocol.reset_request(1, options=[1])
    with pytest.raises(SpadegymError, match="holds a set"):
        protocol.reset_request(1, options={"x": {1}})
    with pytest.raises(SpadegymError, match="actions are str replies"):
        protocol.step_request(1, b"bytes")
    with pytest.raises(ProgramError, match="the contract allows at most 65536"):
        protocol.load_request("x" * (contract.MAX_PROGRAM_BYTES + 1))
