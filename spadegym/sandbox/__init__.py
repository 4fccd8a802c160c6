"""Running untrusted environment programs: isolated worker processes speaking JSON over pipes.

What the sandbox covers. Every program runs in a worker process of its own program (never in the
host, never forked from it) that, before it runs anything, is tied to its host's life (SIGKILL when
the host dies), limits its memory, CPU time (over its life and per call), file size and open files,
enters empty network and IPC namespaces, confines its filesystem (Landlock: reads below the Python
installation and spadegym's packages only, no writes; else read-only mounts), drops root to a uid of
its own (the kernel then refuses it the host and every other worker), and loads a seccomp filter
that refuses process creation, sockets, opening or changing files (times and extended attributes
included), SysV and POSIX IPC, file watching, mounts, namespaces, signals to other processes
(``fcntl``/``ioctl`` signal owners included), ``prlimit`` of others, tracing, keyrings, BPF,
io_uring and scheduling changes (``isolation``). All program code, finalizers and class facts
included, runs under a deadline: a soft one in the worker, a hard kill by the host. Values cross as
JSON with exact type checks on both sides, nothing is unpickled, and every read and write of a pipe
has a deadline; a malformed frame, or one longer than its request's answer can be (refused by its
length prefix, unread), is a ``ProgramError``. One worker serves one program, so programs cannot
tamper with each other. Without the network or privilege layer the host refuses to run programs
unless told otherwise (``SandboxConfig.allow_weak_sandbox`` or ``SPADEGYM_ALLOW_WEAK_SANDBOX=1``);
``spadegym doctor`` shows every layer.

What it does not cover: CPU cache and timing side channels, kernel bugs reachable through the
allowed system calls, metadata of host files (``stat`` of a known path), and whatever the host
does with a program's (checked) answers. ``isolation="none"`` runs programs in the host
process under the restricted policy only: no security at all, for trusted programs.

The request API: ``protocol``'s ``*_request`` functions build requests, ``Worker.exchange``
and ``exchange_many`` send them, ``answer_value``/``answer_or_error`` read the answers.
``Pool`` is the interface of a pool of workers (``SandboxPool`` here, ``RaySandboxPool`` on
Ray). A pool's ``watchdog`` catches programs that change as they run (``watchdog``).
"""

from spadegym.sandbox.client import (
    Answer,
    InProcessWorker,
    ProgramInfo,
    SandboxWorker,
    StepResult,
    Worker,
    answer_or_error,
    answer_value,
    exchange_many,
)
from spadegym.sandbox.config import WEAK_SANDBOX_ENV, SandboxConfig
from spadegym.sandbox.handle import EnvHandle, make_worker
from spadegym.sandbox.interface import Handle, Pool
from spadegym.sandbox.pool import SandboxPool
from spadegym.sandbox.supply import WorkerSupply, fresh_worker
from spadegym.sandbox.watchdog import WatchdogConfig

__all__ = [
    "WEAK_SANDBOX_ENV",
    "Answer",
    "EnvHandle",
    "Handle",
    "InProcessWorker",
    "Pool",
    "ProgramInfo",
    "SandboxConfig",
    "SandboxPool",
    "SandboxWorker",
    "StepResult",
    "WatchdogConfig",
    "Worker",
    "WorkerSupply",
    "answer_or_error",
    "answer_value",
    "exchange_many",
    "fresh_worker",
    "make_worker",
]
