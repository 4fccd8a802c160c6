"""The isolation layers a worker process puts around itself before it runs any program.

What this covers: resource limits (address space, CPU time, file size 0, open files, no core
dumps), an empty network namespace, dropping root to ``nobody``, and a seccomp filter that
makes process creation, sockets, signals to other processes, and opening or changing files fail
with ``EPERM``. Layers are applied in that order, each after everything the worker needs has
been imported, so a program can only compute and answer over its pipe.

What this does not cover: CPU cache side channels, kernel bugs reachable through the allowed
system calls, and reading files already open in the worker (it keeps only its pipes). Where a
layer cannot be applied (no libseccomp, no namespaces), the worker reports it and
``SandboxConfig.require_isolation`` decides whether that is fatal. The restricted policy
(``spadegym.policy``) runs inside this boundary; it is the first filter, not the boundary.
"""

from __future__ import annotations

import ctypes
import errno
import os
import resource
import signal

CLONE_NEWUSER = 0x10000000
CLONE_NEWNET = 0x40000000
NOBODY = 65534

DENIED_SYSCALLS: tuple[str, ...] = (
    # process creation and replacement
    "fork",
    "vfork",
    "clone",
    "clone3",
    "execve",
    "execveat",
    # network
    "socket",
    "socketpair",
    "connect",
    "bind",
    "listen",
    "accept",
    "accept4",
    # files: opening, creating, changing
    "open",
    "openat",
    "openat2",
    "creat",
    "open_by_handle_at",
    "name_to_handle_at",
    "mkdir",
    "mkdirat",
    "mknod",
    "mknodat",
    "unlink",
    "unlinkat",
    "rmdir",
    "rename",
    "renameat",
    "renameat2",
    "link",
    "linkat",
    "symlink",
    "symlinkat",
    "truncate",
    "chmod",
    "fchmod",
    "fchmodat",
    "chown",
    "fchown",
    "fchownat",
    "lchown",
    "memfd_create",
    # other processes and the kernel
    "kill",
    "tkill",
    "tgkill",
    "rt_sigqueueinfo",
    "rt_tgsigqueueinfo",
    "pidfd_open",
    "pidfd_send_signal",
    "pidfd_getfd",
    "ptrace",
    "process_vm_readv",
    "process_vm_writev",
    "unshare",
    "setns",
    "mount",
    "umount2",
    "pivot_root",
    "chroot",
    "bpf",
    "perf_event_open",
    "userfaultfd",
    "keyctl",
    "add_key",
    "request_key",
    "init_module",
    "finit_module",
    "delete_module",
    "io_uring_setup",
    "io_uring_enter",
    "io_uring_register",
    "setuid",
    "setgid",
    "setreuid",
    "setregid",
    "setresuid",
    "setresgid",
    "setgroups",
    "reboot",
    "swapon",
    "swapoff",
    "sethostname",
    "setdomainname",
    "settimeofday",
    "clock_settime",
    "adjtimex",
    "acct",
    "quotactl",
)
"""System calls that fail with EPERM once the filter is loaded."""


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
    return f"as={memory_mb}MiB cpu={cpu_seconds}s fsize=0 nofile={max_open_files} core=0"


def enter_network_namespace() -> tuple[bool, str]:
    """Move the worker into a new, empty network namespace (only a down loopback)."""
    libc = ctypes.CDLL(None, use_errno=True)
    for flags, how in (
        (CLONE_NEWNET, "unshare(CLONE_NEWNET)"),
        (CLONE_NEWUSER | CLONE_NEWNET, "unshare(CLONE_NEWUSER|CLONE_NEWNET)"),
    ):
        if libc.unshare(flags) == 0:
            return True, how
        failure = os.strerror(ctypes.get_errno())
    return False, f"unshare failed ({failure}); no root and no user namespaces"


def drop_privileges() -> tuple[bool, str]:
    """If running as root, become ``nobody`` with no supplementary groups."""
    if os.geteuid() != 0:
        return True, f"not root (uid {os.geteuid()})"
    try:
        os.setgroups([])
        os.setresgid(NOBODY, NOBODY, NOBODY)
        os.setresuid(NOBODY, NOBODY, NOBODY)
    except OSError as exc:
        return False, f"could not drop root: {exc}"
    return True, "root dropped to nobody"


SCMP_ACT_ALLOW = 0x7FFF0000
SCMP_ACT_ERRNO = 0x00050000


def libseccomp() -> ctypes.CDLL | None:
    """Libseccomp through ctypes (no ``ctypes.util.find_library``: it runs ``ldconfig``)."""
    for name in ("libseccomp.so.2", "libseccomp.so"):
        try:
            lib = ctypes.CDLL(name, use_errno=True)
        except OSError:
            continue
        lib.seccomp_init.restype = ctypes.c_void_p
        lib.seccomp_init.argtypes = [ctypes.c_uint32]
        lib.seccomp_syscall_resolve_name.restype = ctypes.c_int
        lib.seccomp_syscall_resolve_name.argtypes = [ctypes.c_char_p]
        lib.seccomp_load.argtypes = [ctypes.c_void_p]
        lib.seccomp_release.argtypes = [ctypes.c_void_p]
        return lib
    return None


def load_seccomp(lib: ctypes.CDLL | None = None) -> tuple[bool, str]:
    """Load the seccomp filter of ``DENIED_SYSCALLS`` (EPERM), allowing everything else."""
    lib = lib or libseccomp()
    if lib is None:
        return False, "libseccomp is not installed (apt-get install libseccomp2)"
    ctx = lib.seccomp_init(SCMP_ACT_ALLOW)
    if not ctx:
        return False, "seccomp_init failed"
    try:
        denied = 0
        action = ctypes.c_uint32(SCMP_ACT_ERRNO | errno.EPERM)
        for name in DENIED_SYSCALLS:
            number = lib.seccomp_syscall_resolve_name(name.encode())
            if number < 0:
                continue  # a system call this architecture does not have
            # seccomp_rule_add is variadic: pass every argument with its exact C type.
            if (
                lib.seccomp_rule_add(
                    ctypes.c_void_p(ctx), action, ctypes.c_int(number), ctypes.c_uint(0)
                )
                == 0
            ):
                denied += 1
        code = lib.seccomp_load(ctx)
    finally:
        lib.seccomp_release(ctx)
    if code != 0:
        return False, f"seccomp_load failed ({os.strerror(-code)})"
    return True, f"{denied} system calls denied"
