"""The OS layers hold even if a program gets past the policy.

Each test runs plain, unrestricted attack code in a worker process that isolated itself exactly
as a real one does (``sandbox_harness``): the code a policy escape would run. Attacks aim at
canaries this test controls, and the test checks that nothing reached them.
"""

from __future__ import annotations

import ctypes
import errno
import json
import os
import socket
import subprocess
import tempfile
import threading
import time

import pytest
from sandbox_harness import attack_process, run_isolated

from spadegym.sandbox import SandboxWorker, filesystem, seccomp

EVERY_LAYER = {"rlimits", "network", "ipc", "filesystem", "privileges", "pdeathsig", "seccomp"}


@pytest.fixture(scope="module")
def layers() -> dict:
    worker = SandboxWorker()
    worker.start()
    found = worker.layers
    worker.close()
    return found


def require(layers: dict, name: str) -> None:
    if not layers.get(name, {}).get("active"):
        pytest.skip(f"isolation layer {name} is not available here: {layers.get(name)}")


def test_worker_reports_every_layer(layers):
    assert set(layers) == EVERY_LAYER
    for layer in layers.values():
        assert isinstance(layer["active"], bool) and layer["detail"]


@pytest.fixture
def canary_file():
    folder = tempfile.mkdtemp(prefix="spadegym-canary-")
    os.chmod(folder, 0o755)
    path = os.path.join(folder, "secret.txt")
    with open(path, "w") as handle:
        handle.write("CANARY-FILE-CONTENT")
    os.chmod(path, 0o644)
    yield path
    for name in os.listdir(folder):
        os.remove(os.path.join(folder, name))
    os.rmdir(folder)


@pytest.fixture
def open_folder():
    """A folder and a file anyone may write: only the sandbox's layers stand in the way."""
    folder = tempfile.mkdtemp(prefix="spadegym-open-")
    os.chmod(folder, 0o777)
    path = os.path.join(folder, "open.txt")
    with open(path, "w") as handle:
        handle.write("ORIGINAL")
    os.chmod(path, 0o666)
    os.utime(path, (1_000_000, 1_000_000))
    yield folder, path
    for name in os.listdir(folder):
        os.remove(os.path.join(folder, name))
    os.rmdir(folder)


WRITE_ATTACK = """
for name, attempt in [
    ('write', lambda: open({path!r}, 'w').write('x')),
    ('create', lambda: open({folder!r} + '/new.txt', 'w').write('x')),
    ('read_canary', lambda: open({canary!r}).read()),
    ('read_own', lambda: open(__import__('spadegym').__path__[0] + '/contract.py').read(9)),
    ('list_root', lambda: os.listdir('/')),
]:
    try:
        out[name] = repr(attempt())
    except OSError as e:
        out[name] = 'refused: ' + e.strerror
"""


def test_files_cannot_be_read_or_written(layers, canary_file, open_folder):
    require(layers, "seccomp")
    folder, path = open_folder
    result = run_isolated(WRITE_ATTACK.format(path=path, folder=folder, canary=canary_file))
    for name in ("write", "create", "read_canary", "read_own", "list_root"):
        assert result[name] == "refused: Operation not permitted", result
    assert open(path).read() == "ORIGINAL" and os.listdir(folder) == ["open.txt"]


def test_landlock_alone_confines_reads_and_refuses_every_write(canary_file, open_folder):
    if filesystem.landlock_abi() < 1:
        pytest.skip("the kernel has no Landlock")
    folder, path = open_folder
    result = run_isolated(
        WRITE_ATTACK.format(path=path, folder=folder, canary=canary_file),
        seccomp=False,
        filesystem="landlock",
    )
    assert result["layers"]["filesystem"]["active"], result
    for name in ("write", "create", "read_canary", "list_root"):
        assert result[name] == "refused: Permission denied", result
    assert not result["read_own"].startswith("refused")  # spadegym's own files stay readable
    assert open(path).read() == "ORIGINAL" and os.listdir(folder) == ["open.txt"]


def test_read_only_mounts_alone_refuse_every_write(canary_file, open_folder, tmp_path):
    folder, path = open_folder
    result = run_isolated(
        WRITE_ATTACK.format(path=path, folder=folder, canary=canary_file),
        seccomp=False,
        filesystem="mount",
    )
    if not result["layers"]["filesystem"]["active"]:
        pytest.skip(f"no mount namespace here: {result['layers']['filesystem']}")
    assert result["write"] == result["create"] == "refused: Read-only file system", result
    assert open(path).read() == "ORIGINAL" and os.listdir(folder) == ["open.txt"]
    (tmp_path / "host.txt").write_text("the host's mounts stayed writable")


