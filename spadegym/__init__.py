"""spadegym: LLM-written code in, validated, sandboxed, registered Gymnasium environments out.

``import spadegym`` is light: it imports Gymnasium, and no torch. Public API:

- ``validate(text) -> ValidationReport``: check a program (or a raw model reply).
- ``ProgramEnv``: the Gymnasium environment around a program, sandboxed by default.
- ``SandboxConfig``, ``SandboxPool``: how programs run, and many instances over few workers.
- ``Registry``: a folder of validated environments; ``import spadegym`` registers every
  environment of every registry root with Gymnasium (``gymnasium.make("spade/Name-v0")``).
- ``EnvBatch`` (``spadegym.vector``): step a batch of different environments at once.
- ``generate(n, llm)``: write environments with a designer model, validate, repair, register
  (``spadegym.designer``); ``llm_from_spec`` and ``load_corpus`` build its inputs.
- ``dataset(ids, size, seed)``: single-turn items in reasoning-gym's shape, with
  ``score_answer`` (``spadegym.integrations.dataset``); adapters for TRL, verifiers and OpenEnv
  live in ``spadegym.integrations``.
"""

from typing import Any

from spadegym.contract import CONTRACT_VERSION
from spadegym.env import PrintableText as _PrintableText
from spadegym.env import ProgramEnv
from spadegym.errors import (
    ConfigError,
    PolicyError,
    ProgramError,
    SandboxError,
    SpadegymError,
)
from spadegym.integrations import reasoning_gym_plugin as _reasoning_gym_plugin
from spadegym.registry import register_roots as _register_roots
from spadegym.sandbox import SandboxConfig, SandboxPool
from spadegym.validation import CheckResult, ValidationConfig, ValidationReport, validate
from spadegym.vector import text_memory as _text_memory

__version__ = "0.1.0"

__all__ = [
    "CONTRACT_VERSION",
    "CheckResult",
    "ConfigError",
    "Corpus",
    "EnvBatch",
    "GenerationReport",
    "PolicyError",
    "ProgramEnv",
    "ProgramError",
    "Registry",
    "SandboxConfig",
    "SandboxError",
    "SandboxPool",
    "SpadegymError",
    "ValidationConfig",
    "ValidationReport",
    "__version__",
    "dataset",
    "generate",
    "llm_from_spec",
    "load_corpus",
    "validate",
]

_LAZY = {
    "Registry": "spadegym.registry",
    "EnvBatch": "spadegym.vector",
    "generate": "spadegym.designer",
    "GenerationReport": "spadegym.designer",
    "Corpus": "spadegym.corpus",
    "load_corpus": "spadegym.corpus",
    "llm_from_spec": "spadegym.llm",
    "dataset": "spadegym.integrations.dataset",
}


def __getattr__(name: str) -> Any:
    # Registry loads pydantic and EnvBatch the sandbox pool: only when asked for.
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'spadegym' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


# AsyncVectorEnv's default shared memory holds an environment's text as code points. It is
# wired here because every import of spadegym.env runs this file first, and env (a floor below
# vector) imports nothing from vector.
_text_memory.register(_PrintableText)
_register_roots()
_reasoning_gym_plugin.install()
