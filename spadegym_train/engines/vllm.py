"""``VLLMEngine``: vLLM sampling with the LoRA adapters loaded per request (GPU, optional).

The base model is loaded once by vLLM (4-bit through bitsandbytes when the run is 4-bit). After each
update the trainer writes the adapters to ``workspace/adapters/step-N``; the next request names that
folder under a new LoRA id, so vLLM never serves a stale adapter. Nothing is merged. Only the newest
``generation.vllm_keep_adapters`` folders stay on disk. The ``"base"`` role (the hinter) samples
without any adapter. Each completion carries vLLM's log-probs of its tokens, after temperature and
top-p (``logprobs_mode="processed_logprobs"``, required: a vLLM without it is refused), for
truncated importance sampling against the learner's.

Not run in this project's CI (it needs a CUDA GPU and the ``[vllm]`` extra).
"""

from __future__ import annotations

import dataclasses
import shutil
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from spadegym.errors import ConfigError
from spadegym_train.engines.base import BASE_ROLE, Completion, trim_response

if TYPE_CHECKING:
    from spadegym_train.config import TrainConfig


class VLLMEngine:
    """Generation through ``vllm.LLM`` sharing the GPU with the training model.

    Args:
        config: the run's ``TrainConfig`` (``generation.vllm_gpu_memory_utilization`` bounds
            vLLM's share).
        policy: the training policy, whose adapters are saved for vLLM after each update.
        workspace: the run folder; adapters go to ``adapters/step-N`` under it.
    """

    def __init__(self, config: TrainConfig, policy: Any, workspace: str):
        try:
            from vllm import LLM, SamplingParams
            from vllm.lora.request import LoRARequest
        except ImportError as exc:
            raise ConfigError(
                "generation.engine='vllm' needs vLLM: pip install 'spadegym[vllm]' (on a "
                "CUDA machine), or use generation.engine='hf'."
            ) from exc
        self._sampling = SamplingParams
        self._lora_request = LoRARequest
        self.config = config
        self.policy = policy
        self.folder = Path(workspace) / "adapters"
        kwargs = engine_options(config, _engine_arg_names())
        self.llm = LLM(
            model=policy.base_path,
            tokenizer=policy.base_path if Path(policy.base_path).exists() else config.model.name,
            enable_lora=True,
            max_lora_rank=config.lora.r,
            max_loras=len(set(policy.adapters.values())),
            gpu_memory_utilization=config.generation.vllm_gpu_memory_utilization,
            seed=config.seed,
            dtype="bfloat16",
            enable_prefix_caching=True,
            max_model_len=config.generation.max_prompt_tokens
            + max(
                config.generation.designer_max_new_tokens, config.generation.solver_max_new_tokens
            ),
            **kwargs,
        )
        self.requests: dict[str, Any] = {}
        self.saved: list[Path] = []
        self._next_id = 1
        tokenizer = policy.tokenizer
        self.stop_ids = {tokenizer.eos_token_id}
        self.pad_id = tokenizer.pad_token_id
        self.sync(0)

    def sync(self, step: int) -> None:
        """Save the adapters as they are now, point the next requests at them, prune old ones."""
        target = self.folder / f"step-{step}"
        folders = self.policy.save_adapters(target)
        for name, folder in folders.items():
            self.requests[name] = self._lora_request(f"{name}-{step}", self._next_id, folder)
            self._next_id += 1
        self.saved.append(target)
        self.saved = prune_adapters(self.saved, self.config.generation.vllm_keep_adapters)

    def generate(
        self,
        prompts: Sequence[list[int]],
        role: str,
        max_new_tokens: int,
        temperature: float | None = None,
    ) -> list[Completion]:
        """Sample one reply per prompt with the adapter of ``role``.

        ``temperature``: this call's (``None``: the run's).
        """
        params = self._sampling(
            temperature=self.config.generation.temperature if temperature is None else temperature,
            top_p=self.config.generation.top_p,
            max_tokens=max_new_tokens,
            stop_token_ids=sorted(self.stop_ids),
            logprobs=0,  # the sampled token's own log-prob
        )
        request = None if role == BASE_ROLE else self.requests[self.policy.adapter_for(role)]
        outputs = self.llm.generate(
            [{"prompt_token_ids": list(p)} for p in prompts],
            params,
            lora_request=request,
            use_tqdm=False,
        )
        completions = []
        for prompt, output in zip(prompts, outputs, strict=True):
            sample = output.outputs[0]
            response = trim_response(list(sample.token_ids), self.stop_ids, None)
            text = self.policy.tokenizer.decode(response, skip_special_tokens=True)
            completions.append(
                Completion(list(prompt), response, text, _sampled_logprobs(sample, response))
            )
        return completions

    def close(self) -> None:
        """Drop the vLLM engine (its GPU memory is freed when it is collected)."""
        self.llm = None


LOGPROBS_MODE = "processed_logprobs"
"""vLLM's log-probs after temperature and top-p (the distribution sampled from). Its default,
``raw_logprobs``, ignores the temperature, which biases the importance weights."""


def _engine_arg_names() -> set[str]:
    """The fields of this vLLM's ``EngineArgs`` (``LLM(**kwargs)`` passes them through)."""
    from vllm import EngineArgs

    return {f.name for f in dataclasses.fields(EngineArgs)}


def engine_options(config: TrainConfig, arg_names: set[str]) -> dict[str, Any]:
    """Keyword arguments of ``vllm.LLM`` beyond the model's: quantisation and log-prob mode.

    Args:
        config: the run's ``TrainConfig``.
        arg_names: the installed vLLM's ``EngineArgs`` fields.

    Raises:
        ConfigError: this vLLM cannot return processed log-probs (``logprobs_mode`` arrived in
            vLLM 0.10.2).
    """
    if "logprobs_mode" not in arg_names:
        raise ConfigError(
            "generation.engine='vllm' needs a vLLM with logprobs_mode (0.10.2 or later): older "
            "ones return log-probs before the temperature, which biases the importance weights. "
            "Upgrade vLLM (pip install -U 'spadegym[vllm]') or use generation.engine='hf'."
        )
    options: dict[str, Any] = {"logprobs_mode": LOGPROBS_MODE}
    if config.model.load_in_4bit:
        options["quantization"] = "bitsandbytes"
    return options


def _sampled_logprobs(sample: Any, response: list[int]) -> list[float] | None:
    """The log-prob vLLM gave each response token (``None`` when it returned none)."""
    steps = getattr(sample, "logprobs", None)
    if not steps:
        return None
    values = []
    for token, step in zip(response, steps, strict=False):
        entry = step.get(token) if isinstance(step, dict) else None
        if entry is None:
            return None
        logprob: Any = getattr(entry, "logprob", entry)  # a Logprob, or the float itself
        values.append(float(logprob))
    return values if len(values) == len(response) else None


def prune_adapters(saved: list[Path], keep: int) -> list[Path]:
    """Delete all but the newest ``keep`` adapter folders; returns those kept (oldest first).

    Requests already built for a deleted folder are never sent again: ``sync`` points every
    role at the newest folder first.
    """
    for old in saved[:-keep]:
        shutil.rmtree(old, ignore_errors=True)
    return saved[-keep:]
