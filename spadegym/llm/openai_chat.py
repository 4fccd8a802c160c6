"""``OpenAIChat``: any OpenAI-compatible chat-completions server, through the official client.

One class serves OpenAI itself and every server that speaks the same protocol (vLLM, SGLang,
Ollama, llama.cpp's server, LM Studio). The client's own retries are switched off and done
here instead, so that the policy is one we state and test: retry on 429, on 5xx, on timeouts
and on dropped connections, with exponential backoff (a server's ``Retry-After`` is honoured,
up to ``max_backoff``); never retry other 4xx, which will not get better. A semaphore bounds
the requests in flight, for threads and for asyncio alike.
"""

from __future__ import annotations

import asyncio
import os
import random
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from spadegym.errors import ConfigError
from spadegym.llm.base import LLMError, LLMUnreachableError, Message, check_messages

__all__ = ["OpenAIChat", "OpenAIConfig"]


@dataclass(frozen=True)
class OpenAIConfig:
    """How to reach the server and how to sample."""

    model: str
    """The model name the server knows (``"gpt-4.1-mini"``, ``"Qwen/Qwen3-8B"``)."""

    base_url: str | None = None
    """The server's ``/v1`` URL; ``None`` means OpenAI (or ``$OPENAI_BASE_URL``)."""

    api_key: str | None = None
    """``None`` reads ``$OPENAI_API_KEY``; local servers that need none get ``"EMPTY"``."""

    temperature: float = 0.6
    """Sampling temperature (SPADE uses 0.6 for the designer)."""

    top_p: float | None = None
    """Nucleus sampling; ``None`` leaves the server's default."""

    max_tokens: int | None = 8192
    """Completion token limit per reply; ``None`` leaves the server's default."""

    timeout: float = 300.0
    """Seconds one request may take before it is abandoned (and retried)."""

    max_retries: int = 4
    """Retries after the first attempt, on 429, 5xx, timeouts and dropped connections. A
    server that has not answered once yet and refuses the connection is retried only once:
    nothing is running there, and waiting out every backoff only delays saying so."""

    backoff: float = 1.0
    """The first retry waits this many seconds; each later one twice as long, with jitter."""

    max_backoff: float = 60.0
    """No wait between attempts is longer than this, whatever ``Retry-After`` says."""

    concurrency: int = 8
    """Requests in flight at once, across all threads and tasks using this backend."""

    extra_body: dict[str, Any] = field(default_factory=dict)
    """Extra JSON fields for the request body (vLLM's ``top_k``, a chat-template switch)."""

    def __post_init__(self) -> None:
        if not self.model:
            raise ConfigError(
                "model is empty; name the model the server serves (openai:<model>[@<base_url>])."
            )
        if self.concurrency < 1 or self.max_retries < 0 or self.timeout <= 0:
            raise ConfigError(
                f"concurrency={self.concurrency}, max_retries={self.max_retries}, "
                f"timeout={self.timeout}: need concurrency >= 1, max_retries >= 0 "
                "and timeout > 0."
            )
        if self.backoff < 0 or self.max_backoff < 0:
            raise ConfigError(
                f"backoff={self.backoff}, max_backoff={self.max_backoff}: waits cannot be negative."
            )


