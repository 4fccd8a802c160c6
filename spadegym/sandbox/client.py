"""The host side of the sandbox: worker processes, frames with deadlines, batched exchanges.

``SandboxWorker`` owns one worker process and serves many environment instances of one program
through it (its operations come from ``operations``); ``InProcessWorker`` offers the same
methods without a process (``isolation="none"``: no security at all, for trusted programs).
The request API is public: build requests with ``protocol``'s ``*_request`` functions, send
them with ``Worker.exchange`` (one worker) or ``exchange_many`` (several at once, all sent
before any answer is read), and read each answer with ``answer_value`` or
``answer_or_error``. Program failures come back as ``ProgramError``; the host re-checks every
value against the contract, since a worker is not trusted either: a malformed, oversized or
undecodable frame, or a worker that stops reading or answering, is a ``ProgramError`` (the
worker is killed), never another exception.
"""

from __future__ import annotations

import os
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from typing import Any

from spadegym.errors import ProgramError, SandboxError
from spadegym.sandbox import launch, protocol
from spadegym.sandbox.answers import (
    Answer,
    ProgramInfo,
    Request,
    StepResult,
    answer_or_error,
    answer_value,
)
from spadegym.sandbox.config import REQUIRED_LAYERS, WEAK_SANDBOX_ENV, SandboxConfig
from spadegym.sandbox.launch import worker_environment
from spadegym.sandbox.operations import InProcessWorker, Operations
from spadegym.util import leftovers

SPIN_SECONDS = 50e-6
"""How long the host polls a worker's pipe without sleeping before it waits in poll() (only
while fewer workers compute than there are cores: spinning would take a core from them)."""

CORES = os.cpu_count() or 1

_BROKE_PROTOCOL = ("a response frame", "an undecodable frame", "a malformed answer")
"""How ``last_failure`` starts when the host killed a worker for what it sent."""

HELLO_BYTES = 64 * 1024
"""Largest first frame of a worker (its layers' states)."""

WORKER_DIR_PREFIX = "spadegym-worker-"
"""Each worker's temporary working folder: ``spadegym-worker-<host pid>-<host>-<random>``."""


