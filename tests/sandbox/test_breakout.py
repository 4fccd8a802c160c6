"""The breakout suite: with the policy broken, a worker still harms nothing, in every mode.

Each attack is plain Python with the real builtins, run in a worker process that isolated
itself exactly as a real one (``sandbox_harness``: a test-only boot path; the shipped worker
has no way to run raw code). Every attack runs under each filesystem mode (Landlock, and the
mount-namespace fallback), and the attacks on other processes also with seccomp off, so that
the layers under it are shown to hold alone. A test skips only where this kernel or this
machine lacks the layer it needs.

The victims are canaries: a process of the host's uid standing in for the host (the test
process itself is never aimed at), and a real sibling worker serving another program.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
import time
import tracemalloc

import pytest
from sandbox_harness import attack_worker, run_isolated

from spadegym.errors import ProgramError
from spadegym.sandbox import SandboxConfig, SandboxWorker, launch, protocol
from spadegym.sandbox.runtime import Runtime

MODES = ("landlock", "mount")


@pytest.fixture(scope="module")
def mode_layers() -> dict[str, dict]:
    """The layers a worker gets under each filesystem mode on this machine."""
    found = {}
    for mode in MODES:
        worker = SandboxWorker(SandboxConfig(filesystem=mode))
        try:
            worker.start()
            found[mode] = worker.layers
        except Exception as exc:  # the mode cannot start here: each test skips
            found[mode] = {"filesystem": {"active": False, "detail": str(exc)}}
        finally:
            worker.close()
    return found


@pytest.fixture(params=MODES)
def mode(request, mode_layers) -> str:
    layers = mode_layers[request.param]
    if not layers["filesystem"]["active"]:
        pytest.skip(f"filesystem mode {request.param} is not available here: {layers}")
    for name in ("seccomp", "privileges"):
        if not layers.get(name, {}).get("active"):
            pytest.skip(f"layer {name} is not available here: {layers.get(name)}")
    return request.param


def own_uid(layers: dict) -> bool:
    return "this worker's own" in layers["privileges"]["detail"]


@pytest.fixture(params=["seccomp", "no seccomp"])
def seccomp(request, mode, mode_layers) -> bool:
    """Seccomp on, and off where the uid layer stands alone (a root host)."""
    if request.param == "no seccomp" and not own_uid(mode_layers[mode]):
        pytest.skip("workers share a uid here (the host is not root): seccomp is the layer")
    return request.param == "seccomp"


@pytest.fixture
def victims(lock_pick):
    """A process of the host's uid and a sibling worker of another program; both must live."""
    host_like = subprocess.Popen(["sleep", "120"], start_new_session=True)
    sibling = SandboxWorker(SandboxConfig(call_timeout=2.0))
    sibling.load(lock_pick)
    try:
        yield {"host": host_like.pid, "sibling": sibling._proc.pid}, host_like, sibling
    finally:
        host_like.kill()
        host_like.wait()
        sibling.close()


def assert_alive(host_like: subprocess.Popen, sibling: SandboxWorker) -> None:
    assert host_like.poll() is None, "the host-like process was killed"
    assert sibling.alive and sibling.ping() == "pong", "the sibling worker was harmed"


# -- files ---------------------------------------------------------------------------------------

WRITES = """
import resource
targets = [{folder!r} + '/new.txt', {path!r}, '/tmp/spadegym-breakout-{tag}',
           '/dev/shm/spadegym-breakout-{tag}', os.getcwd() + '/here.txt']
for target in targets:
    try:
        with open(target, 'ab') as handle:
            handle.write(b'x' * (1 << 20))
        out[target] = 'written'
    except OSError as e:
        out[target] = 'refused: ' + errno_name(e)
for name, attempt in [('mkdir', lambda: os.mkdir('/tmp/spadegym-breakout-dir-{tag}')),
                      ('mkfifo', lambda: os.mkfifo('/dev/shm/spadegym-fifo-{tag}')),
                      ('symlink', lambda: os.symlink('/', '/tmp/spadegym-link-{tag}'))]:
    try:
        attempt()
        out[name] = 'made'
    except OSError as e:
        out[name] = 'refused: ' + errno_name(e)
"""
ERRNO_NAME = (
    "import errno\ndef errno_name(e):\n return errno.errorcode.get(e.errno, str(e.errno))\n"
)