class OpenAIChat:
    """Chat completions from an OpenAI-compatible server.

    Args:
        model: the model name, or an ``OpenAIConfig`` (then no other arguments).
        **settings: the other fields of ``OpenAIConfig``.

    Example:
        >>> llm = OpenAIChat("Qwen/Qwen3-8B", base_url="http://localhost:8000/v1")
        >>> llm.complete([{"role": "user", "content": "Hello"}], n=2)  # doctest: +SKIP
    """

    def __init__(self, model: str | OpenAIConfig, **settings: Any):
        try:
            import openai
        except ModuleNotFoundError as exc:
            raise ConfigError(
                "OpenAIChat needs the openai package: pip install "
                "'spadegym[llm]' (or pip install openai)."
            ) from exc
        self._openai = openai
        self.config = model if isinstance(model, OpenAIConfig) else OpenAIConfig(model, **settings)
        cfg = self.config
        self.name = f"openai:{cfg.model}" + (f"@{cfg.base_url}" if cfg.base_url else "")
        self._api_key = cfg.api_key or os.environ.get("OPENAI_API_KEY") or "EMPTY"
        self._client = openai.OpenAI(
            api_key=self._api_key, base_url=cfg.base_url, timeout=cfg.timeout, max_retries=0
        )
        self._slots = threading.BoundedSemaphore(cfg.concurrency)
        self._async_client: Any = None
        self._async_slots: dict[int, asyncio.Semaphore] = {}
        self._rng = random.Random()
        self.requests = 0
        """Requests sent, retries included (for tests and benchmarks)."""
        self._answered = False  # whether the server has answered once

    # -- sync -------------------------------------------------------------------------------

    def complete(self, messages: Sequence[Message], n: int = 1) -> list[str]:
        """Return ``n`` completions of ``messages``.

        Servers that ignore ``n`` (llama.cpp, Ollama) answer with one choice; the missing
        completions are asked for again, one request at a time.

        Raises:
            LLMError: a request failed for good (after retries, or a 4xx that retrying cannot
                fix); the message names the status and the server's words.
        """
        sent = check_messages(messages, n)
        replies: list[str] = []
        while len(replies) < n:
            replies += self._with_retries(sent, n - len(replies))
        return replies[:n]

    def _with_retries(self, messages: list[Message], n: int) -> list[str]:
        attempt = 0
        while True:
            try:
                with self._slots:
                    self.requests += 1
                    response = self._client.chat.completions.create(**self._request(messages, n))
                self._answered = True
                return self._texts(response)
            except self._openai.APIError as exc:
                wait = self._retry_wait(exc, attempt)
                if wait is None:
                    raise self._error(exc, attempt) from exc
            attempt += 1
            time.sleep(wait)

    # -- async ------------------------------------------------------------------------------

    async def acomplete(self, messages: Sequence[Message], n: int = 1) -> list[str]:
        """``complete`` for asyncio: the same retries, with the concurrency limit per loop."""
        sent = check_messages(messages, n)
        replies: list[str] = []
        while len(replies) < n:
            replies += await self._awith_retries(sent, n - len(replies))
        return replies[:n]

    async def _awith_retries(self, messages: list[Message], n: int) -> list[str]:
        client = self._get_async_client()
        # An asyncio.Semaphore belongs to one event loop; keep one per loop.
        loop_id = id(asyncio.get_running_loop())
        slots = self._async_slots.setdefault(loop_id, asyncio.Semaphore(self.config.concurrency))
        attempt = 0
        while True:
            try:
                async with slots:
                    self.requests += 1
                    response = await client.chat.completions.create(**self._request(messages, n))
                self._answered = True
                return self._texts(response)
            except self._openai.APIError as exc:
                wait = self._retry_wait(exc, attempt)
                if wait is None:
                    raise self._error(exc, attempt) from exc
            attempt += 1
            await asyncio.sleep(wait)

    def _get_async_client(self) -> Any:
        if self._async_client is None:
            cfg = self.config
            self._async_client = self._openai.AsyncOpenAI(
                api_key=self._api_key, base_url=cfg.base_url, timeout=cfg.timeout, max_retries=0
            )
        return self._async_client

    # -- shared -----------------------------------------------------------------------------

    def _request(self, messages: list[Message], n: int) -> dict[str, Any]:
        cfg = self.config
        request: dict[str, Any] = {
            "model": cfg.model,
            "messages": messages,
            "temperature": cfg.temperature,
        }
        if n > 1:  # some servers refuse the field altogether; send it only when it matters
            request["n"] = n
        if cfg.top_p is not None:
            request["top_p"] = cfg.top_p
        if cfg.max_tokens is not None:
            request["max_tokens"] = cfg.max_tokens
        if cfg.extra_body:
            request["extra_body"] = dict(cfg.extra_body)
        return request

    def _texts(self, response: Any) -> list[str]:
        choices = sorted(response.choices or [], key=lambda c: c.index or 0)
        if not choices:
            raise LLMError(
                f"{self.name} answered with no choices; check that the model "
                "serves chat completions."
            )
        return [(choice.message.content or "") for choice in choices]

    def _retry_wait(self, exc: Exception, attempt: int) -> float | None:
        """Seconds to wait before retrying ``exc``, or ``None`` when it must not be retried."""
        openai = self._openai
        status = getattr(exc, "status_code", None)
        retryable = (
            isinstance(exc, openai.APIConnectionError)
            or status == 429
            or (isinstance(status, int) and status >= 500)
        )
        if not retryable or attempt >= self.config.max_retries:
            return None
        if self._refused(exc) and not self._answered and attempt >= 1:
            return None  # nothing serves there: say so now rather than after every backoff
        wait = self.config.backoff * 2**attempt * (0.75 + 0.5 * self._rng.random())
        response = getattr(exc, "response", None)
        header = response.headers.get("retry-after") if response is not None else None
        if header:
            try:
                wait = max(wait, float(header))
            except ValueError:
                pass  # an HTTP date: the exponential wait is close enough
        return min(wait, self.config.max_backoff)

    def _refused(self, exc: Exception) -> bool:
        """A connection that could not be made (a timeout is not that)."""
        openai = self._openai
        return isinstance(exc, openai.APIConnectionError) and not isinstance(
            exc, openai.APITimeoutError
        )

    def _error(self, exc: Exception, attempt: int) -> LLMError:
        """The error to raise for a request that failed for good."""
        kind = LLMUnreachableError if self._refused(exc) else LLMError
        return kind(self._describe(exc, attempt))

    def _describe(self, exc: Exception, attempt: int) -> str:
        status = getattr(exc, "status_code", None)
        what = f"HTTP {status}" if status else type(exc).__name__
        tries = f" after {attempt + 1} attempts" if attempt else ""
        detail = str(exc).strip().rstrip(".")[:300]
        if status in (401, 403):
            fix = " Set OPENAI_API_KEY (or api_key=) to a key the server accepts."
        elif status == 404:
            fix = f" Check the model name {self.config.model!r} and the base URL."
        elif isinstance(exc, self._openai.APITimeoutError):
            fix = f" Raise timeout (now {self.config.timeout:g} s) or lower max_tokens."
        elif isinstance(exc, self._openai.APIConnectionError):
            fix = f" Is the server at {self.config.base_url or 'the OpenAI API'} running?"
        else:
            fix = ""
        return f"{self.name}: {what}{tries}: {detail}.{fix}"
