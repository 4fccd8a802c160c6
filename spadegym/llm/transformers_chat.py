"""``TransformersChat``: a local Hugging Face causal LM as a chat backend, batched.

For small models, tests and offline use (``smollm2``); a serving engine behind ``OpenAIChat``
is far faster for real runs. Requests from many threads (``evaluate``'s ``concurrency``,
``generate``'s candidates) or asyncio tasks are gathered by a ``RequestBatcher`` into one
left-padded ``generate`` call per batch of equal sampling settings, on one worker thread: on 2
cores eight sequences in one call take about twice as long as one sequence, not eight times.

Reproducibility. Each sampled completion draws its tokens from its own random generator,
seeded from ``seed``, the prompt's tokens and the completion's index, so with a ``seed`` an
answer depends on the conversation and the settings alone: not on which other requests share
its batch, where it sits in the batch, or how many threads are asking. Two things remain
outside that promise: the logits of a row are computed with the batch's shapes, and their
floating-point rounding differs between batch shapes by about 1e-6 in float32 (far more in
bfloat16), which on rare tokens decides a greedy tie or a sampled boundary the other way; and
without a ``seed`` the per-completion seeds come from torch's global generator, in the order
batches run. torch and transformers are imported when the backend is built, never at
``import spadegym``.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import hashlib
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from spadegym.errors import ConfigError
from spadegym.llm.base import LLMError, Message, SyncChat, check_messages
from spadegym.llm.batching import RequestBatcher
from spadegym.llm.tokens import encode_chat, left_pad

__all__ = ["TransformersChat"]


@dataclass(frozen=True)
class _Job:
    """One ``complete`` call: its prompt, how many completions, and their seeds' source."""

    prompt: tuple[int, ...]
    n: int
    seed: int | None


class TransformersChat(SyncChat):
    """Sample completions from a local causal language model, batching concurrent requests.

    Args:
        model: a model spec that ``spadegym.llm.local_model.resolve_local_model`` reads (a
            model folder or hub name already on disk, ``gguf:<file>``, ``smollm2``), or a
            loaded ``PreTrainedModel``.
        tokenizer: the tokenizer; loaded with the model when ``model`` is a spec.
        max_new_tokens: completion length limit.
        temperature: sampling temperature; 0 means greedy decoding (then every one of the
            ``n`` completions is the same).
        top_p: nucleus sampling: each token is drawn from the smallest set of most likely
            tokens whose probabilities add up to ``top_p``.
        device: where to run (``"cpu"``, ``"cuda"``); ``None`` keeps the model where it is,
            or picks CUDA when available for a model loaded here.
        seed: makes completions repeatable (see the module docstring); ``None`` does not.
        name: recorded in provenance; defaults to the spec (``hf:<path>`` for a folder).
        batch_size: most sequences in one ``generate`` call (a call with ``n`` samples takes
            ``n`` of them).
        batch_window: seconds to wait, after a request reaches an idle model, for others to
            join its batch.
    """

    def __init__(
        self,
        model: Any,
        tokenizer: Any = None,
        *,
        max_new_tokens: int = 2048,
        temperature: float = 0.6,
        top_p: float = 0.95,
        device: str | None = None,
        seed: int | None = None,
        name: str | None = None,
        batch_size: int = 16,
        batch_window: float = 0.02,
    ):
        try:
            import torch
            import transformers  # noqa: F401 - checked here so the error names the fix
        except ModuleNotFoundError as exc:
            raise ConfigError(
                "TransformersChat needs torch and transformers: pip install 'spadegym[train]'."
            ) from exc
        if max_new_tokens < 1 or temperature < 0 or not 0 < top_p <= 1 or batch_size < 1:
            raise ConfigError(
                f"max_new_tokens={max_new_tokens}, temperature={temperature}, top_p={top_p}, "
                f"batch_size={batch_size}: need max_new_tokens >= 1, temperature >= 0, "
                "0 < top_p <= 1 and batch_size >= 1."
            )
        self._torch = torch
        if isinstance(model, str):
            model, tokenizer, default_name = _load(model, tokenizer)
            if device is None:
                device = "cuda" if torch.cuda.is_available() else "cpu"
        else:
            path = getattr(getattr(model, "config", None), "name_or_path", "") or "model"
            default_name = f"hf:{path}"
        if tokenizer is None:
            raise ConfigError(
                "a loaded model needs its tokenizer: TransformersChat(model, tokenizer)."
            )
        if device is not None:
            model = model.to(device)
        model.eval()
        self.model = model
        self.tokenizer = tokenizer
        self.max_new_tokens = max_new_tokens
        self.temperature = temperature
        self.top_p = top_p
        self.seed = seed
        self.name = name or default_name
        pad = tokenizer.pad_token_id
        self._pad = tokenizer.eos_token_id if pad is None else pad
        # Fast tokenizers refuse concurrent use ("Already borrowed"); encoding is quick.
        self._tokenizer_lock = threading.Lock()
        self._batcher = RequestBatcher(
            self._generate_batch,
            max_rows=batch_size,
            window=batch_window,
            name=f"{self.name} generation",
        )

    @property
    def generate_calls(self) -> int:
        """``generate`` calls (batches) run so far."""
        return self._batcher.batches

    def complete(self, messages: Sequence[Message], n: int = 1) -> list[str]:
        """Return ``n`` completions of the conversation (waits for its batch)."""
        return self._submit(messages, n).result()

    async def acomplete(self, messages: Sequence[Message], n: int = 1) -> list[str]:
        """``complete`` for asyncio callers: awaits the batch without holding a thread."""
        return await asyncio.wrap_future(self._submit(messages, n))

    def close(self) -> None:
        """Finish the batch in progress and refuse further requests."""
        self._batcher.close()

    def _submit(self, messages: Sequence[Message], n: int) -> concurrent.futures.Future:
        sent = check_messages(messages, n)
        with self._tokenizer_lock:
            prompt = tuple(encode_chat(self.tokenizer, sent))
        # Settings are read now, so a request keeps the settings it was made with.
        key = (self.temperature, self.top_p, self.max_new_tokens)
        rows = n if self.temperature > 0 else 1
        return self._batcher.submit(key, _Job(prompt, n, self.seed), rows)

    def _generate_batch(self, key: tuple[float, float, int], jobs: list[_Job]) -> list[list[str]]:
        """Run one batch: every job's rows in one left-padded ``generate`` call."""
        torch = self._torch
        temperature, top_p, max_new_tokens = key
        sampled = temperature > 0
        rows = [(job, k) for job in jobs for k in range(job.n if sampled else 1)]
        # A canonical order: the same requests make the same batch whatever their arrival.
        rows.sort(key=lambda row: (row[0].prompt, row[1]))
        ids, mask = left_pad([job.prompt for job, _ in rows], self._pad)
        width = ids.shape[1]
        device = next(self.model.parameters()).device
        settings: dict[str, Any] = {}
        if sampled:
            from transformers import LogitsProcessorList

            generators = [self._generator(job, k) for job, k in rows]
            sampler = _RowSampler(generators, temperature, top_p)
            settings["logits_processor"] = LogitsProcessorList([sampler])
        try:
            with torch.no_grad():
                output = self.model.generate(
                    input_ids=ids.to(device),
                    attention_mask=mask.to(device),
                    max_new_tokens=max_new_tokens,
                    pad_token_id=self._pad,
                    # Sampling happens in _RowSampler, which leaves one candidate per row;
                    # unset the model's own sampling defaults so none is applied twice.
                    do_sample=False,
                    temperature=None,
                    top_p=None,
                    top_k=None,
                    **settings,
                )
        except (RuntimeError, ValueError) as exc:
            raise LLMError(f"{self.name}: generate() failed: {exc}") from exc
        with self._tokenizer_lock:
            texts = [
                self.tokenizer.decode(output[r, width:], skip_special_tokens=True)
                for r in range(len(rows))
            ]
        answers: dict[int, list[str]] = {id(job): [] for job in jobs}
        for (job, _), text in sorted(zip(rows, texts), key=lambda pair: pair[0][1]):
            answers[id(job)].append(text)
        # Greedy decoding gives one answer; the n completions asked for are all that one.
        return [a if len(a) == job.n else a * job.n for job, a in zip(jobs, answers.values())]

    def _generator(self, job: _Job, k: int) -> Any:
        torch = self._torch
        if job.seed is None:
            seed = int(torch.randint(0, 2**63 - 1, ()))
        else:
            digest = hashlib.blake2b(digest_size=8)
            digest.update(f"{job.seed}|{k}|".encode())
            digest.update(",".join(map(str, job.prompt)).encode())
            seed = int.from_bytes(digest.digest(), "little") & (2**63 - 1)
        return torch.Generator().manual_seed(seed)


