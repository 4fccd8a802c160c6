"""Running untrusted environment programs: isolated worker processes speaking JSON over pipes.

See ``isolation`` for what the boundary covers and what it does not.
"""

from spadegym.sandbox.client import InProcessWorker, ProgramInfo, SandboxWorker, StepResult
from spadegym.sandbox.config import SandboxConfig
from spadegym.sandbox.pool import EnvHandle, SandboxPool, make_worker
from spadegym.sandbox.supply import WorkerSupply, fresh_worker

__all__ = [
    "EnvHandle",
    "InProcessWorker",
    "ProgramInfo",
    "SandboxConfig",
    "SandboxPool",
    "SandboxWorker",
    "StepResult",
    "WorkerSupply",
    "fresh_worker",
    "make_worker",
]
