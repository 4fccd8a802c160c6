"""Language-model backends for the designer: one small protocol, four implementations.

``OpenAIChat`` (any OpenAI-compatible server), ``TransformersChat`` (a local model),
``ReplayChat`` (recorded replies, offline) and ``RecordingChat`` (records any backend).
``llm_from_spec`` reads the command-line spelling: ``openai:<model>[@<base_url>]``,
``hf:<path>``, ``replay:<file>``. Importing this package imports neither openai nor torch.
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
    "RecordingChat",
    "ReplayChat",
    "SyncChat",
    "TransformersChat",
    "check_messages",
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


def llm_from_spec(spec: str, **settings: Any) -> ChatLLM:
    """Build a backend from its command-line spelling.

    Args:
        spec: ``openai:<model>[@<base_url>]`` (e.g.
            ``openai:Qwen/Qwen3-8B@http://localhost:8000/v1``), ``hf:<path>`` (a local model
            folder) or ``replay:<file>`` (a JSONL replay file).
        **settings: passed to the backend (``temperature``, ``concurrency``, ``cycle``, ...).

    Raises:
        ConfigError: an unknown scheme or a missing part.
    """
    scheme, _, rest = spec.partition(":")
    if not rest:
        raise ConfigError(
            f"LLM spec {spec!r} has no value after the scheme; write "
            "openai:<model>[@<base_url>], hf:<path> or replay:<file>."
        )
    if scheme == "openai":
        model, base_url = rest, None
        at = rest.rfind("@")
        # Only a URL after the last "@" is a base URL; model names may hold "@" themselves.
        if at > 0 and rest[at + 1 :].startswith(("http://", "https://")):
            model, base_url = rest[:at], rest[at + 1 :]
        from spadegym.llm.openai_chat import OpenAIChat

        return OpenAIChat(model, base_url=base_url, **settings)
    if scheme == "hf":
        from spadegym.llm.transformers_chat import TransformersChat

        return TransformersChat(rest, **settings)
    if scheme == "replay":
        return ReplayChat(rest, **settings)
    raise ConfigError(f"LLM spec {spec!r}: unknown scheme {scheme!r}; use openai:, hf: or replay:.")