@pytest.fixture
def open_folder():
    """A folder and a file anyone may write: only the sandbox stands in the way."""
    folder = tempfile.mkdtemp(prefix="spadegym-open-")
    os.chmod(folder, 0o777)
    path = os.path.join(folder, "open.txt")
    with open(path, "w") as handle:
        handle.write("ORIGINAL")
    os.chmod(path, 0o666)
    yield folder, path
    for name in os.listdir(folder):
        os.remove(os.path.join(folder, name))
    os.rmdir(folder)


@pytest.mark.parametrize("with_seccomp", [True, False], ids=["seccomp", "no seccomp"])
def test_nothing_can_be_written_anywhere(mode, with_seccomp, open_folder):
    """Not the host's files, nor /tmp or /dev/shm (each write is capped at 0 bytes too)."""
    folder, path = open_folder
    tag = f"{os.getpid()}-{mode}-{with_seccomp}"
    attack = ERRNO_NAME + WRITES.format(folder=folder, path=path, tag=tag)
    result = run_isolated(attack, filesystem=mode, seccomp=with_seccomp)
    assert "raised" not in result, result
    made = {k: v for k, v in result.items() if k != "layers" and not v.startswith("refused")}
    assert not made, made
    assert open(path).read() == "ORIGINAL" and os.listdir(folder) == ["open.txt"]
    for leftover in ("/tmp", "/dev/shm"):
        assert not [n for n in os.listdir(leftover) if tag in n], leftover


# -- the host's secrets ---------------------------------------------------------------------


def test_the_hosts_environment_secrets_and_proc_are_out_of_reach(mode, monkeypatch):
    monkeypatch.setenv("SPADEGYM_TEST_SECRET", "CANARY-ENV")
    secret = tempfile.NamedTemporaryFile("w", prefix="spadegym-secret-", delete=False)
    secret.write("CANARY-FILE")
    secret.close()
    os.chmod(secret.name, 0o600)
    host = os.getpid()
    try:
        for with_seccomp in (True, False):
            result = run_isolated(
                ERRNO_NAME
                + f"""
out['env'] = dict(os.environ)
for name in ['environ', 'cmdline', 'maps', 'mem', 'status', 'fd/0', 'root/etc/hostname']:
    try:
        out[name] = open('/proc/{host}/' + name, 'rb').read(4096).decode('latin-1')
    except OSError as e:
        out[name] = 'refused: ' + errno_name(e)
try:
    out['secret'] = open({secret.name!r}).read()
except OSError as e:
    out['secret'] = 'refused: ' + errno_name(e)
""",
                filesystem=mode,
                seccomp=with_seccomp,
            )
            assert "raised" not in result, result
            text = json.dumps(result)
            assert "CANARY-ENV" not in text and "CANARY-FILE" not in text
            for name in ("environ", "maps", "mem", "root/etc/hostname", "secret"):
                assert result[name].startswith("refused"), (with_seccomp, name, result[name])
            if with_seccomp:
                assert all(
                    result[name].startswith("refused") for name in ("cmdline", "status", "fd/0")
                ), result
    finally:
        os.remove(secret.name)


# -- other processes ------------------------------------------------------------------------

