"""The seccomp layer: system calls a worker may not make once it serves programs.

The filter allows everything a computing Python process needs and makes the calls below fail
with ``EPERM``; calls of another architecture's table (``int 0x80``, x32) kill the process
(libseccomp's default for a foreign architecture). Libseccomp is used through ctypes.
"""

from __future__ import annotations

import ctypes
import errno
import os

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
    # files: opening, creating, changing (contents, names, modes, owners, times, attributes)
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
    "fchmodat2",
    "chown",
    "fchown",
    "fchownat",
    "lchown",
    "utime",
    "utimes",
    "utimensat",
    "futimesat",
    "setxattr",
    "lsetxattr",
    "fsetxattr",
    "setxattrat",
    "removexattr",
    "lremovexattr",
    "fremovexattr",
    "removexattrat",
    "memfd_create",
    "memfd_secret",
    # watching the host's files
    "inotify_init",
    "inotify_init1",
    "inotify_add_watch",
    "inotify_rm_watch",
    "fanotify_init",
    "fanotify_mark",
    # inter-process communication: SysV shared memory, queues, semaphores; POSIX queues
    "shmget",
    "shmat",
    "shmdt",
    "shmctl",
    "msgget",
    "msgsnd",
    "msgrcv",
    "msgctl",
    "semget",
    "semop",
    "semtimedop",
    "semctl",
    "mq_open",
    "mq_unlink",
    "mq_timedsend",
    "mq_timedreceive",
    "mq_notify",
    "mq_getsetattr",
    # other processes
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
    "process_madvise",
    "process_mrelease",
    "kcmp",
    "get_robust_list",
    "migrate_pages",
    "move_pages",
    # changing our own signal handlers (the soft deadline and the CPU limit are signals)
    "rt_sigaction",
    # scheduling and placement (pinning is the first step of many side channels)
    "sched_setaffinity",
    "sched_setscheduler",
    "sched_setparam",
    "sched_setattr",
    "setpriority",
    "ioprio_set",
    "mbind",
    "set_mempolicy",
    "set_mempolicy_home_node",
    # namespaces, mounts and the root
    "unshare",
    "setns",
    "mount",
    "umount",
    "umount2",
    "pivot_root",
    "chroot",
    "open_tree",
    "open_tree_attr",
    "move_mount",
    "fsopen",
    "fsconfig",
    "fsmount",
    "fspick",
    "mount_setattr",
    "listmount",
    "statmount",
    # the kernel and its facilities
    "bpf",
    "perf_event_open",
    "userfaultfd",
    "keyctl",
    "add_key",
    "request_key",
    "init_module",
    "finit_module",
    "delete_module",
    "kexec_load",
    "kexec_file_load",
    "io_uring_setup",
    "io_uring_enter",
    "io_uring_register",
    "personality",
    "modify_ldt",
    "iopl",
    "ioperm",
    "syslog",
    "vhangup",
    "lookup_dcookie",
    "uselib",
    "ustat",
    "sysfs",
    "_sysctl",
    "nfsservctl",
    "lsm_set_self_attr",
    # identity
    "setuid",
    "setgid",
    "setreuid",
    "setregid",
    "setresuid",
    "setresgid",
    "setfsuid",
    "setfsgid",
    "setgroups",
    "capset",
    # the machine
    "reboot",
    "swapon",
    "swapoff",
    "sethostname",
    "setdomainname",
    "settimeofday",
    "clock_settime",
    "clock_adjtime",
    "adjtimex",
    "acct",
    "quotactl",
    "quotactl_fd",
)
"""System calls that fail with EPERM once the filter is loaded (names this kernel's
architecture does not have are skipped)."""

PR_SET_PDEATHSIG = 1
TIOCSTI = 0x5412
TIOCLINUX = 0x541C
FIOASYNC = 0x5452
FIOSETOWN = 0x8901
SIOCSPGRP = 0x8902
F_SETFL = 4
F_SETOWN = 8
F_SETSIG = 10
F_SETOWN_EX = 15
O_ASYNC = 0o20000

SCMP_CMP_NE = 1
SCMP_CMP_MASKED_EQ = 7
_LOW_32 = 0xFFFFFFFF


def _equals(index: int, value: int) -> tuple[int, int, int, int]:
    """Argument ``index`` equals ``value`` (on its low 32 bits: the kernel reads an int)."""
    return (index, SCMP_CMP_MASKED_EQ, _LOW_32, value)


