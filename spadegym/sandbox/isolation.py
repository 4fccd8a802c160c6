"""The isolation layers a worker process puts around itself before it runs any program.

What this covers, in the order the worker applies them (``worker.prepare``):

- **pdeathsig**: the worker is SIGKILLed the moment its host dies (``PR_SET_PDEATHSIG``, set
  again after every change of credentials, which clears it; the program cannot unset it).
- **rlimits**: address space, lifetime CPU time, file size 0, open files, no core dumps; and
  each call has its own CPU limit (``runtime``), so a worker whose host is gone stops anyway.
- **network** and **ipc**: an empty network namespace (only a down loopback) and a private IPC
  namespace (no SysV shared memory, queues or semaphores, nor POSIX queues, of the host's).
- **filesystem** (``filesystem``): Landlock, reads only below the Python installation and
  spadegym's packages and no writes anywhere; else a mount namespace where every mount is
  read-only.
- **privileges**: root becomes a uid of the worker's own (``WORKER_UID_BASE`` + its pid), with
  the group ``nobody`` and no others, so the kernel refuses it every other process: the host
  and other workers, of this host process or another.
- **seccomp** (``seccomp``): process creation, sockets, opening or changing files (contents,
  names, modes, owners, times, extended attributes), IPC, file watching, mounts, namespaces,
  signals to other processes, tracing, keyrings, BPF, io_uring, scheduling and the other calls
  of ``seccomp.DENIED_SYSCALLS`` fail with ``EPERM``; so do ``prlimit64`` on another process
  and setting a signal owner on a file (``fcntl`` ``F_SETOWN``/``F_SETOWN_EX``/``F_SETSIG``,
  ``O_ASYNC``, and their ``ioctl`` forms): ``seccomp.DENIED_WITH_ARGUMENTS``.

Each layer comes after everything the worker needs has been imported, so a program can only
compute and answer over its pipe. The restricted policy (``spadegym.policy``) runs inside this
boundary; it is the first filter, not the boundary.

What this does not cover: CPU cache and timing side channels, kernel bugs reachable through
the allowed system calls, reading metadata of host files (``stat`` works where a path is
known), reading files already open in the worker (it keeps only its pipes), and the host's
own use of a program's answers (they are checked values, nothing more). Where a layer cannot
be applied the worker reports it; the host refuses to run programs without the network and
privilege layers unless ``SandboxConfig.allow_weak_sandbox`` (or ``require_isolation`` makes
every layer required).
"""

from __future__ import annotations

import ctypes
import os
import resource
import signal

from spadegym.sandbox.seccomp import DENIED_SYSCALLS, libseccomp, load_seccomp

__all__ = [
    "DENIED_SYSCALLS",
    "apply_rlimits",
    "drop_privileges",
    "enter_namespaces",
    "libseccomp",
    "load_seccomp",
    "set_parent_death_signal",
]

CLONE_NEWNS = 0x00020000
CLONE_NEWIPC = 0x08000000
CLONE_NEWUSER = 0x10000000
CLONE_NEWNET = 0x40000000
NOBODY = 65534
WORKER_UID_BASE = 1 << 30
"""A worker started as root takes uid ``WORKER_UID_BASE + its pid``: pids are unique among
live processes, so no two workers (of any host) share a uid, and the range is far above the
uids of real users."""
PR_SET_PDEATHSIG = 1
PR_GET_PDEATHSIG = 2
ORPHANED_EXIT = 70
"""Exit status of a worker that found its host gone while starting."""


def apply_rlimits(memory_mb: int, cpu_seconds: int, max_open_files: int) -> str:
    """Set the worker's resource limits; returns a one-line description."""
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past RLIMIT_FSIZE fails, not kills
    limits = {
        resource.RLIMIT_AS: memory_mb * 1024 * 1024,
        resource.RLIMIT_CPU: cpu_seconds,
        resource.RLIMIT_FSIZE: 0,
        resource.RLIMIT_NOFILE: max_open_files,
        resource.RLIMIT_CORE: 0,
    }
    for which, value in limits.items():
        resource.setrlimit(which, (value, value))
    return (
        f"as={memory_mb}MiB cpu={cpu_seconds}s (and per call) fsize=0 "
        f"nofile={max_open_files} core=0"
    )