@pytest.mark.parametrize("fs", ["auto", "off"])
def test_times_and_extended_attributes_cannot_change(layers, open_folder, fs):
    require(layers, "seccomp")
    folder, path = open_folder
    result = run_isolated(
        f"""
for name, attempt in [
    ('utime', lambda: os.utime({path!r}, (5, 5))),
    ('utime_now', lambda: os.utime({path!r})),
    ('setxattr', lambda: os.setxattr({path!r}, 'user.spade', b'1')),
    ('removexattr', lambda: os.removexattr({path!r}, 'user.keep')),
]:
    try:
        attempt()
        out[name] = 'done'
    except OSError as e:
        out[name] = 'refused: ' + e.strerror
""",
        filesystem=fs,
    )
    for name in ("utime", "utime_now", "setxattr", "removexattr"):
        assert result[name] == "refused: Operation not permitted", result
    assert os.stat(path).st_mtime == 1_000_000
    assert "user.spade" not in os.listxattr(path)


def _numbers(names: list[str]) -> dict[str, int]:
    lib = seccomp.libseccomp()
    if lib is None:
        pytest.skip("libseccomp is not installed")
    numbers = {name: lib.seccomp_syscall_resolve_name(name.encode()) for name in names}
    return {name: number for name, number in numbers.items() if number >= 0}


RAW_CALLS = """
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
for name, number in {numbers!r}.items():
    ctypes.set_errno(0)
    value = libc.syscall(*[ctypes.c_long(x) for x in [number] + {args!r}])
    out[name] = [value, ctypes.get_errno()]
"""

DANGEROUS = [
    "shmget",
    "shmat",
    "msgget",
    "semget",
    "mq_open",
    "utimensat",
    "futimesat",
    "setxattr",
    "lsetxattr",
    "fsetxattr",
    "removexattr",
    "inotify_init1",
    "inotify_add_watch",
    "fanotify_init",
    "open_tree",
    "move_mount",
    "fsopen",
    "fsmount",
    "memfd_secret",
    "memfd_create",
    "sched_setaffinity",
    "pidfd_open",
    "pidfd_getfd",
    "process_vm_readv",
    "process_vm_writev",
    "ptrace",
    "keyctl",
    "add_key",
    "bpf",
    "userfaultfd",
    "perf_event_open",
    "io_uring_setup",
    "mount",
    "umount2",
    "chroot",
    "pivot_root",
    "setns",
    "unshare",
    "personality",
    "name_to_handle_at",
    "open_by_handle_at",
    "kcmp",
    "rt_sigaction",
    "setpriority",
    "kexec_load",
    "syslog",
]


def test_dangerous_system_calls_are_refused(layers):
    require(layers, "seccomp")
    numbers = _numbers(DANGEROUS)
    result = run_isolated(RAW_CALLS.format(numbers=numbers, args=[0, 0, 0, 0, 0, 0]))
    assert "raised" not in result, result
    allowed = {name: got for name, got in result.items() if name in numbers and got[1] != 1}
    assert not allowed, f"not refused with EPERM: {allowed}"
    assert len(numbers) >= 40


def test_the_death_signal_cannot_be_unset(layers):
    require(layers, "seccomp")
    result = run_isolated("""
libc = ctypes.CDLL(None, use_errno=True)
out['unset'] = [libc.prctl(1, 0, 0, 0, 0), ctypes.get_errno()]
current = ctypes.c_int(0)
libc.prctl(2, ctypes.byref(current), 0, 0, 0)
out['signal'] = current.value
""")
    assert result["unset"] == [-1, errno.EPERM] and result["signal"] == 9, result


def test_ipc_objects_stay_in_the_workers_namespace(layers):
    """Even with seccomp off, SysV and POSIX IPC objects never reach the host's namespace."""
    require(layers, "ipc")
    key = 0x5AD0000 + os.getpid() % 0xFFFF
    queue = f"spadegym-test-{os.getpid()}"
    numbers = _numbers(["mq_open"])
    result = run_isolated(
        f"""
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
out['shm'] = libc.shmget({key}, 4096, 0o1000 | 0o666)
out['msg'] = libc.msgget({key}, 0o1000 | 0o666)
out['sem'] = libc.semget({key}, 1, 0o1000 | 0o666)
out['mq'] = libc.syscall(ctypes.c_long({numbers.get("mq_open", -1)}),
                         ctypes.c_char_p({queue.encode()!r}), ctypes.c_long(0o100 | 2),
                         ctypes.c_long(0o600), ctypes.c_void_p(None))
out['host_shm_seen'] = open('/proc/sysvipc/shm').read().count(' {key} ')
""",
        seccomp=False,
    )
    assert result["shm"] >= 0 and result["msg"] >= 0 and result["sem"] >= 0, result
    for table in ("shm", "msg", "sem"):
        with open(f"/proc/sysvipc/{table}") as listing:
            keys = [row.split()[0] for row in listing.read().splitlines()[1:]]
        assert str(key) not in keys, f"a {table} object reached the host"
    if "mq_open" in numbers and result["mq"] >= 0:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.syscall.restype = ctypes.c_long
        found = libc.syscall(
            ctypes.c_long(numbers["mq_open"]), ctypes.c_char_p(queue.encode()), ctypes.c_long(0)
        )
        assert found < 0 and ctypes.get_errno() == errno.ENOENT