class SandboxWorker(Operations):
    """One isolated worker process serving many environment instances of one program.

    The process starts on first use and again after it dies or is killed for a hard timeout;
    ``generation`` counts the processes ended, so holders of instance ids can tell theirs are
    gone; ``hard_timeouts`` counts the kills for a call that did not return in time.
    """

    def __init__(self, config: SandboxConfig | None = None):
        self.config = config or SandboxConfig()
        self.generation = 0
        self.hard_timeouts = 0
        self.layers: dict[str, dict[str, Any]] = {}
        self.last_failure = ""
        self._proc: subprocess.Popen[bytes] | None = None
        self._tmp: str | None = None
        self._buf = bytearray()
        self._poll: select.poll | None = None
        self._write_poll: select.poll | None = None

    # -- process life -------------------------------------------------------------------------

    @property
    def alive(self) -> bool:
        """Whether the worker process is running."""
        return self._proc is not None and self._proc.poll() is None

    @property
    def pid(self) -> int | None:
        """The worker process's id, while it runs."""
        return self._proc.pid if self._proc is not None and self.alive else None

    def start(self) -> None:
        """Start the worker process (if not running) and read its isolation report.

        Raises:
            SandboxError: the process could not start, or a required layer is missing.
        """
        if self.alive:
            return
        self._discard()
        # The folder is named after this process, so that the next host to start removes the
        # folders of a host that was killed (and never those of a live one).
        leftovers.remove_dead_once(tempfile.gettempdir(), WORKER_DIR_PREFIX)
        self._tmp = tempfile.mkdtemp(prefix=leftovers.temp_prefix(WORKER_DIR_PREFIX))
        stderr = None if os.environ.get("SPADEGYM_SANDBOX_DEBUG") else subprocess.DEVNULL
        try:
            proc = self._proc = launch.spawner.popen(
                [
                    sys.executable,
                    "-I",
                    "-S",
                    "-c",
                    launch.BOOT,
                    launch.worker_argument(self.config),
                ],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=stderr,
                cwd=self._tmp,
                env=worker_environment(),
                close_fds=True,
                start_new_session=True,
                bufsize=0,
            )
        except OSError as exc:
            self._discard()
            raise SandboxError(
                f"could not start a sandbox worker with {sys.executable}: {exc}"
            ) from exc
        assert proc.stdout is not None and proc.stdin is not None  # both are pipes
        os.set_blocking(proc.stdout.fileno(), False)
        os.set_blocking(proc.stdin.fileno(), False)
        self._poll = select.poll()
        self._poll.register(proc.stdout.fileno(), select.POLLIN | select.POLLHUP)
        self._write_poll = select.poll()
        self._write_poll.register(proc.stdin.fileno(), select.POLLOUT)
        deadline = time.monotonic() + max(self.config.load_timeout, 30.0)
        layers = protocol.read_hello(self._read_frame(deadline))
        if layers is None:
            code = self.kill()
            raise SandboxError(
                f"the sandbox worker failed to start ({self.last_failure or code});"
                " run with SPADEGYM_SANDBOX_DEBUG=1 to see its error output."
            )
        self.layers = layers
        refused = self.refused_layers()
        if refused:
            self.kill()
            raise SandboxError(self._refusal(refused))

    def refused_layers(self) -> list[str]:
        """The inactive layers that keep this worker from running programs (see the config)."""
        missing = [name for name, layer in self.layers.items() if not layer["active"]]
        if self.config.require_isolation:
            return missing
        if self.config.weak_sandbox_allowed():
            return []
        return [name for name in missing if name in REQUIRED_LAYERS]

    def _refusal(self, refused: list[str]) -> str:
        details = "; ".join(f"{name}: {self.layers[name]['detail']}" for name in refused)
        if self.config.require_isolation:
            return (
                f"isolation layers not active: {', '.join(refused)} ({details}); run "
                "`spadegym doctor`, or set require_isolation=False to accept the layers "
                "that are active."
            )
        return (
            f"the sandbox's {' and '.join(refused)} layer is not active here ({details}), and "
            "generated code does not run without it. Run `spadegym doctor` to see how to "
            "enable it, or accept a weaker sandbox with SandboxConfig(allow_weak_sandbox=True) "
            f"or {WEAK_SANDBOX_ENV}=1."
        )

    def peak_memory_mb(self) -> float | None:
        """The worker's peak resident memory (VmHWM) in MiB, where /proc tells it."""
        pid = self.pid
        if pid is None:
            return None
        try:
            with open(f"/proc/{pid}/status", encoding="ascii") as status:
                for line in status:
                    if line.startswith("VmHWM:"):
                        return int(line.split()[1]) / 1024
        except OSError:
            return None
        return None

    def close(self) -> None:
        """Stop the worker process and remove its temporary folder."""
        if self._proc is not None and self._proc.poll() is None:
            try:
                if self._proc.stdin is not None:
                    self._proc.stdin.close()
                self._proc.wait(timeout=1.0)
            except (OSError, subprocess.TimeoutExpired):
                pass
        self.kill()

    def kill(self) -> int | None:
        """Stop the worker process at once (no graceful exit) and remove its folder.

        Returns:
            The process's exit status, or ``None`` if there was no process or it did not end.
        """
        code = None
        if self._proc is not None:
            self.generation += 1  # every instance in the process is gone with it
            if self._proc.poll() is None:
                try:
                    os.killpg(self._proc.pid, signal.SIGKILL)
                except (ProcessLookupError, PermissionError):
                    self._proc.kill()
            try:
                code = self._proc.wait(timeout=5.0)
            except subprocess.TimeoutExpired:
                code = None
        self._discard()
        return code

    def _discard(self) -> None:
        if self._proc is not None:
            for stream in (self._proc.stdin, self._proc.stdout):
                try:
                    if stream is not None:
                        stream.close()
                except OSError:
                    pass
        self._proc = None
        self._poll = None
        self._write_poll = None
        self._buf.clear()
        if self._tmp is not None:
            shutil.rmtree(self._tmp, ignore_errors=True)
            self._tmp = None

    def __del__(self) -> None:
        try:
            self.kill()
        except Exception:  # interpreter shutdown: nothing sensible left to do
            pass

    # -- frames -------------------------------------------------------------------------------

    def _read_frame(self, deadline: float, spin: bool = True, limit: int = HELLO_BYTES) -> Any:
        """Read one frame before ``deadline``; ``None`` on timeout, EOF or a bad frame.

        A frame whose length prefix is over ``limit`` is refused before its body is read, and
        a large one holding many values before it is decoded (``protocol.few_values``).
        """
        proc, poll = self._proc, self._poll
        assert proc is not None and proc.stdout is not None and poll is not None  # started
        fd = proc.stdout.fileno()
        header = protocol.HEADER_BYTES
        need = None
        spin_until = None if spin else 0.0
        while True:
            if need is None and len(self._buf) >= header:
                need = protocol.frame_length(self._buf)
                if need > limit:
                    self.last_failure = f"a response frame of {need} bytes (the limit is {limit})"
                    return None
            if need is not None and len(self._buf) >= header + need:
                body = bytes(self._buf[header : header + need])
                del self._buf[: header + need]
                if need > protocol.LARGE_FRAME_BYTES and not protocol.few_values(body):
                    self.last_failure = f"a response frame of {need} bytes holding many values"
                    return None
                try:
                    return protocol.decode(body)
                except ValueError as exc:
                    self.last_failure = f"an undecodable frame ({str(exc)[:100]})"
                    return None
            try:
                chunk = os.read(fd, 1 << 20)
            except BlockingIOError:
                # Spin briefly before sleeping in poll(): a step answers in tens of
                # microseconds, and waking up from poll() costs about as much again.
                now = time.perf_counter()
                if spin_until is None:
                    spin_until = now + SPIN_SECONDS
                if now < spin_until:
                    continue
                remaining = deadline - time.monotonic()
                if remaining <= 0 or not poll.poll(max(1, int(remaining * 1000))):
                    self.last_failure = "timeout"
                    return None
                continue
            except OSError as exc:
                self.last_failure = f"the pipe failed ({exc})"
                return None
            if not chunk:
                self.last_failure = "the worker exited"
                return None
            self._buf += chunk

    def _write(self, data: bytes, deadline: float) -> bool:
        """Write all of ``data`` before ``deadline``; False if the worker stopped reading."""
        proc, poll = self._proc, self._write_poll
        assert proc is not None and proc.stdin is not None and poll is not None  # started
        fd = proc.stdin.fileno()
        view = memoryview(data)
        while view:
            try:
                view = view[os.write(fd, view) :]
            except BlockingIOError:
                remaining = deadline - time.monotonic()
                if remaining <= 0 or not poll.poll(max(1, int(remaining * 1000))):
                    self.last_failure = "timeout"
                    return False
            except OSError as exc:
                self.last_failure = f"the worker exited ({exc.strerror})"
                return False
        return True

    def exchange(self, requests: Sequence[Request]) -> list[Answer]:
        """Send the requests in one frame, then read one answer each (see ``_Operations``)."""
        if not requests:
            return []
        failed = self.send(requests)
        return list(failed) if failed is not None else self.receive(requests)

    def send(self, requests: Sequence[Request]) -> list[ProgramError] | None:
        """Write the requests (one frame, or several where one would be too large).

        Returns:
            None when sent; else one ``ProgramError`` per request (the worker was dead, or
            did not read within the deadline and was killed).

        Raises:
            SandboxError: the worker could not be started, or a request cannot be encoded.
        """
        if self._proc is None:
            self.start()
        try:
            frames = protocol.request_frames(requests)
        except (ValueError, TypeError, RecursionError) as exc:
            raise SandboxError(f"could not encode a request: {exc}") from exc
        longest = max(self.config.deadline(r.get("op")) for r in requests)
        deadline = time.monotonic() + longest + self.config.kill_grace
        for frame in frames:
            if not self._write(frame, deadline):
                return [self._failure(requests[0], writing=True)] * len(requests)
        return None

    def receive(
        self, requests: Sequence[Request], spin: bool = True, since: float | None = None
    ) -> list[Answer]:
        """Read one answer per request; after a hard failure the rest come back as lost.

        Args:
            requests: the requests sent, in order.
            spin: poll the pipe briefly before sleeping (for one worker on a spare core).
            since: when the requests were sent (``time.monotonic()``): the first answer's
                deadline counts from then, so time spent waiting on other workers first is
                not given to this one again (default: now).
        """
        answers: list[Answer] = []
        limits: dict[Any, tuple[float, int]] = {}  # by what is called: seconds, answer bytes
        start = since
        for request in requests:
            called = protocol.call_name(request)
            limit = limits.get(called)
            if limit is None:
                limit = limits[called] = (
                    self.config.deadline(request.get("op")) + self.config.kill_grace,
                    protocol.answer_limit(request),
                )
            now = time.monotonic()
            begin = now if start is None else min(start, now)
            start = None  # later answers: each has its own deadline from the one before
            frame = self._read_frame(begin + limit[0], spin, limit[1])
            answer = protocol.read_answer(frame) if frame is not None else None
            if answer is None:
                if frame is not None:
                    self.last_failure = "a malformed answer"
                answers.append(self._failure(request))
                break
            answers.append(answer)
        lost = ProgramError(
            "not run: another call in the same batch broke the worker, which was "
            "restarted; reset this environment.",
            "lost",
        )
        answers += [lost] * (len(requests) - len(answers))
        return answers

    def _failure(self, request: Request, writing: bool = False) -> ProgramError:
        """Kill the worker after a hard timeout, a crash or a bad frame; describe what happened."""
        what = protocol.call_name(request)
        reason = self.last_failure
        running = self._proc is not None and self._proc.poll() is None  # killed by us, below
        code = self.kill()
        if reason == "timeout":
            self.hard_timeouts += 1
            if writing:
                return ProgramError(
                    "the worker did not read its request within the deadline; it was killed "
                    "and will restart.",
                    "timeout",
                )
            return ProgramError(
                f"{what}() did not return within the deadline and could not be "
                "interrupted; the worker was killed and restarted.",
                "timeout",
            )
        if code is not None and code < 0 and not (running and reason.startswith(_BROKE_PROTOCOL)):
            try:
                name = signal.Signals(-code).name
            except ValueError:
                name = str(-code)
            return ProgramError(
                f"the worker died with signal {name} during {what}() (a memory "
                "or CPU limit, or a crash); it will restart.",
                "crash",
            )
        if writing or reason.startswith("the worker exited"):
            return ProgramError(
                f"the sandbox worker had died (exit {code}) before {what}(); it will restart.",
                "crash",
            )
        return ProgramError(
            f"the worker broke the protocol during {what}() ({reason}); it was "
            "killed and will restart.",
            "crash",
        )