class _RowSampler:
    """A logits processor that samples each row with its own generator.

    transformers draws every row of a sampled batch from one global generator, so a row's
    tokens would depend on its neighbours. This processor applies the temperature and top-p,
    draws each row's token with the row's generator, and leaves only that token possible, so
    ``generate`` (greedy from then on) takes it.
    """

    NUCLEUS = 256
    """Tokens ranked first; the whole vocabulary only when a nucleus is larger."""

    def __init__(self, generators: list[Any], temperature: float, top_p: float):
        self.generators = generators
        self.temperature = temperature
        self.top_p = top_p

    def __call__(self, input_ids: Any, scores: Any) -> Any:
        import torch

        probs = torch.softmax(scores.float() / self.temperature, dim=-1)
        order = None
        ranked = probs
        if self.top_p < 1.0:
            # The nucleus usually lies among the few most likely tokens: rank those alone
            # unless some row's nucleus reaches past them (sorting the vocabulary is slow).
            ranked, order = probs.topk(min(self.NUCLEUS, probs.shape[-1]), dim=-1)
            if bool((ranked.sum(dim=-1) < self.top_p).any()):
                ranked, order = probs.sort(dim=-1, descending=True)
            # Keep the most likely tokens until their mass reaches top_p (the first always).
            before = ranked.cumsum(dim=-1) - ranked
            ranked = ranked.masked_fill(before >= self.top_p, 0.0)
        cumulative = ranked.cumsum(dim=-1)
        draws = torch.stack([torch.rand((), generator=g) for g in self.generators])
        targets = draws.to(cumulative.device, cumulative.dtype).unsqueeze(-1) * cumulative[:, -1:]
        picks = torch.searchsorted(cumulative, targets).clamp_(max=ranked.shape[-1] - 1)
        chosen = picks if order is None else order.gather(-1, picks)
        out = torch.full_like(scores, float("-inf"))
        return out.scatter_(-1, chosen, 0.0)


def _load(spec: str, tokenizer: Any) -> tuple[Any, Any, str]:
    """The model, tokenizer and provenance name of a model spec."""
    from spadegym.llm.local_model import load_causal_lm, load_tokenizer, resolve_local_model

    local = resolve_local_model(spec)
    try:
        tokenizer = tokenizer or load_tokenizer(local)
        model = load_causal_lm(local)
    except OSError as exc:
        raise ConfigError(
            f"cannot load a model from {spec!r}: {exc}. Give a folder holding config.json, "
            "the weights and the tokenizer, a gguf:<file>, or smollm2."
        ) from exc
    return model, tokenizer, local.name if local.gguf_file else f"hf:{local.path}"
