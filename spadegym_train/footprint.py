"""What generation's key/value cache may take, estimated from the model's shapes.

Transformers ``generate`` keeps, for every sequence of a batch, a key and a value vector per
layer, per key/value head, per token: ``2 x layers x kv_heads x head_dim x bytes`` per token.
A batch of ``generation.batch_size`` prompts of up to ``generation.max_prompt_tokens`` that each
write up to the role's token limit therefore holds, at its longest,

    cache = 2 x layers x kv_heads x head_dim x bytes x batch x (prompt + new tokens)

which for Qwen3-0.6B (28 layers, 8 key/value heads of 128, bfloat16: 112 KiB a token) reaches
tens of GB at the designer's longest lengths, beside the weights and the optimiser state. The
run prints this estimate at start (``describe``). With ``engine="vllm"`` the cache is vLLM's
paged pool inside ``generation.vllm_gpu_memory_utilization`` of the GPU instead, and is reported so.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from spadegym_train.config import TrainConfig

GIB = 1024**3


@dataclass(frozen=True)
class CacheUse:
    """The longest cache of one kind of generation call.

    Attributes:
        role: ``designer``, ``solver`` or ``hinter``.
        batch: sequences generated together.
        tokens: prompt plus new tokens of the longest sequence.
        bytes: the cache at its longest.
    """

    role: str
    batch: int
    tokens: int
    bytes: int


def bytes_per_token(shape: Any, value_bytes: int) -> int:
    """Cache bytes of one token of one sequence, from a transformers config (or a dict)."""

    def get(name: str, default: Any = None) -> Any:
        if isinstance(shape, dict):
            return shape.get(name, default)
        return getattr(shape, name, default)

    layers = int(get("num_hidden_layers"))
    heads = int(get("num_attention_heads"))
    kv_heads = int(get("num_key_value_heads") or heads)
    head_dim = int(get("head_dim") or int(get("hidden_size")) // heads)
    return 2 * layers * kv_heads * head_dim * value_bytes


def cache_uses(config: TrainConfig, shape: Any, value_bytes: int = 2) -> list[CacheUse]:
    """The longest cache of the designer's, the solver's and the hinter's generate calls."""
    per_token = bytes_per_token(shape, value_bytes)
    episodes = config.pool.size * config.play.plays_per_env * 2  # plain and hint plays together
    calls = [("solver", episodes, config.generation.solver_max_new_tokens)]
    if config.mode == "spade":
        designs = config.design.docs_per_regen * config.design.candidates_per_doc
        calls.insert(0, ("designer", designs, config.generation.designer_max_new_tokens))
    if config.play.hint_source == "hinter" and config.play.hint_plays != "never":
        hints = config.pool.size * config.play.plays_per_env
        calls.append(("hinter", hints, config.generation.hint_max_new_tokens))
    uses = []
    for role, wanted, new_tokens in calls:
        batch = max(1, min(config.generation.batch_size, wanted))
        tokens = config.generation.max_prompt_tokens + new_tokens
        uses.append(CacheUse(role, batch, tokens, per_token * batch * tokens))
    return uses


def describe(config: TrainConfig, shape: Any, value_bytes: int = 2) -> str:
    """One line for the start of a run: the generation cache's estimate, largest call first."""
    if config.generation.engine == "vllm":
        share = config.generation.vllm_gpu_memory_utilization
        return (
            f"generation cache: vLLM's paged pool, inside {share:.0%} of the GPU "
            "(vllm_gpu_memory_utilization)"
        )
    uses = sorted(cache_uses(config, shape, value_bytes), key=lambda u: -u.bytes)
    parts = ", ".join(f"{u.role} {u.bytes / GIB:.1f} GB ({u.batch} x {u.tokens})" for u in uses)
    return (
        f"generation cache (estimate, at the longest): up to {uses[0].bytes / GIB:.1f} GB; "
        f"{parts} [batch x tokens]; lower generation_batch_size or the token limits to shrink it"
    )
