"""The OS layers hold even if a program gets past the policy.

Each test starts a process exactly as a worker isolates itself (``worker.isolate``), then runs
plain, unrestricted attack code in it, the code a policy escape would run. Attacks aim at
canaries this test controls, and the test checks that nothing reached them.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import tempfile
import threading
from dataclasses import asdict

import pytest

from spadegym.sandbox import SandboxConfig, SandboxWorker
from spadegym.sandbox.client import _worker_path, worker_environment

_HARNESS = (
    "import sys,json,types,os;a=json.loads(sys.argv[1]);sys.path[:0]=a['path'];"
    "[sys.modules.__setitem__(n,types.ModuleType(n)) for n in ('spadegym','spadegym.sandbox')];"
    "sys.modules['spadegym'].__path__=[a['pkg']];"
    "sys.modules['spadegym.sandbox'].__path__=[a['pkg']+'/sandbox'];"
    "import socket,subprocess,threading,signal;"  # what an attacker would want, loaded early
    "from spadegym.sandbox.worker import isolate;layers=isolate(a['settings']);"
    "out={'layers':layers}\n"
    "try:\n exec(a['attack'],{'out':out,'os':os})\n"
    "except BaseException as e:\n out['raised']=type(e).__name__+': '+str(e)\n"
    "os.write(1,json.dumps(out,default=str).encode())"
)


def run_isolated(attack: str, timeout: float = 30, **config) -> dict:
    paths, pkg = _worker_path()
    settings = {k: v for k, v in asdict(SandboxConfig(**config)).items() if k != "isolation"}
    arg = json.dumps({"path": paths, "pkg": pkg, "settings": settings, "attack": attack})
    env = worker_environment()
    done = subprocess.run(
        [sys.executable, "-I", "-S", "-c", _HARNESS, arg],
        env=env,
        capture_output=True,
        timeout=timeout,
        cwd=tempfile.gettempdir(),
    )
    assert done.stdout, done.stderr.decode()[-2000:]
    return json.loads(done.stdout)


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
    assert set(layers) == {"rlimits", "network", "privileges", "seccomp"}
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
    os.remove(path)
    os.rmdir(folder)


def test_files_cannot_be_read_or_written(layers, canary_file):
    require(layers, "seccomp")
    target = canary_file + ".written"
    result = run_isolated(f"""
try:
    out['read'] = open({canary_file!r}).read()
except OSError as e:
    out['read_error'] = str(e)
try:
    open({target!r}, 'w').write('x')
    out['wrote'] = True
except OSError as e:
    out['write_error'] = str(e)
try:
    out['listing'] = os.listdir('/')
except OSError as e:
    out['list_error'] = str(e)
""")
    assert "read" not in result and "Operation not permitted" in result["read_error"]
    assert "wrote" not in result and not os.path.exists(target)
    assert "listing" not in result


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