REACH = """
import ctypes, resource, signal
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
class iovec(ctypes.Structure):
    _fields_ = [('base', ctypes.c_void_p), ('len', ctypes.c_size_t)]
buffer = ctypes.create_string_buffer(64)
local = ctypes.byref(iovec(ctypes.cast(buffer, ctypes.c_void_p), 64))
remote = ctypes.byref(iovec(id(out), 64))  # any address: the permission check comes first
info = (ctypes.c_int * 32)(9, 0, -1)  # a siginfo: SIGKILL, SI_QUEUE
def attempt(name, call):
    try:
        got = call()
        code = errno.errorcode.get(ctypes.get_errno(), '?')
        out[name] = 'refused: ' + code if got == -1 else 'done'
    except OSError as e:
        out[name] = 'refused: ' + errno.errorcode.get(e.errno, str(e.errno))
    except Exception as e:
        out[name] = 'failed: ' + type(e).__name__
for who, pid in {targets}.items():
    attempt(who + ' prlimit cpu', lambda: resource.prlimit(pid, resource.RLIMIT_CPU, (1, 1)))
    attempt(who + ' prlimit as', lambda: resource.prlimit(pid, resource.RLIMIT_AS, (1 << 23,) * 2))
    attempt(who + ' setpriority', lambda: os.setpriority(os.PRIO_PROCESS, pid, 19))
    attempt(who + ' ioprio_set', lambda: libc.syscall(251, 1, pid, (3 << 13)))
    attempt(who + ' ptrace', lambda: libc.ptrace(16, pid, None, None))
    attempt(who + ' pidfd_open', lambda: os.pidfd_open(pid))
    attempt(who + ' process_vm_readv', lambda: libc.syscall(310, pid, local, 1, remote, 1, 0))
    attempt(who + ' sched_setaffinity', lambda: os.sched_setaffinity(pid, {{0}}))
    attempt(who + ' kill', lambda: os.kill(pid, signal.SIGKILL))
    attempt(who + ' tgkill', lambda: libc.syscall(234, pid, pid, 9))
    attempt(who + ' sigqueue', lambda: libc.syscall(129, pid, 9, info))
"""


def standing(pid: int) -> tuple[str, int, list[int]]:
    """A process's limits (as /proc shows them to anyone), priority and CPUs."""
    with open(f"/proc/{pid}/limits") as limits:
        return (
            limits.read(),
            os.getpriority(os.PRIO_PROCESS, pid),
            sorted(os.sched_getaffinity(pid)),
        )


X86_64 = pytest.mark.skipif(os.uname().machine != "x86_64", reason="system call numbers of x86-64")


@X86_64
def test_other_processes_cannot_be_limited_signalled_traced_or_slowed(mode, seccomp, victims):
    targets, host_like, sibling = victims
    before = {pid: standing(pid) for pid in targets.values()}
    process, result = attack_worker(
        "import errno\n" + REACH.format(targets=targets), filesystem=mode, seccomp=seccomp
    )
    process.stdin.close()
    process.wait(10)
    assert "raised" not in result, result
    refusals = ("refused: EPERM", "refused: EACCES", "refused: ESRCH")  # not EFAULT: past a check
    reached = {k: v for k, v in result.items() if k != "layers" and v not in refusals}
    # ptrace of a process of another uid is refused as EPERM; a pidfd alone is harmless
    # without seccomp (pidfd_send_signal is checked like kill), so it may open then.
    if not seccomp:
        reached = {k: v for k, v in reached.items() if not k.endswith("pidfd_open")}
    assert not reached, reached
    assert_alive(host_like, sibling)
    assert {pid: standing(pid) for pid in targets.values()} == before


ASYNC_SIGNALS = """
import fcntl, signal
for who, pid in {targets}.items():
    for fd in (0, 1):
        for name, call in [('F_SETOWN', lambda: fcntl.fcntl(fd, fcntl.F_SETOWN, pid)),
                           ('F_SETSIG', lambda: fcntl.fcntl(fd, 10, signal.SIGKILL)),
                           ('O_ASYNC', lambda: fcntl.fcntl(fd, fcntl.F_SETFL, os.O_ASYNC)),
                           ('FIOASYNC', lambda: fcntl.ioctl(fd, 0x5452, b'\\x01\\x00\\x00\\x00'))]:
            try:
                call()
                out[f'{{who}} {{fd}} {{name}}'] = 'set'
            except OSError as e:
                out[f'{{who}} {{fd}} {{name}}'] = 'refused: ' + errno.errorcode.get(e.errno, '?')
"""


