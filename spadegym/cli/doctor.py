"""``spadegym doctor``: which sandbox layers are active on this machine, and what to do if not.

Besides the default worker, it starts one worker under each filesystem mode
(``SandboxConfig.filesystem``: ``"landlock"`` and the ``"mount"`` fallback) and says which of
them work here: the breakout suite (``tests/sandbox/test_breakout.py``) runs under each mode
that works, and skips the others.
"""

from __future__ import annotations

import argparse
import json
import platform
import sys

ADVICE = {
    "network": "run as root, or enable unprivileged user namespaces "
    "(sysctl kernel.unprivileged_userns_clone=1)",
    "ipc": "run as root, or enable unprivileged user namespaces",
    "filesystem": "use Linux 5.13+ with Landlock enabled (lsm=...,landlock), or run as root "
    "for the read-only mount namespace",
    "seccomp": "install libseccomp (apt-get install libseccomp2)",
    "privileges": "run the host as root: each worker then takes a uid of its own",
    "pdeathsig": "use Linux",
    "rlimits": "use Linux",
}


FILESYSTEM_PROBES = ("landlock", "mount")
"""The filesystem modes ``doctor`` tries one by one (``"auto"`` picks the first that works)."""


def probe_filesystem_mode(mode: str) -> dict:
    """Start a worker under filesystem ``mode``; whether it isolated itself and answered.

    Returns:
        ``{"works": bool, "detail": str}``: the filesystem layer's own detail, or why the
        worker did not start.
    """
    from spadegym.errors import SpadegymError
    from spadegym.sandbox import SandboxConfig, SandboxWorker

    worker = SandboxWorker(SandboxConfig(filesystem=mode, allow_weak_sandbox=True))
    try:
        worker.start()
        layer = worker.layers.get("filesystem", {"active": False, "detail": "not reported"})
        works = layer["active"] and worker.ping() == "pong"
        return {"works": bool(works), "detail": layer["detail"]}
    except SpadegymError as exc:
        return {"works": False, "detail": f"the worker did not start: {exc}"}
    finally:
        worker.close()


def add_parsers(subparsers: argparse._SubParsersAction) -> None:
    """Add ``doctor``."""
    parser = subparsers.add_parser(
        "doctor",
        help="show which sandbox layers are active",
        description="Start a sandbox worker and report each isolation layer. Exit 1 if any is off.",
    )
    parser.add_argument("--json", action="store_true", help="print JSON")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Start one worker, print its layers."""
    from spadegym.errors import SandboxError
    from spadegym.sandbox import WEAK_SANDBOX_ENV, SandboxConfig, SandboxWorker
    from spadegym.sandbox.config import REQUIRED_LAYERS

    # Allowed weak here only to look at it: the report says what a real run would refuse.
    worker = SandboxWorker(SandboxConfig(allow_weak_sandbox=True))
    try:
        worker.start()
        layers = worker.layers
    except SandboxError as exc:
        print(f"spadegym doctor: {exc}", file=sys.stderr)
        return 1
    finally:
        worker.close()
    refused = [n for n in REQUIRED_LAYERS if n in layers and not layers[n]["active"]]
    modes = {mode: probe_filesystem_mode(mode) for mode in FILESYSTEM_PROBES}
    if args.json:
        print(
            json.dumps(
                {
                    "python": platform.python_version(),
                    "layers": layers,
                    "required": list(REQUIRED_LAYERS),
                    "refused_by_default": refused,
                    "filesystem_modes": modes,
                }
            )
        )
    else:
        print(
            f"spadegym sandbox on {platform.system()} {platform.release()}, "
            f"Python {platform.python_version()}"
        )
        for name, layer in layers.items():
            state = "active" if layer["active"] else "OFF   "
            print(f"  {name:<11} {state}  {layer['detail']}")
            if not layer["active"]:
                print(f"  {'':<11}         to enable: {ADVICE.get(name, '')}")
        print("  deadlines   active  soft in the worker (all program code), hard kill by the host")
        print("  one program active  each worker process serves one program")
        print("  policy      active  RestrictedPython, default-deny (always on)")
        print("\nFilesystem modes (SandboxConfig.filesystem), each tried with a worker of its own:")
        for mode, probe in modes.items():
            state = "works " if probe["works"] else "absent"
            print(f"  {mode:<11} {state}  {probe['detail']}")
        if refused:
            print(
                f"\nGenerated code is refused here: the {' and '.join(refused)} layer is off. "
                f"Fix it, or accept a weaker sandbox with {WEAK_SANDBOX_ENV}=1 "
                "(or SandboxConfig(allow_weak_sandbox=True))."
            )
    return 0 if all(layer["active"] for layer in layers.values()) else 1
