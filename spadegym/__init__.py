"""spadegym: LLM-written code in, validated, sandboxed, registered Gymnasium environments out.

``import spadegym`` is light: it imports Gymnasium, and no torch. Public API:

- ``validate(text) -> ValidationReport``: check a program (or a raw model reply).
- ``ProgramEnv``: the Gymnasium environment around a program, sandboxed by default.
- ``SandboxConfig``, ``SandboxPool``: how programs run, and many instances over few workers.
"""

from spadegym.contract import CONTRACT_VERSION
from spadegym.env import ProgramEnv
from spadegym.errors import (
    ConfigError,
    PolicyError,
    ProgramError,
    SandboxError,
    SpadegymError,
)
from spadegym.sandbox import SandboxConfig, SandboxPool
from spadegym.validation import CheckResult, ValidationConfig, ValidationReport, validate

__version__ = "0.1.0"

__all__ = [
    "CONTRACT_VERSION",
    "CheckResult",
    "ConfigError",
    "PolicyError",
    "ProgramEnv",
    "ProgramError",
    "SandboxConfig",
    "SandboxError",
    "SandboxPool",
    "SpadegymError",
    "ValidationConfig",
    "ValidationReport",
    "__version__",
    "validate",
]
