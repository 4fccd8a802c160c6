"""``VLLMEngine``: vLLM sampling with the LoRA adapters loaded per request (GPU, optional).

The base model is loaded once by vLLM (4-bit through bitsandbytes when the run is 4-bit). After
each update the trainer writes the adapters to ``workspace/adapters/step-N``; the next request
names that folder under a new LoRA id, so vLLM never serves a stale adapter. Nothing is merged.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from spadegym.errors import ConfigError
from spadegym_train.engines.base import Completion, trim_response


class VLLMEngine:
    """Generation through ``vllm.LLM`` sharing the GPU with the training model.

    Args:
        config: the run's ``TrainConfig`` (``vllm_gpu_memory_utilization`` bounds vLLM's share).
        policy: the training policy, whose adapters are saved for vLLM after each update.
        workspace: the run folder; adapters go to ``adapters/step-N`` under it.
    """

    def __init__(self, config: Any, policy: Any, workspace: str):
        try:
            from vllm import LLM, SamplingParams
            from vllm.lora.request import LoRARequest
        except ImportError as exc:
            raise ConfigError(
                "engine='vllm' needs vLLM: pip install 'spadegym[vllm]' (on a "
                "CUDA machine), or use engine='hf'."
            ) from exc
        self._sampling = SamplingParams
        self._lora_request = LoRARequest
        self.config = config
        self.policy = policy
        self.folder = Path(workspace) / "adapters"
        kwargs: dict[str, Any] = {}
        if config.load_in_4bit:
            kwargs["quantization"] = "bitsandbytes"
        self.llm = LLM(
            model=policy.base_path,
            tokenizer=policy.base_path if Path(policy.base_path).exists() else config.model,
            enable_lora=True,
            max_lora_rank=config.lora_r,
            max_loras=len(set(policy.adapters.values())),
            gpu_memory_utilization=config.vllm_gpu_memory_utilization,
            seed=config.seed,
            dtype="bfloat16",
            enable_prefix_caching=True,
            max_model_len=config.max_prompt_tokens
            + max(config.designer_max_new_tokens, config.solver_max_new_tokens),
            **kwargs,
        )
        self.requests: dict[str, Any] = {}
        self._next_id = 1
        tokenizer = policy.tokenizer
        self.stop_ids = {tokenizer.eos_token_id}
        self.pad_id = tokenizer.pad_token_id
        self.sync(0)

    def sync(self, step: int) -> None:
        """Save the adapters as they are now and point the next requests at them."""
        folders = self.policy.save_adapters(self.folder / f"step-{step}")
        for name, folder in folders.items():
            self.requests[name] = self._lora_request(f"{name}-{step}", self._next_id, folder)
            self._next_id += 1

    def generate(
        self, prompts: Sequence[list[int]], role: str, max_new_tokens: int
    ) -> list[Completion]:
        """Sample one reply per prompt with the adapter of ``role``."""
        params = self._sampling(
            temperature=self.config.temperature,
            top_p=self.config.top_p,
            max_tokens=max_new_tokens,
            stop_token_ids=sorted(self.stop_ids),
        )
        request = self.requests[self.policy.adapter_for(role)]
        outputs = self.llm.generate(
            [{"prompt_token_ids": list(p)} for p in prompts],
            params,
            lora_request=request,
            use_tqdm=False,
        )
        completions = []
        for prompt, output in zip(prompts, outputs, strict=True):
            response = trim_response(list(output.outputs[0].token_ids), self.stop_ids, None)
            text = self.policy.tokenizer.decode(response, skip_special_tokens=True)
            completions.append(Completion(list(prompt), response, text))
        return completions

    def close(self) -> None:
        """Drop the vLLM engine (its GPU memory is freed when it is collected)."""
        self.llm = None