Worker = SandboxWorker | InProcessWorker
"""Either kind of worker: both offer ``exchange`` and the operations."""


def exchange_many(items: Sequence[tuple[Worker, Request]]) -> list[Answer]:
    """Send every request, each worker's in one message, then read the answers.

    All workers compute at once; the answers come back in the order of ``items``.
    """
    answers: list[Answer | None] = [None] * len(items)
    groups: dict[int, list[int]] = {}
    for position, (worker, _) in enumerate(items):
        groups.setdefault(id(worker), []).append(position)
    sent: list[tuple[Worker, list[int], list[Request], list[ProgramError] | None]] = []
    for positions in groups.values():
        worker = items[positions[0]][0]
        requests = [items[p][1] for p in positions]
        failed = worker.send(requests) if isinstance(worker, SandboxWorker) else None
        sent.append((worker, positions, requests, failed))
    for worker, positions, requests, failed in sent:
        replies: Sequence[Answer]
        if failed is not None:
            replies = failed
        elif isinstance(worker, SandboxWorker):
            replies = worker.receive(requests, spin=len(sent) < CORES)
        else:
            replies = worker.exchange(requests)
        for position, reply in zip(positions, replies, strict=True):
            answers[position] = reply
    return answers  # type: ignore[return-value]


__all__ = [
    "Answer",
    "InProcessWorker",
    "ProgramInfo",
    "SandboxWorker",
    "StepResult",
    "Worker",
    "answer_or_error",
    "answer_value",
    "exchange_many",
    "worker_environment",
]