def test_the_fcntl_signal_path_reaches_neither_host_nor_sibling(mode, seccomp, victims):
    """An owner and SIGKILL set on the worker's own pipes: the host then reads and writes."""
    targets, host_like, sibling = victims
    for who, pid in targets.items():
        process, result = attack_worker(
            "import errno\n" + ASYNC_SIGNALS.format(targets={who: pid}),
            filesystem=mode,
            seccomp=seccomp,
        )
        try:
            assert "raised" not in result, result
            if seccomp:
                assert all(
                    v.startswith("refused: EPERM") for k, v in result.items() if k != "layers"
                ), result
            for _ in range(20):  # wake the pipes both ways: each would signal the owner
                process.stdin.write(b"x" * 4096)
                process.stdin.flush()
                time.sleep(0.01)
        finally:
            process.stdin.close()
            process.wait(10)
        time.sleep(0.2)
        assert_alive(host_like, sibling)


# -- IPC, sockets, processes ----------------------------------------------------------------


@X86_64
def test_ipc_sockets_and_new_processes_are_refused(mode):
    result = run_isolated(
        ERRNO_NAME
        + f"""
import socket, subprocess
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
def attempt(name, call):
    try:
        got = call()
        code = errno.errorcode.get(ctypes.get_errno(), '?')
        out[name] = 'refused: ' + code if got == -1 else 'done'
    except OSError as e:
        out[name] = 'refused: ' + errno_name(e)
    except Exception as e:
        out[name] = 'failed: ' + type(e).__name__
attempt('shmget', lambda: libc.shmget(0, 4096, 0o1000 | 0o666))
attempt('msgget', lambda: libc.msgget(0, 0o1000 | 0o666))
attempt('semget', lambda: libc.semget(0, 1, 0o1000 | 0o666))
attempt('mq_open', lambda: libc.syscall(240, b'/spadegym-{os.getpid()}', 0o100 | 2, 0o600, None))
attempt('shm_open', lambda: os.open('/dev/shm/spadegym-{os.getpid()}', os.O_CREAT | os.O_RDWR))
attempt('socket', lambda: socket.socket())
attempt('unix socket', lambda: socket.socket(socket.AF_UNIX).connect('/run/systemd/notify'))
attempt('socketpair', lambda: socket.socketpair())
attempt('fork', lambda: os.fork())
attempt('exec', lambda: os.execv('/bin/true', ['true']))
attempt('spawn', lambda: subprocess.run(['/bin/true']))
""",
        filesystem=mode,
    )
    assert "raised" not in result, result
    done = {k: v for k, v in result.items() if k != "layers" and not v.startswith("refused")}
    assert not done, done


# -- lifetime --------------------------------------------------------------------------------

HOST = """
import sys, time
sys.path[:0] = {path!r}
from spadegym.sandbox import SandboxConfig, SandboxWorker, launch
launch.BOOT = launch.BOOT_SETUP + {entry!r}
worker = SandboxWorker(SandboxConfig(filesystem={mode!r}))
try:
    worker.start()
except Exception:
    pass
print(worker._proc.pid if worker._proc else -1, flush=True)
time.sleep(120)
"""
CLINGING = (
    "import os, ctypes, time, json\n"
    "from spadegym.sandbox import protocol\n"
    "from spadegym.sandbox.worker import prepare, _write_all\n"
    "runtime, layers = prepare(a['settings'])\n"
    "libc = ctypes.CDLL(None, use_errno=True)\n"
    "libc.prctl(1, 0, 0, 0, 0)\n"  # try to unset the death signal
    "try:\n os.setsid()\nexcept OSError:\n pass\n"
    "try:\n os.fork()\nexcept OSError:\n pass\n"
    "_write_all(1, protocol.encode({'ok': True, 'v': {'pid': os.getpid(), 'layers': layers}}))\n"
    "while True:\n time.sleep(1)\n"
)


