"""The sandbox worker process: isolate itself, then serve JSON frames on stdin/stdout.

Started by ``spadegym.sandbox.client`` as ``python -I -S -c <bootstrap>`` with a scrubbed
environment and a temporary working folder, never forked from the host. It imports everything a
program may need, applies the isolation layers (``isolation``), reports which are active in its
first frame, and then answers one response frame per request frame until its stdin closes.
A ``"batch"`` request (a list of requests) is answered with one frame per item, in order, as
each finishes, so the host can tell which item hung. A frame it cannot read (too large, not
JSON) is answered with one error frame, and the worker reads on.
"""

from __future__ import annotations

import gc
import importlib
import os
import sys
from typing import TYPE_CHECKING

from spadegym import contract
from spadegym.sandbox import filesystem, isolation, protocol
from spadegym.sandbox.runtime import Deadline, Runtime

if TYPE_CHECKING:
    from typing import Any


class _FrameReader:
    """Frames from a pipe, read in large chunks (one read usually holds a whole request)."""

    def __init__(self, fd: int):
        self.fd = fd
        self.buf = bytearray()

    def _fill(self, n: int) -> bool:
        while len(self.buf) < n:
            chunk = os.read(self.fd, max(1 << 16, n - len(self.buf)))
            if not chunk:
                return False
            self.buf += chunk
        return True

    def _skip(self, n: int) -> bool:
        """Drop the next ``n`` bytes without holding them all."""
        while n > 0:
            if not self.buf and not self._fill(1):
                return False
            dropped = min(n, len(self.buf))
            del self.buf[:dropped]
            n -= dropped
        return True

    def next(self) -> bytes | int | None:
        """The next frame's body; its size if it is too large (skipped); ``None`` at the end."""
        if not self._fill(protocol.HEADER_BYTES):
            return None
        size = protocol.frame_length(self.buf)
        del self.buf[: protocol.HEADER_BYTES]
        if size > protocol.MAX_REQUEST_BYTES:
            return size if self._skip(size) else None
        if not self._fill(size):
            return None
        body = bytes(self.buf[:size])
        del self.buf[:size]
        return body


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]


def _preload() -> None:
    """Import every module a program may use while files can still be opened."""
    for name in contract.ALLOWED_IMPORTS:
        importlib.import_module(name)
    import spadegym.policy  # noqa: F401  (the restricted compiler itself)
    import spadegym.program  # noqa: F401  (read by the class facts)


def _read_dirs() -> list[str]:
    """What the filesystem layer leaves readable: the standard library and our packages."""
    import RestrictedPython

    import spadegym

    folders = [os.path.dirname(os.__file__), *spadegym.__path__, *RestrictedPython.__path__]
    return sorted({os.path.realpath(f) for f in folders if os.path.isdir(f)})


def _ignore_unraisable(unraisable: object) -> None:
    # The default hook prints repr() of the object whose finalizer failed: program code.
    return None


def isolate(settings: dict) -> dict:
    """Import what programs need, then apply every isolation layer; returns their states."""
    _preload()
    seccomp_lib = isolation.libseccomp() if settings["seccomp"] else None  # before dropping root
    fs_mode = settings.get("filesystem", "auto")
    abi = filesystem.landlock_abi() if fs_mode in ("auto", "landlock") else 0
    if fs_mode == "auto":
        fs_mode = "landlock" if abi >= 1 else "mount"
    read_dirs = _read_dirs()
    layers = {}
    layers["rlimits"] = (
        True,
        isolation.apply_rlimits(
            settings["memory_mb"], settings["cpu_seconds"], settings["max_open_files"]
        ),
    )
    spaces = isolation.enter_namespaces(settings["network_namespace"], fs_mode == "mount")
    for name in ("network", "ipc"):
        if name in spaces:
            layers[name] = spaces[name]
    if fs_mode == "mount":
        ok, detail = spaces["mount"]
        layers["filesystem"] = filesystem.remount_read_only() if ok else (False, detail)
    elif fs_mode == "landlock":
        layers["filesystem"] = filesystem.apply_landlock(read_dirs, abi)
    layers["privileges"] = isolation.drop_privileges()
    # Changing credentials cleared the parent-death signal: set it again, check the parent.
    layers["pdeathsig"] = isolation.set_parent_death_signal(settings["host_pid"])
    if settings["seccomp"]:
        layers["seccomp"] = isolation.load_seccomp(seccomp_lib)
    return {name: {"active": ok, "detail": detail} for name, (ok, detail) in layers.items()}


def prepare(settings: dict) -> tuple[Runtime, dict]:
    """Everything before the first request: die with the host, isolate, freeze the heap.

    Returns:
        The runtime that serves requests, and the layers' states.
    """
    isolation.set_parent_death_signal(settings["host_pid"])  # covers the imports below
    # The program may not write to our stdout frame stream: point sys.stdout/err nowhere.
    sys.stdout = sys.stderr = open(os.devnull, "w")  # noqa: SIM115  (lives as long as we do)
    sys.unraisablehook = _ignore_unraisable
    runtime = Runtime(
        settings["call_timeout"], settings["load_timeout"], settings["kill_grace"], process=True
    )
    layers = isolate(settings)
    # Garbage is collected only while a request's deadline is armed (see runtime), and what
    # exists now (the imported modules) is never scanned again.
    gc.freeze()
    gc.disable()
    return runtime, layers


def serve(runtime: Runtime, fd_in: int = 0, fd_out: int = 1) -> None:
    """Answer request frames until the input closes."""
    frames = _FrameReader(fd_in)
    while True:
        body = frames.next()
        if body is None:
            return
        if isinstance(body, int):
            _write_all(fd_out, _error_frame(f"a request frame of {body} bytes is too large"))
            continue
        try:
            request = protocol.decode(body)
        except ValueError:  # not UTF-8 JSON, a non-finite number, or nested too deeply
            _write_all(fd_out, _error_frame("request is not JSON"))
            continue
        for item in protocol.request_items(request):
            try:
                response: dict[str, Any] = (
                    runtime.handle(item)
                    if isinstance(item, dict)
                    else protocol.error_answer("protocol", "request is not an object")
                )
            except Deadline:  # a late alarm, past every handler of the runtime
                runtime._disarm()
                response = protocol.error_answer("timeout", "the call ran past its deadline")
            _write_all(fd_out, protocol.answer_frame(response))


def _error_frame(message: str) -> bytes:
    return protocol.answer_frame(protocol.error_answer("protocol", message))


def main(settings: dict) -> None:
    """Run the worker until stdin closes.

    Args:
        settings: the host's ``SandboxConfig`` as a dict, plus ``host_pid``.
    """
    runtime, layers = prepare(settings)
    _write_all(1, protocol.encode(protocol.hello_answer(os.getpid(), layers)))
    serve(runtime)
    os._exit(0)  # no interpreter shutdown: it would run finalizers outside any deadline
