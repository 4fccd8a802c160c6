"""Settings of the sandbox: how untrusted programs are run, and within which limits."""

from __future__ import annotations

from dataclasses import dataclass

from spadegym.errors import ConfigError

ISOLATION_MODES = ("process", "none")


@dataclass(frozen=True)
class SandboxConfig:
    """Limits and isolation for environment programs.

    The defaults suit LLM-written environments: steps that finish in milliseconds, small state.
    """

    isolation: str = "process"
    """``"process"``: each program runs in a fresh, limited worker process (the default and the
    boundary). ``"none"``: run in the host process under the restricted policy only; for
    programs you trust (the shipped library, your own code), never for a model's output."""

    call_timeout: float = 5.0
    """Seconds one ``reset``/``step``/``solution``/``hint`` call may take before the worker
    interrupts it (the soft deadline)."""

    load_timeout: float = 10.0
    """Seconds to compile a program, run its module code and create an instance."""

    kill_grace: float = 1.0
    """Seconds past a soft deadline after which the host kills the worker and starts a new one."""

    memory_mb: int = 1024
    """Address-space limit of a worker (RLIMIT_AS), in MiB."""

    cpu_seconds: int = 3600
    """CPU time a worker may use over its life (RLIMIT_CPU); it is restarted past that."""

    max_open_files: int = 32
    """RLIMIT_NOFILE of a worker."""

    network_namespace: bool = True
    """Put each worker in an empty network namespace (needs root or user namespaces)."""

    seccomp: bool = True
    """Load a seccomp filter denying process creation, sockets and file opening (needs
    libseccomp)."""

    require_isolation: bool = False
    """Refuse to start a worker unless every layer asked for is active (otherwise a missing
    layer is reported by ``spadegym doctor`` and in worker status, and the others still hold)."""

    def __post_init__(self) -> None:
        if self.isolation not in ISOLATION_MODES:
            raise ConfigError(
                f"isolation={self.isolation!r} is not a mode; use 'process' (the default, for "
                "untrusted programs) or 'none' (trusted programs only)."
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
