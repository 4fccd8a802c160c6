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

    def next(self) -> bytes | None:
        """The next frame's body; ``None`` at end of input or on an oversized frame."""
        if not self._fill(protocol.HEADER.size):
            return None
        (size,) = protocol.HEADER.unpack_from(self.buf)
        if size > protocol.MAX_REQUEST_BYTES or not self._fill(protocol.HEADER.size + size):
            return None  # the host never sends this; stop rather than guess where frames begin
        body = bytes(self.buf[protocol.HEADER.size : protocol.HEADER.size + size])
        del self.buf[: protocol.HEADER.size + size]
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


def isolate(settings: dict) -> dict:
    """Import what programs need, then apply every isolation layer; returns their states."""
    _preload()
    seccomp_lib = isolation.libseccomp() if settings["seccomp"] else None  # before dropping root
    layers = {}
    layers["rlimits"] = (
        True,
        isolation.apply_rlimits(
            settings["memory_mb"], settings["cpu_seconds"], settings["max_open_files"]
        ),
    )
    if settings["network_namespace"]:
        layers["network"] = isolation.enter_network_namespace()
    layers["privileges"] = isolation.drop_privileges()
    if settings["seccomp"]:
        layers["seccomp"] = isolation.load_seccomp(seccomp_lib)
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

    frames = _FrameReader(fd_in)
    while True:
        body = frames.next()
        if body is None:
            return
        try:
            request = json.loads(body)
        except ValueError:
            _write_all(
                fd_out,
                protocol.encode({"ok": False, "kind": "protocol", "msg": "request is not JSON"}),
            )
            continue
        items = request.get("batch") if isinstance(request, dict) else None
        for item in items if isinstance(items, list) else [request]:
            response = (
                runtime.handle(item)
                if isinstance(item, dict)
                else {"ok": False, "kind": "protocol", "msg": "request is not an object"}
            )
            try:
                frame = protocol.encode(response)
            except (ValueError, TypeError, UnicodeError) as exc:
                frame = protocol.encode(
                    {
                        "ok": False,
                        "kind": "contract",
                        "msg": f"the result could not be encoded ({exc}).",
                    }
                )
            _write_all(fd_out, frame)