def test_no_worker_outlives_a_killed_host(mode):
    host = subprocess.Popen(
        [sys.executable, "-c", HOST.format(path=sys.path, entry=CLINGING, mode=mode)],
        stdout=subprocess.PIPE,
        start_new_session=True,
    )
    try:
        pid = int(host.stdout.readline())
        assert pid > 0
        assert os.path.exists(f"/proc/{pid}")
        os.killpg(host.pid, signal.SIGKILL)
        host.wait(10)
        deadline = time.monotonic() + 10
        while _running(pid) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not _running(pid), "the worker outlived its host"
    finally:
        if host.poll() is None:
            host.kill()
            host.wait()


def _running(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


# -- frames ----------------------------------------------------------------------------------

ANSWER_HEADER = (
    "import os, time\n"
    "from spadegym.sandbox import protocol\n"
    "from spadegym.sandbox.worker import prepare, _FrameReader, _write_all\n"
    "runtime, layers = prepare(a['settings'])\n"
    "_write_all(1, protocol.encode({'ok': True, 'v': {'pid': os.getpid(), 'layers': layers}}))\n"
    "frames = _FrameReader(0)\n"
    "frames.next()\n"
)


@pytest.fixture
def lying(monkeypatch):
    def use(attack: str) -> None:
        monkeypatch.setattr(launch, "BOOT", launch.BOOT_SETUP + ANSWER_HEADER + attack)

    return use


def test_an_answer_longer_than_its_request_allows_is_refused_by_its_prefix(lying):
    """The worker announces 16 MiB for a ping and sends nothing more: no waiting, no reading."""
    lying("_write_all(1, protocol.HEADER.pack(16 << 20))\ntime.sleep(60)\n")
    worker = SandboxWorker(SandboxConfig(call_timeout=30.0))
    started = time.monotonic()
    with pytest.raises(ProgramError, match=r"a response frame of 16777216 bytes \(the limit"):
        worker.ping()
    assert time.monotonic() - started < 5  # refused at once, not after the 30 s deadline


@pytest.mark.parametrize(
    ("request_kind", "body"),
    [
        ("step", "b'[' + b'[],' * (5 << 20) + b'[]]'"),  # 15 MiB: refused by its prefix
        ("solution", "b'{\"ok\":true,\"v\":[' + b'[],' * (5 << 20) + b'[]]}'"),  # by counting
    ],
)
def test_a_huge_answer_never_takes_the_hosts_memory(lying, request_kind, body):
    lying(f"body = {body}\n_write_all(1, protocol.HEADER.pack(len(body)) + body)\ntime.sleep(60)\n")
    worker = SandboxWorker(SandboxConfig(call_timeout=10.0))
    worker.start()
    request = (
        protocol.step_request(1, "x") if request_kind == "step" else protocol.solution_request(1)
    )
    tracemalloc.start()
    try:
        answer = worker.exchange([request])[0]
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert isinstance(answer, ProgramError) and "response frame of" in str(answer), answer
    assert peak < 48 * 1024 * 1024, f"the host held {peak >> 20} MiB for one answer"


def test_the_shipped_worker_runs_no_raw_code():
    """The raw boot path above exists in tests only: the shipped worker knows no such request."""
    assert "exec" not in launch.BOOT and "attack" not in launch.BOOT
    for op in ("exec", "eval", "raw", "attack", "python"):
        answer = Runtime().handle({"op": op, "source": "out = 1", "code": "1"})
        assert answer["ok"] is False and answer["kind"] == "protocol", answer
