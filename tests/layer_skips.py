"""In CI, a security-layer test may not pass by skipping on a machine that has the layer.

A test names the layers it needs with ``@pytest.mark.layer("seccomp", ...)``; the sandbox
tests that skip today name the missing layer in their skip reason too ("layer seccomp is not
available here", "filesystem mode mount is not available here", ...), and ``skip_layers``
reads both. When ``CI`` is set and a test skips although every layer it needs is active here,
as ``spadegym doctor`` finds them (one default worker's layers, and each filesystem mode tried
with a worker of its own), the skip becomes a failure: the test's own detection is broken, and
a green run would hide an untested layer.

Layer names: the worker's report (``rlimits``, ``network``, ``ipc``, ``filesystem``,
``privileges``, ``pdeathsig``, ``seccomp``), the filesystem modes ``doctor`` probes
(``landlock``, ``mount``), and ``own-uid`` (each worker runs under a uid of its own, which
needs a root host).
"""

from __future__ import annotations

import functools
import json
import os
import re

import pytest

WORKER_LAYERS = ("rlimits", "network", "ipc", "filesystem", "privileges", "pdeathsig", "seccomp")
LAYERS = (*WORKER_LAYERS, "landlock", "mount", "own-uid")

ACTIVE_OVERRIDE = "SPADEGYM_TEST_ACTIVE_LAYERS"
"""A JSON object {layer: bool} that replaces the probe: for the hook's own tests only."""

NAMED = re.compile(r"\b(?:layer|filesystem mode) ([\w-]+) is not available here")
REASONS = {  # skip reasons of tests/sandbox that name their layer in other words
    "the kernel has no Landlock": "landlock",
    "no mount namespace here": "mount",
    "libseccomp is not installed": "seccomp",
    "workers share a uid here": "own-uid",
}


def in_ci() -> bool:
    """Whether this run is CI's (``CI`` set to anything but empty, ``0`` or ``false``)."""
    return os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")


def layers_in_reason(reason: str) -> set[str]:
    """The layers a skip reason says are missing."""
    found = {name for name in NAMED.findall(reason) if name in LAYERS}
    found |= {layer for text, layer in REASONS.items() if text in reason}
    return found


def marked_layers(item: pytest.Item) -> set[str]:
    """The layers a test's ``layer`` marks name; an unknown name is an error, not a no-op."""
    names = {name for mark in item.iter_markers("layer") for name in mark.args}
    unknown = sorted(names - set(LAYERS))
    if unknown:
        raise pytest.UsageError(
            f"{item.nodeid}: @pytest.mark.layer names {unknown}, not a sandbox layer; "
            f"use one of {', '.join(LAYERS)}"
        )
    return names


@functools.cache
def active_layers() -> dict[str, bool]:
    """Each layer's state on this machine, probed as ``spadegym doctor`` probes it."""
    if os.environ.get(ACTIVE_OVERRIDE):
        return {name: bool(on) for name, on in json.loads(os.environ[ACTIVE_OVERRIDE]).items()}
    from spadegym.cli.doctor import FILESYSTEM_PROBES, probe_filesystem_mode
    from spadegym.errors import SpadegymError
    from spadegym.sandbox import SandboxConfig, SandboxWorker

    worker = SandboxWorker(SandboxConfig(allow_weak_sandbox=True))
    try:
        worker.start()
        layers = worker.layers
    except SpadegymError:
        layers = {}  # no worker starts: no layer counts as active
    finally:
        worker.close()
    active = {name: bool(layer["active"]) for name, layer in layers.items()}
    privileges = layers.get("privileges", {})
    active["own-uid"] = bool(privileges.get("active")) and "this worker's own" in privileges.get(
        "detail", ""
    )
    for mode in FILESYSTEM_PROBES:
        active[mode] = probe_filesystem_mode(mode)["works"]
    return active


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Refuse a ``layer`` mark that names no layer, before anything runs."""
    for item in items:
        marked_layers(item)


def skip_reason(report: pytest.TestReport) -> str:
    longrepr = report.longrepr
    if isinstance(longrepr, tuple) and len(longrepr) == 3:
        return str(longrepr[2])
    return str(longrepr)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo):
    """Turn a CI skip of a test whose layers are all active here into a failure."""
    outcome = yield
    report = outcome.get_result()
    if not report.skipped or hasattr(report, "wasxfail") or not in_ci():
        return
    reason = skip_reason(report)
    needed = marked_layers(item) | layers_in_reason(reason)
    if not needed:
        return
    active = active_layers()
    if all(active.get(name, False) for name in needed):
        report.outcome = "failed"
        report.longrepr = (
            f"{reason}\nbut spadegym doctor reports {', '.join(sorted(needed))} active on this "
            "machine: in CI a security-layer test may not pass by skipping (fix the test's "
            "detection of the layer)"
        )
