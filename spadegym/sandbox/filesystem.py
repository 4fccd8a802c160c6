"""The filesystem layer: Landlock where the kernel has it, else read-only mounts.

Landlock (Linux 5.13+) confines the worker for good: it may read files below a few folders
(the Python installation's standard library and spadegym's and RestrictedPython's packages) and
write, create, remove or rename nothing anywhere; on newer kernels (ABI 4+, 6+) it may also not
bind or connect TCP sockets nor signal processes outside itself. Without Landlock the worker
enters a private mount namespace and remounts every mount read-only there (this needs root or
user namespaces, and leaves reads open). Both hold even when seccomp is off or escaped, which is
why they exist: seccomp already refuses to open files.
"""

from __future__ import annotations

import ctypes
import os

SYS_LANDLOCK_CREATE_RULESET = 444  # the same number on every architecture
SYS_LANDLOCK_ADD_RULE = 445
SYS_LANDLOCK_RESTRICT_SELF = 446
LANDLOCK_CREATE_RULESET_VERSION = 1
LANDLOCK_RULE_PATH_BENEATH = 1
PR_SET_NO_NEW_PRIVS = 38

ACCESS_FS_READ_FILE = 1 << 2
ACCESS_FS_READ_DIR = 1 << 3
_ACCESS_FS_V1 = (1 << 13) - 1  # execute, write, read, remove, make_* of every kind
_ACCESS_FS_REFER = 1 << 13  # ABI 2
_ACCESS_FS_TRUNCATE = 1 << 14  # ABI 3
_ACCESS_FS_IOCTL_DEV = 1 << 15  # ABI 5
_ACCESS_NET_ALL = (1 << 0) | (1 << 1)  # bind and connect TCP, ABI 4
_SCOPE_ALL = (1 << 0) | (1 << 1)  # abstract unix sockets and signals, ABI 6

CLONE_NEWNS = 0x00020000
MS_RDONLY = 1
MS_NOSUID = 2
MS_NODEV = 4
MS_NOEXEC = 8
MS_REMOUNT = 32
MS_NOATIME = 1024
MS_NODIRATIME = 2048
MS_BIND = 4096
MS_REC = 16384
MS_PRIVATE = 1 << 18
MS_RELATIME = 1 << 21
MS_STRICTATIME = 1 << 24
_MOUNT_FLAGS = {
    "nosuid": MS_NOSUID,
    "nodev": MS_NODEV,
    "noexec": MS_NOEXEC,
    "noatime": MS_NOATIME,
    "nodiratime": MS_NODIRATIME,
    "relatime": MS_RELATIME,
    "strictatime": MS_STRICTATIME,
}


class _RulesetAttr(ctypes.Structure):
    _fields_ = [
        ("handled_access_fs", ctypes.c_uint64),
        ("handled_access_net", ctypes.c_uint64),
        ("scoped", ctypes.c_uint64),
    ]


class _PathBeneath(ctypes.Structure):
    _pack_ = 1
    _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


def _libc() -> ctypes.CDLL:
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    return libc


def landlock_abi() -> int:
    """The kernel's Landlock ABI version, 0 where it has none (or has it disabled)."""
    libc = _libc()
    version = libc.syscall(
        ctypes.c_long(SYS_LANDLOCK_CREATE_RULESET),
        ctypes.c_void_p(None),
        ctypes.c_size_t(0),
        ctypes.c_uint32(LANDLOCK_CREATE_RULESET_VERSION),
    )
    return max(0, int(version))


