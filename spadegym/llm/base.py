"""The chat backend protocol: chat messages in, ``n`` completions out, sync and async.

Every backend (an OpenAI-compatible server, a local transformers model, a replay of recorded
replies) offers the same two calls, so ``generate`` and the trainer never know which one they
hold. Backends that are synchronous at heart get ``acomplete`` from ``SyncChat``, which runs
``complete`` in a thread.
"""

from __future__ import annotations

import abc
import asyncio
from collections.abc import Sequence
from typing import Protocol, runtime_checkable

from spadegym.errors import SpadegymError

__all__ = ["ChatLLM", "LLMError", "LLMUnreachableError", "Message", "SyncChat", "check_messages"]

Message = dict[str, str]
"""One chat message: ``{"role": "system" | "user" | "assistant", "content": str}``."""

_ROLES = frozenset({"system", "user", "assistant"})


class LLMError(SpadegymError):
    """A backend could not produce completions (after its retries, where it has any)."""


class LLMUnreachableError(LLMError):
    """No connection to the backend could be made (refused, unknown host): nothing serves there.

    Every later request would fail the same way, so a caller with many requests to make (such
    as ``generate``) stops at the first one.
    """


class Completes(Protocol):
    """What a single synchronous caller needs from a model (``write_hint``): ``complete``."""

    def complete(self, messages: Sequence[Message], n: int = 1) -> list[str]:
        """Return ``n`` completions of the conversation ``messages``."""
        ...


@runtime_checkable
class ChatLLM(Protocol):
    """What ``generate`` needs from a language model.

    Attributes:
        name: a short description recorded in provenance (``"openai:Qwen/Qwen3-8B"``).
    """

    name: str

    def complete(self, messages: Sequence[Message], n: int = 1) -> list[str]:
        """Return ``n`` completions of the conversation ``messages``.

        Raises:
            LLMError: no completions could be produced.
        """
        ...

    async def acomplete(self, messages: Sequence[Message], n: int = 1) -> list[str]:
        """``complete`` for asyncio callers."""
        ...


class SyncChat(abc.ABC):
    """A base for synchronous backends: ``acomplete`` runs ``complete`` in a thread."""

    name: str = "chat"

    @abc.abstractmethod
    def complete(self, messages: Sequence[Message], n: int = 1) -> list[str]:
        """Return ``n`` completions of ``messages``."""

    async def acomplete(self, messages: Sequence[Message], n: int = 1) -> list[str]:
        """``complete``, off the event loop."""
        return await asyncio.to_thread(self.complete, messages, n)


def check_messages(messages: Sequence[Message], n: int) -> list[Message]:
    """Check a request before it is sent, so every backend refuses the same mistakes.

    Args:
        messages: the conversation.
        n: how many completions are wanted.

    Returns:
        The messages as a list of plain dicts.

    Raises:
        LLMError: an empty conversation, a message that is not a role/content dict, or n < 1.
    """
    if n < 1:
        raise LLMError(f"n={n}: ask for at least one completion.")
    out = []
    for k, message in enumerate(messages):
        if (
            not isinstance(message, dict)
            or message.get("role") not in _ROLES
            or not isinstance(message.get("content"), str)
        ):
            raise LLMError(
                f"messages[{k}] is {message!r:.80}; each message must be a dict with "
                "a role (system, user or assistant) and a str content."
            )
        out.append({"role": message["role"], "content": message["content"]})
    if not out:
        raise LLMError("messages is empty; send at least one user message.")
    return out
