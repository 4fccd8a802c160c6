"""Run code inside a real, isolated worker process, as a program that escaped the policy would.

The process boots exactly as a worker does (``launch.BOOT_SETUP``, then ``worker.prepare``:
every layer applied, in order), then runs the attack as plain, unrestricted Python with
``out`` (a dict it reports back as JSON) and ``runtime`` (the worker's request handler) in
scope. Attacks aim at canaries the tests control, and the tests check nothing reached them.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile

from spadegym.sandbox import SandboxConfig
from spadegym.sandbox.launch import BOOT_SETUP, worker_argument, worker_environment

ENTRY = (
    # What an attacker would want, imported while files can still be opened.
    "import os,gc,time,ctypes,socket,subprocess,threading,signal,resource\n"
    "from spadegym.sandbox.worker import prepare\n"
    "runtime,layers=prepare(a['settings'])\n"
    "out={'layers':layers}\n"
    "try:\n"
    " exec(a['attack'],{'out':out,'os':os,'runtime':runtime,'ctypes':ctypes,'gc':gc,"
    "'time':time})\n"
    "except BaseException as e:\n"
    " out['raised']=type(e).__name__+': '+str(e)\n"
    "os.write(1,json.dumps(out,default=str).encode())\n"
    "os._exit(0)"
)


def attack_process(attack: str, timeout: float = 60, **config) -> subprocess.CompletedProcess:
    """Run ``attack`` in an isolated worker process; the finished process."""
    argument = json.loads(worker_argument(SandboxConfig(**config)))
    argument["attack"] = attack
    return subprocess.run(
        [sys.executable, "-I", "-S", "-c", BOOT_SETUP + ENTRY, json.dumps(argument)],
        env=worker_environment(),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        timeout=timeout,
        cwd=tempfile.gettempdir(),
    )


def run_isolated(attack: str, timeout: float = 60, **config) -> dict:
    """Run ``attack`` in an isolated worker process; what it put in ``out``."""
    done = attack_process(attack, timeout, **config)
    assert done.stdout, (done.returncode, done.stderr.decode()[-2000:])
    return json.loads(done.stdout)


STAY = ENTRY.replace(
    "os.write(1,json.dumps(out,default=str).encode())\nos._exit(0)",
    "os.write(1,json.dumps(out,default=str).encode()+b'\\n')\n"
    "while os.read(0,65536):\n pass\nos._exit(0)",
)
"""``ENTRY``, except that the process then reads its stdin until it closes (so that the host
side can read and write its pipes after the attack, as a host does)."""


def attack_worker(attack: str, timeout: float = 60, **config) -> tuple[subprocess.Popen, dict]:
    """Run ``attack`` in an isolated worker that stays up reading its stdin.

    Returns:
        The process (stdin and stdout are pipes; close stdin to end it) and its ``out``.
    """
    argument = json.loads(worker_argument(SandboxConfig(**config)))
    argument["attack"] = attack
    process = subprocess.Popen(
        [sys.executable, "-I", "-S", "-c", BOOT_SETUP + STAY, json.dumps(argument)],
        env=worker_environment(),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=tempfile.gettempdir(),
        start_new_session=True,
    )
    line = process.stdout.readline()
    assert line, (process.wait(timeout), process.stderr.read().decode()[-2000:])
    return process, json.loads(line)