def test_ipc_is_refused_outright_with_seccomp(layers):
    require(layers, "seccomp")
    result = run_isolated("""
libc = ctypes.CDLL(None, use_errno=True)
for name, call in [('shm', lambda: libc.shmget(0, 4096, 0o1000 | 0o666)),
                   ('msg', lambda: libc.msgget(0, 0o1000 | 0o666)),
                   ('sem', lambda: libc.semget(0, 1, 0o1000 | 0o666))]:
    out[name] = [call(), ctypes.get_errno()]
""")
    assert result["shm"] == result["msg"] == result["sem"] == [-1, errno.EPERM], result


def test_network_is_unreachable(layers):
    require(layers, "network")
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(1)
    server.settimeout(3)
    port = server.getsockname()[1]
    accepted = []

    def accept():
        try:
            accepted.append(server.accept())
        except OSError:
            pass

    thread = threading.Thread(target=accept)
    thread.start()
    result = run_isolated(f"""
import socket
try:
    s = socket.socket(); s.settimeout(2); s.connect(('127.0.0.1', {port}))
    out['connected'] = True
except OSError as e:
    out['error'] = str(e)
""")
    thread.join()
    assert "raised" not in result, result
    server.close()
    assert "connected" not in result and result["error"]
    assert not accepted


def test_network_namespace_alone_blocks_loopback(layers):
    require(layers, "network")
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(1)
    port = server.getsockname()[1]
    result = run_isolated(
        f"""
import socket
try:
    s = socket.socket(); s.settimeout(2); s.connect(('127.0.0.1', {port}))
    out['connected'] = True
except OSError as e:
    out['error'] = str(e)
""",
        seccomp=False,
        filesystem="off",
    )
    server.close()
    assert "raised" not in result, result
    assert "connected" not in result and result["error"]


def test_processes_and_threads_cannot_start(layers):
    require(layers, "seccomp")
    result = run_isolated("""
import subprocess, threading
for name, attempt in [('fork', lambda: os.fork()),
                      ('spawn', lambda: subprocess.run(['/bin/true'])),
                      ('system', lambda: os.system('true')),
                      ('thread', lambda: threading.Thread(target=print).start())]:
    try:
        value = attempt()
        out[name] = 'started' if value != -1 and value != 32512 else 'failed'
        if value == 0 and name == 'fork':
            os._exit(0)
    except Exception as e:
        out[name] = 'refused: ' + type(e).__name__
""")
    assert result["fork"] == "refused: PermissionError", result
    assert result["spawn"] == "refused: PermissionError", result
    assert result["thread"] == "refused: RuntimeError", result  # "can't start new thread"
    assert result["system"] in ("failed", "refused: PermissionError"), result


def test_other_processes_cannot_be_signalled(layers):
    require(layers, "seccomp")
    victim = subprocess.Popen(["sleep", "30"])
    try:
        result = run_isolated(f"""
import signal
try:
    os.kill({victim.pid}, signal.SIGKILL)
    out['killed'] = True
except OSError as e:
    out['error'] = str(e)
""")
        assert "killed" not in result
        assert victim.poll() is None
    finally:
        victim.kill()
        victim.wait()


def test_environment_secrets_do_not_reach_the_worker(monkeypatch):
    monkeypatch.setenv("SPADEGYM_TEST_SECRET", "CANARY-ENV")
    result = run_isolated(f"""
out['env'] = dict(os.environ)
try:
    out['parent_env'] = open('/proc/{os.getpid()}/environ', 'rb').read().decode('latin-1')
except OSError as e:
    out['parent_error'] = str(e)
""")
    assert "CANARY-ENV" not in json.dumps(result["env"])
    assert "CANARY-ENV" not in result.get("parent_env", "")


def test_memory_is_capped():
    result = run_isolated(
        """
try:
    block = bytearray(2 * 1024 ** 3)
    out['allocated'] = True
except MemoryError:
    out['memory_error'] = True
""",
        memory_mb=256,
    )
    assert result.get("memory_error") and "allocated" not in result


def test_root_is_dropped(layers):
    require(layers, "privileges")
    result = run_isolated("out['uid'] = os.getuid(); out['euid'] = os.geteuid()")
    if os.geteuid() == 0:
        assert result["uid"] != 0 and result["euid"] != 0


def test_the_standard_library_comes_first_on_the_path():
    result = run_isolated("import sys; out['path'] = sys.path; out['stdlib'] = os.__file__")
    stdlib = os.path.dirname(result["stdlib"])
    path = result["path"]
    added = [p for p in path if p != stdlib and not p.endswith((".zip", "lib-dynload"))]
    assert added and all(path.index(stdlib) < path.index(p) for p in added), path


def test_a_call_spinning_in_c_is_ended_by_its_cpu_limit():
    """A worker whose host is gone still stops: each call has a CPU limit (SIGPROF)."""
    started = time.monotonic()
    done = attack_process(
        "runtime._arm(0.2)\nsum(range(10 ** 13))\nout['finished'] = True",
        call_timeout=0.2,
        kill_grace=0.3,
    )
    assert done.returncode == -27, done  # SIGPROF
    assert time.monotonic() - started < 30