def set_parent_death_signal(host_pid: int) -> tuple[bool, str]:
    """Be SIGKILLed when the host dies; exit at once if it already has.

    The host may die between our start and this call, and then the signal never comes: the
    parent is checked after setting it. Any change of credentials clears the setting, so the
    worker calls this again after dropping root.
    """
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) != 0:
        return False, f"prctl(PR_SET_PDEATHSIG) failed ({os.strerror(ctypes.get_errno())})"
    if os.getppid() != host_pid:
        os._exit(ORPHANED_EXIT)
    current = ctypes.c_int(0)
    libc.prctl(PR_GET_PDEATHSIG, ctypes.byref(current), 0, 0, 0)
    if current.value != signal.SIGKILL:
        return False, f"the parent-death signal reads {current.value}, not SIGKILL"
    return True, f"SIGKILL when the host (pid {host_pid}) dies"


def enter_namespaces(network: bool, mount: bool) -> dict[str, tuple[bool, str]]:
    """Enter new network and IPC namespaces (if ``network``) and a mount one (if ``mount``).

    As root this is one ``unshare``; otherwise a user namespace is needed for it.

    Returns:
        ``{"network": ..., "ipc": ..., "mount": ...}`` for the namespaces asked for, each
        ``(active, detail)``.
    """
    wanted = {}
    if network:
        wanted["network"] = CLONE_NEWNET
        wanted["ipc"] = CLONE_NEWIPC
    if mount:
        wanted["mount"] = CLONE_NEWNS
    if not wanted:
        return {}
    libc = ctypes.CDLL(None, use_errno=True)
    flags = 0
    for flag in wanted.values():
        flags |= flag
    failure = ""
    for extra, how in ((0, "unshare"), (CLONE_NEWUSER, "unshare with a user namespace")):
        if libc.unshare(flags | extra) == 0:
            return {name: (True, f"new {name} namespace ({how})") for name in wanted}
        failure = os.strerror(ctypes.get_errno())
    # All at once failed: try each alone, so that what can be had is had.
    results = {}
    for name, flag in wanted.items():
        if libc.unshare(flag) == 0 or libc.unshare(flag | CLONE_NEWUSER) == 0:
            results[name] = (True, f"new {name} namespace (unshare)")
        else:
            results[name] = (False, f"unshare failed ({failure}); no root and no user namespaces")
    return results


def worker_uid(pid: int | None = None) -> int:
    """The uid a worker started as root takes: its own, shared with no other live process."""
    return WORKER_UID_BASE + (os.getpid() if pid is None else pid)


def drop_privileges() -> tuple[bool, str]:
    """If running as root, take a uid of this worker's own, with no supplementary groups.

    A uid no other process has means the kernel's own checks refuse this worker every other
    process: signals (``kill``, and the ``fcntl`` owner signals of ``O_ASYNC``), ``prlimit``,
    ``setpriority``, ``ptrace``, ``process_vm_readv``, ``/proc/<pid>`` of others, even where
    seccomp is off. Where that uid cannot be had (a user namespace that maps few uids), the
    worker becomes ``nobody``, which its sibling workers share, and says so.
    """
    if os.geteuid() != 0:
        return True, f"not root (uid {os.geteuid()}; other workers of this host share it)"
    try:
        os.setgroups([])
        os.setresgid(NOBODY, NOBODY, NOBODY)
    except OSError as exc:
        return False, f"could not drop root: {exc}"
    uid = worker_uid()
    try:
        os.setresuid(uid, uid, uid)
        return True, f"root dropped to uid {uid}, this worker's own"
    except OSError:
        pass
    try:
        os.setresuid(NOBODY, NOBODY, NOBODY)
    except OSError as exc:
        return False, f"could not drop root: {exc}"
    return True, f"root dropped to nobody (uid {uid} is not mapped here; workers share nobody)"