def apply_landlock(read_dirs: list[str], abi: int | None = None) -> tuple[bool, str]:
    """Allow reading below ``read_dirs`` only, and no writes anywhere, for good.

    Args:
        read_dirs: folders whose files the worker may still read.
        abi: the kernel's Landlock ABI (asked when None).
    """
    abi = landlock_abi() if abi is None else abi
    if abi < 1:
        return False, "the kernel has no Landlock (Linux 5.13+ with lsm=landlock)"
    libc = _libc()
    fs = _ACCESS_FS_V1
    if abi >= 2:
        fs |= _ACCESS_FS_REFER
    if abi >= 3:
        fs |= _ACCESS_FS_TRUNCATE
    if abi >= 5:
        fs |= _ACCESS_FS_IOCTL_DEV
    attr = _RulesetAttr(fs, _ACCESS_NET_ALL if abi >= 4 else 0, _SCOPE_ALL if abi >= 6 else 0)
    size = 8 if abi < 4 else 16 if abi < 6 else 24  # the struct as this ABI knows it
    ruleset = libc.syscall(
        ctypes.c_long(SYS_LANDLOCK_CREATE_RULESET),
        ctypes.byref(attr),
        ctypes.c_size_t(size),
        ctypes.c_uint32(0),
    )
    if ruleset < 0:
        return False, f"landlock_create_ruleset failed ({os.strerror(ctypes.get_errno())})"
    try:
        for folder in read_dirs:
            fd = os.open(folder, os.O_PATH | os.O_CLOEXEC)
            try:
                rule = _PathBeneath(ACCESS_FS_READ_FILE | ACCESS_FS_READ_DIR, fd)
                if (
                    libc.syscall(
                        ctypes.c_long(SYS_LANDLOCK_ADD_RULE),
                        ctypes.c_int(ruleset),
                        ctypes.c_int(LANDLOCK_RULE_PATH_BENEATH),
                        ctypes.byref(rule),
                        ctypes.c_uint32(0),
                    )
                    != 0
                ):
                    return False, (
                        f"landlock_add_rule({folder}) failed ({os.strerror(ctypes.get_errno())})"
                    )
            finally:
                os.close(fd)
        if libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
            return False, f"PR_SET_NO_NEW_PRIVS failed ({os.strerror(ctypes.get_errno())})"
        if (
            libc.syscall(
                ctypes.c_long(SYS_LANDLOCK_RESTRICT_SELF), ctypes.c_int(ruleset), ctypes.c_uint32(0)
            )
            != 0
        ):
            return False, f"landlock_restrict_self failed ({os.strerror(ctypes.get_errno())})"
    finally:
        os.close(ruleset)
    extra = (", no TCP" if abi >= 4 else "") + (", no signals out" if abi >= 6 else "")
    return True, f"Landlock ABI {abi}: reads below {len(read_dirs)} folders, no writes{extra}"


def remount_read_only() -> tuple[bool, str]:
    """In a mount namespace entered already: make every mount read-only (and private)."""
    libc = _libc()
    if libc.mount(None, b"/", None, ctypes.c_ulong(MS_REC | MS_PRIVATE), None) != 0:
        return False, f"making mounts private failed ({os.strerror(ctypes.get_errno())})"
    with open("/proc/self/mountinfo", encoding="utf-8", errors="surrogateescape") as table:
        rows = table.read().splitlines()
    failed = []
    for row in rows:
        fields = row.split(" ")
        point = _unescape(fields[4])
        flags = MS_REMOUNT | MS_BIND | MS_RDONLY
        for option in fields[5].split(","):  # locked flags must be kept, or the call fails
            flags |= _MOUNT_FLAGS.get(option, 0)
        path = os.fsencode(point)
        if libc.mount(None, path, None, ctypes.c_ulong(flags), None) != 0:
            failed.append(f"{point} ({os.strerror(ctypes.get_errno())})")
    if failed:
        return False, f"could not remount read-only: {', '.join(failed[:3])}"
    return True, f"private mount namespace, {len(rows)} mounts read-only (reads not limited)"


def _unescape(field: str) -> str:
    """A mountinfo path: spaces, tabs, newlines and backslashes come as octal escapes."""
    for code in ("\\040", "\\011", "\\012", "\\134"):
        field = field.replace(code, chr(int(code[1:], 8)))
    return field
