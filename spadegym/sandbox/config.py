"""Settings of the sandbox: how untrusted programs are run, and within which limits."""

from __future__ import annotations

import os
from dataclasses import dataclass

from spadegym.errors import ConfigError
from spadegym.sandbox import protocol

ISOLATION_MODES = ("process", "none")
FILESYSTEM_MODES = ("auto", "landlock", "mount", "off")

WEAK_SANDBOX_ENV = "SPADEGYM_ALLOW_WEAK_SANDBOX"
"""Set to ``1`` to run programs even when a required isolation layer is missing."""

REQUIRED_LAYERS = ("network", "privileges")
"""Layers without which a worker refuses to run programs (unless ``allow_weak_sandbox``)."""


@dataclass(frozen=True)
class SandboxConfig:
    """Limits and isolation for environment programs.

    The defaults suit LLM-written environments: steps that finish in milliseconds, small state.
    """

    isolation: str = "process"
    """``"process"``: each program runs in a fresh, limited worker process (the default and the
    boundary). ``"none"``: run in the host process under the restricted policy only. That is
    no security at all: a program that gets past the policy owns the host (its files,
    network, credentials, memory). Use it for programs you wrote yourself, never for a
    model's output."""

    call_timeout: float = 5.0
    """Seconds one ``reset``/``step``/``solution``/``hint``/``close`` call may take before the
    worker interrupts it (the soft deadline)."""

    load_timeout: float = 10.0
    """Seconds to compile a program, run its module code and create an instance."""

    kill_grace: float = 1.0
    """Seconds past a soft deadline after which the host kills the worker and starts a new one
    (the hard deadline). Writing a request to a worker has the same deadline."""

    memory_mb: int = 1024
    """Address-space limit of a worker (RLIMIT_AS), in MiB."""

    cpu_seconds: int = 3600
    """CPU time a worker may use over its life (RLIMIT_CPU); it is restarted past that. Each
    call also has its own CPU limit, its deadline plus ``kill_grace`` plus one second, which
    ends a worker that spins on after its host is gone."""

    max_open_files: int = 32
    """RLIMIT_NOFILE of a worker."""

    network_namespace: bool = True
    """Put each worker in an empty network namespace and a private IPC namespace (needs root
    or user namespaces). Turning it off is an explicit opt-out of the network layer."""

    filesystem: str = "auto"
    """The filesystem layer: ``"landlock"`` (reads only below the Python installation and
    spadegym's package, no writes anywhere), ``"mount"`` (a private mount namespace in which
    every mount is read-only), ``"auto"`` (Landlock where the kernel has it, else the mount
    namespace), ``"off"``."""

    seccomp: bool = True
    """Load a seccomp filter denying process creation, sockets, file opening and changing,
    IPC, mounts and the other calls of ``isolation.DENIED_SYSCALLS`` (needs libseccomp)."""

    require_isolation: bool = False
    """Refuse to start a worker unless every layer asked for is active. Without it, only the
    network and privilege layers are required (see ``allow_weak_sandbox``); a missing
    filesystem, IPC or seccomp layer is reported by ``spadegym doctor`` and in worker status."""

    allow_weak_sandbox: bool = False
    """Run programs even when the network or privilege layer is missing (the environment
    variable ``SPADEGYM_ALLOW_WEAK_SANDBOX=1`` does the same). Off by default: a worker that
    could reach the network or keep root is refused with an error naming the missing layer."""

    def __post_init__(self) -> None:
        if self.isolation not in ISOLATION_MODES:
            raise ConfigError(
                f"isolation={self.isolation!r} is not a mode; use 'process' (the default, for "
                "untrusted programs) or 'none' (trusted programs only: no security at all)."
            )
        if self.filesystem not in FILESYSTEM_MODES:
            raise ConfigError(
                f"filesystem={self.filesystem!r} is not a mode; use one of "
                f"{', '.join(FILESYSTEM_MODES)} ('auto' is the default)."
            )
        for name in ("call_timeout", "load_timeout", "kill_grace"):
            if not getattr(self, name) > 0:
                raise ConfigError(
                    f"{name}={getattr(self, name)!r} must be a positive number of seconds."
                )
        if self.memory_mb < 128:
            raise ConfigError(
                f"memory_mb={self.memory_mb} is too small for a Python worker; "
                "use 128 or more (the default is 1024)."
            )
        if self.cpu_seconds < 1 or self.max_open_files < 8:
            raise ConfigError("cpu_seconds must be >= 1 and max_open_files >= 8.")

    def deadline(self, op: str | None) -> float:
        """The soft deadline, in seconds, of one request ``op`` (``"step"``, ``"load"``, ...).

        ``load`` and ``new`` get ``load_timeout``, every other call ``call_timeout``: the rule
        is ``protocol.deadline``, which the worker applies too.
        """
        return protocol.deadline(op, self.call_timeout, self.load_timeout)

    def weak_sandbox_allowed(self) -> bool:
        """Whether a missing required layer is accepted (the field or the environment)."""
        return self.allow_weak_sandbox or os.environ.get(WEAK_SANDBOX_ENV, "") == "1"
