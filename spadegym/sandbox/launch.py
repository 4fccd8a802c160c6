"""Starting a worker process: its command line, its environment, and the thread that spawns it.

A worker is ``python -I -S -c BOOT <argument>``: isolated mode, no site packages, an environment
of four variables (nothing of the host's), the standard library first on its path and only
RestrictedPython's folder after it. Every worker is spawned from one long-lived thread of the
host, because its parent-death signal follows the thread that started it.
"""

from __future__ import annotations

import concurrent.futures
import importlib.util
import json
import os
import queue
import subprocess
import threading
from dataclasses import asdict
from typing import Any

from spadegym.sandbox.config import SandboxConfig

# The worker imports its few modules directly: empty package stubs keep the packages'
# ``__init__`` (Gymnasium, the host-side client) out of it, which halves its start time. The
# standard library stays first on the path; only RestrictedPython's folder is added, after it.
BOOT_SETUP = (
    "import sys,json,types;a=json.loads(sys.argv[1]);sys.path+=a['path']\n"
    "for n,d in (('spadegym',a['pkg']),('spadegym.sandbox',a['pkg']+'/sandbox')):\n"
    " m=types.ModuleType(n);m.__path__=[d];sys.modules[n]=m\n"
)
BOOT = BOOT_SETUP + "from spadegym.sandbox.worker import main;main(a['settings'])"
"""The ``-c`` program of a worker process (tests replace its entry to play a broken worker)."""


def _worker_path() -> tuple[list[str], str]:
    """The import path a worker adds after the standard library, and spadegym's folder."""
    pkg = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    paths = []
    for name in ("RestrictedPython",):
        spec = importlib.util.find_spec(name)
        if spec is not None and spec.origin:
            root = os.path.dirname(spec.origin)
            if spec.submodule_search_locations:  # a package: its parent folder
                root = os.path.dirname(root)
            if root not in paths:
                paths.append(root)
    return paths, pkg


def worker_environment() -> dict[str, str]:
    """The whole environment a worker gets: nothing of the host's (no secrets, no paths)."""
    return {
        "PYTHONHASHSEED": "0",
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
        "PATH": "/usr/sbin:/usr/bin:/sbin:/bin",
    }


def worker_settings(config: SandboxConfig) -> dict:
    """What a worker is told: the config's limits and layers, and the host's pid."""
    settings = {k: v for k, v in asdict(config).items() if k != "isolation"}
    settings["host_pid"] = os.getpid()
    return settings


def worker_argument(config: SandboxConfig) -> str:
    """The worker's one command-line argument (JSON)."""
    paths, pkg = _worker_path()
    return json.dumps({"path": paths, "pkg": pkg, "settings": worker_settings(config)})


class _Spawner:
    """Starts every worker process from one thread that lives as long as the host.

    A worker's parent-death signal fires when the *thread* that started it ends, not the
    process: a worker started from a pool's short-lived thread would die with that thread.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._jobs: queue.SimpleQueue[Any] | None = None
        self._thread: threading.Thread | None = None
        self._pid = 0

    def popen(self, args: list[str], **kwargs: Any) -> subprocess.Popen[bytes]:
        with self._lock:
            if self._thread is None or self._pid != os.getpid() or not self._thread.is_alive():
                jobs: queue.SimpleQueue[Any] = queue.SimpleQueue()
                self._jobs, self._pid = jobs, os.getpid()
                self._thread = threading.Thread(
                    target=self._run, args=(self._jobs,), name="spadegym-spawner", daemon=True
                )
                self._thread.start()
            else:
                assert self._jobs is not None  # set with the running thread
                jobs = self._jobs
        done: concurrent.futures.Future[subprocess.Popen[bytes]] = concurrent.futures.Future()
        jobs.put((args, kwargs, done))
        return done.result()

    @staticmethod
    def _run(jobs: queue.SimpleQueue) -> None:
        while True:
            args, kwargs, done = jobs.get()
            try:
                done.set_result(subprocess.Popen(args, **kwargs))
            except BaseException as exc:  # handed to the caller
                done.set_exception(exc)


spawner = _Spawner()
"""The host's one spawning thread (started on first use, again after a fork)."""
