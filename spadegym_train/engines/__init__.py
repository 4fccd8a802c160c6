"""Generation engines behind one interface: token prompts in, sampled completions out.

``HFEngine`` runs transformers ``generate`` (batched, left padded; CPU and GPU). ``VLLMEngine``
(the optional ``[vllm]`` extra) serves the same calls on a GPU with the LoRA adapters loaded per
request. Both read the adapters the trainer has just updated: the HF engine shares the training
model, the vLLM engine reloads the adapter files written after each update.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from spadegym_train.engines.base import Completion, GenerationEngine

if TYPE_CHECKING:
    from spadegym_train.config import TrainConfig

__all__ = ["Completion", "GenerationEngine", "make_engine"]


def make_engine(config: TrainConfig, policy: Any, workspace: str) -> GenerationEngine:
    """The engine ``config.generation.engine`` names, over ``policy``."""
    if config.generation.engine == "vllm":
        from spadegym_train.engines.vllm import VLLMEngine

        return VLLMEngine(config, policy, workspace)
    from spadegym_train.engines.hf import HFEngine

    return HFEngine(config, policy)
