"""The sandbox worker process: isolate itself, then serve JSON frames on stdin/stdout.

Started by ``spadegym.sandbox.client`` as ``python -I -S -c <bootstrap>`` with a scrubbed
environment and a temporary working folder, never forked from the host. It imports everything a
program may need, applies the isolation layers (``isolation``), reports which are active in its
first frame, and then answers one response frame per request frame until its stdin closes.
A ``"batch"`` request (a list of requests) is answered with one frame per item, in order, as
each finishes, so the host can tell which item hung.
"""

from __future__ import annotations

import importlib
import json
import os
import sys

from spadegym import contract
from spadegym.sandbox import isolation, protocol
from spadegym.sandbox.runtime import Runtime


def _read_exact(fd: int, n: int) -> bytes | None:
    chunks = []
    while n:
        chunk = os.read(fd, min(n, 1 << 20))
        if not chunk:
            return None
        chunks.append(chunk)
        n -= len(chunk)
    return b"".join(chunks)


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

    try:
        import pyseccomp  # noqa: F401  (loads libseccomp before root is dropped)
    except (ImportError, RuntimeError, OSError):
        pass


def isolate(settings: dict) -> dict:
    """Import what programs need, then apply every isolation layer; returns their states."""
    _preload()
    layers = {}
    layers["rlimits"] = (True, isolation.apply_rlimits(
        settings["memory_mb"], settings["cpu_seconds"], settings["max_open_files"]))
    if settings["network_namespace"]:
        layers["network"] = isolation.enter_network_namespace()
    layers["privileges"] = isolation.drop_privileges()
    if settings["seccomp"]:
        layers["seccomp"] = isolation.load_seccomp()
    return {name: {"active": ok, "detail": detail} for name, (ok, detail) in layers.items()}


def main(settings: dict) -> None:
    """Run the worker until stdin closes. ``settings`` is the host's SandboxConfig as a dict."""
    fd_in, fd_out = 0, 1
    # The program may not write to our stdout frame stream: point sys.stdout/err nowhere.
    sys.stdout = sys.stderr = open(os.devnull, "w")  # noqa: SIM115  (lives as long as we do)
    layers = isolate(settings)
    runtime = Runtime(settings["call_timeout"], settings["load_timeout"])
    hello = {"ok": True, "v": {"pid": os.getpid(), "layers": layers}}
    _write_all(fd_out, protocol.encode(hello))

    while True:
        header = _read_exact(fd_in, protocol.HEADER.size)
        if header is None:
            return
        (size,) = protocol.HEADER.unpack(header)
        if size > protocol.MAX_REQUEST_BYTES:
            return  # the host never sends this; stop rather than guess where frames begin
        body = _read_exact(fd_in, size)
        if body is None:
            return
        try:
            request = json.loads(body)
        except ValueError:
            _write_all(fd_out, protocol.encode({"ok": False, "kind": "protocol",
                                                "msg": "request is not JSON"}))
            continue
        items = request.get("batch") if isinstance(request, dict) else None
        for item in items if isinstance(items, list) else [request]:
            response = runtime.handle(item) if isinstance(item, dict) else {
                "ok": False, "kind": "protocol", "msg": "request is not an object"}
            try:
                frame = protocol.encode(response)
            except (ValueError, TypeError, UnicodeError) as exc:
                frame = protocol.encode({"ok": False, "kind": "contract",
                                         "msg": f"the result could not be encoded ({exc})."})
            _write_all(fd_out, frame)