DENIED_WITH_ARGUMENTS: tuple[tuple[str, str, tuple[tuple[int, int, int, int], ...]], ...] = (
    # The worker must die with its host: keep SIGKILL.
    ("prctl", "PR_SET_PDEATHSIG", (_equals(0, PR_SET_PDEATHSIG),)),
    # Typing into a terminal the worker's stderr may share.
    ("ioctl", "TIOCSTI", (_equals(1, TIOCSTI),)),
    ("ioctl", "TIOCLINUX", (_equals(1, TIOCLINUX),)),
    # Asynchronous I/O signals: an owner set on the worker's own pipes makes the kernel
    # signal that owner (any process, SIGKILL included) whenever the host reads or writes.
    ("fcntl", "F_SETOWN", (_equals(1, F_SETOWN),)),
    ("fcntl", "F_SETOWN_EX", (_equals(1, F_SETOWN_EX),)),
    ("fcntl", "F_SETSIG", (_equals(1, F_SETSIG),)),
    (
        "fcntl",
        "F_SETFL with O_ASYNC",
        (_equals(1, F_SETFL), (2, SCMP_CMP_MASKED_EQ, O_ASYNC, O_ASYNC)),
    ),
    ("ioctl", "FIOASYNC", (_equals(1, FIOASYNC),)),
    ("ioctl", "FIOSETOWN", (_equals(1, FIOSETOWN),)),
    ("ioctl", "SIOCSPGRP", (_equals(1, SIOCSPGRP),)),
    # The limits of another process (the worker's own, pid 0, stay readable).
    ("prlimit64", "another process", ((0, SCMP_CMP_NE, 0, 0),)),
)
"""``(system call, what, comparisons)``: the call fails with EPERM when every comparison
``(argument index, operator, mask or datum, datum)`` holds."""

SCMP_ACT_ALLOW = 0x7FFF0000
SCMP_ACT_ERRNO = 0x00050000
SCMP_FLTATR_CTL_OPTIMIZE = 8


class _ArgCmp(ctypes.Structure):
    """``struct scmp_arg_cmp``."""

    _fields_ = [
        ("arg", ctypes.c_uint),
        ("op", ctypes.c_int),
        ("datum_a", ctypes.c_uint64),
        ("datum_b", ctypes.c_uint64),
    ]


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
        lib.seccomp_rule_add_array.restype = ctypes.c_int
        lib.seccomp_rule_add_array.argtypes = [
            ctypes.c_void_p,
            ctypes.c_uint32,
            ctypes.c_int,
            ctypes.c_uint,
            ctypes.POINTER(_ArgCmp),
        ]
        lib.seccomp_attr_set.restype = ctypes.c_int
        lib.seccomp_attr_set.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_uint32]
        lib.seccomp_load.argtypes = [ctypes.c_void_p]
        lib.seccomp_release.argtypes = [ctypes.c_void_p]
        return lib
    return None


def load_seccomp(lib: ctypes.CDLL | None = None) -> tuple[bool, str]:
    """Load the filter: ``DENIED_SYSCALLS`` and ``DENIED_WITH_ARGUMENTS`` fail with EPERM."""
    lib = lib or libseccomp()
    if lib is None:
        return False, "libseccomp is not installed (apt-get install libseccomp2)"
    ctx = lib.seccomp_init(SCMP_ACT_ALLOW)
    if not ctx:
        return False, "seccomp_init failed"
    try:
        # A binary tree of rules: every allowed call (each read and write) passes the filter.
        lib.seccomp_attr_set(ctx, SCMP_FLTATR_CTL_OPTIMIZE, 2)
        action = SCMP_ACT_ERRNO | errno.EPERM
        denied, missing = 0, []
        for name in DENIED_SYSCALLS:
            number = lib.seccomp_syscall_resolve_name(name.encode())
            if number < 0:
                continue  # a system call this architecture (or libseccomp) does not know
            if lib.seccomp_rule_add_array(ctx, action, number, 0, None) == 0:
                denied += 1
            else:
                missing.append(name)
        for name, what, comparisons in DENIED_WITH_ARGUMENTS:
            number = lib.seccomp_syscall_resolve_name(name.encode())
            compare = (_ArgCmp * len(comparisons))(*(_ArgCmp(*c) for c in comparisons))
            if (
                number < 0
                or lib.seccomp_rule_add_array(ctx, action, number, len(comparisons), compare) != 0
            ):
                missing.append(f"{name}({what})")
        if missing:
            return False, f"could not add rules for {', '.join(missing)}"
        code = lib.seccomp_load(ctx)
    finally:
        lib.seccomp_release(ctx)
    if code != 0:
        return False, f"seccomp_load failed ({os.strerror(-code)})"
    return True, (
        f"{denied} system calls denied, and prctl(PR_SET_PDEATHSIG), fcntl and ioctl "
        "signal owners (F_SETOWN, F_SETOWN_EX, F_SETSIG, O_ASYNC, FIOASYNC, FIOSETOWN, "
        "SIOCSPGRP), ioctl(TIOCSTI, TIOCLINUX), prlimit64 on other processes"
    )
