"""The self-play loop's settings: the pool, design, play, evaluation, rewards, logging, curriculum.

Each group is a field of ``TrainConfig`` and checks its own values; checks across groups (the
mode's needs, the hint source's default) are ``TrainConfig``'s.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

from spadegym import contract
from spadegym.contract import SKILLS
from spadegym.errors import ConfigError
from spadegym_train.config.keys import check_fields
from spadegym_train.config.learner import at_least_one, choice

HINT_SOURCES = ("hinter", "program")
HINT_PLAYS = ("regeneration", "iteration", "never")
EVAL_SPLITS = ("envs", "seeds")
DESIGNER_REWARDS = ("regret", "spade_blend", "spice_variance", "learnability")
DESIGNER_PROMPTS = ("full", "short")


def check_difficulty(key: str, value: Any, allow_random: bool = False) -> None:
    """Refuse a difficulty outside 1..5 (or a list of them, or ``"random"`` where allowed)."""
    levels = value if isinstance(value, list) else [value]
    if allow_random and value == "random":
        return
    if not levels or not all(contract.is_difficulty(v) for v in levels):
        extra = ', a list of them, or "random"' if allow_random else ""
        raise ConfigError(f"{key}={value!r} must be a difficulty 1..5{extra}.")


@dataclass
class PoolConfig:
    """The pool of environments the solver plays, and the registry it may come from."""

    KEY: ClassVar[str] = "pool"

    size: int = 24
    """Environments in the pool; SPADE regenerates 24."""

    regen_interval: int = 4
    """Iterations between regenerations of the pool; the designer trains at the end of each
    window, on rewards from every play in it."""

    registry: str | None = None
    """Registry folder of the ``fixed`` pool and the evaluation slice; ``None``: the shipped one."""

    env_ids: list[str] | None = None
    """Only these registry environments (folder names like ``ColorPick-v0``, or
    ``spade/ColorPick-v0``) make up the ``fixed`` pool and the evaluation; ``None``: all."""

    def __post_init__(self) -> None:
        check_fields(self, "pool.")
        at_least_one(self, "size", "regen_interval")
        if self.env_ids is not None and not self.env_ids:
            raise ConfigError(
                "pool.env_ids=[] names no environment; give some ids or null for all."
            )


@dataclass
class DesignConfig:
    """The designer's slots, prompts and grounding, and how its programs are checked."""

    KEY: ClassVar[str] = "design"

    docs_per_regen: int = 8
    """Grounding documents (designer prompts) per regeneration."""

    candidates_per_doc: int = 3
    """Programs the designer writes per document (G); with ``docs_per_regen`` these are the
    designer's slots of a regeneration."""

    attempts: int = 3
    """Attempts per designer slot: a slot whose program is invalid or a duplicate is written
    again from a fresh document, up to this many times in all, before it stays empty (SPADE)."""

    difficulty: int | list[int] | str = 3
    """Difficulty (1..5) the design prompt asks for: one level (SPADE's 3, "medium"), a list
    drawn from in turn by slot, or ``"random"`` (uniform, from the run's sampler)."""

    prompt: str = "full"
    """``"full"``: the design prompt of ``spadegym generate`` (the contract, a skeleton, memory
    examples with their code, the document; about 2,200 tokens); ``"short"``: a few hundred
    tokens (the skill, the start of the document, one short complete program to vary), for a
    model whose context or attention cannot take the full one. A run checks at start that its
    design prompts fit ``generation.max_prompt_tokens`` and says so when they do not."""

    examples: int = 2
    """Memory examples shown with their code in each design prompt, drawn at random (seeded,
    logged) from the ``example_pool`` best of the same skill in the frontier band."""

    example_pool: int = 10
    """How many of the best (by regret) environments of a skill the examples are drawn from."""

    example_band: list[float] = field(default_factory=lambda: [0.15, 0.85])
    """Win-rate band of the examples; a negative example (too easy, above 0.9, or too hard,
    below 0.1, any skill) is shown besides."""

    async_regeneration: bool = False
    """Write the next window's candidates at the start of this window and validate them on a
    background thread while this window trains, so validation leaves the critical path. The
    designer's samples are then one window older when they train (their clipped ratio uses
    the log-probs recorded when they were written). Off, they are written at the end of this
    window, with the policy and memory the next window's start would see, and validated while
    the evaluation and the checkpoint run."""

    skills: list[str] = field(default_factory=lambda: list(SKILLS))
    """Skills the designer is asked for."""

    skills_per_regen: int = 3
    """Skills per regeneration, rotating through ``skills``."""

    corpus: str | None = None
    """Grounding documents: a JSONL file (``text`` or ``orig_doc``) or a folder of text files;
    ``None`` uses the documents that ship with spadegym."""

    scripted: str | list[str] | None = None
    """A glob (or a list of globs) of recorded designer replies (e.g. ``examples/good/*.py``)
    added to the pool at each regeneration, so the spade path runs with a model that writes
    nothing valid. They are never trained on; they count in their skill's reward baseline."""

    scripted_per_regen: int = 2
    """Recorded replies added per regeneration, taken in turn."""

    validation_workers: int = 2
    """Programs validated at once (each with the battery of ``TrainConfig.validation``)."""

    memory_embedder: str = "sentence-transformers/all-MiniLM-L6-v2"
    """Embedder of the run's memory: a sentence-transformers model or ``"hashing-384"``."""

    def __post_init__(self) -> None:
        check_fields(self, "design.")
        choice("design.prompt", self.prompt, DESIGNER_PROMPTS)
        at_least_one(self, "validation_workers", "attempts", "example_pool")
        check_difficulty("design.difficulty", self.difficulty, allow_random=True)
        low, high = (list(self.example_band) + [None, None])[:2]
        if (
            len(self.example_band) != 2
            or low is None
            or high is None
            or not 0.0 <= low <= high <= 1.0
        ):
            raise ConfigError(
                f"design.example_band={self.example_band!r} must be [low, high] "
                "with 0 <= low <= high <= 1 (SPADE: [0.15, 0.85])."
            )
        if not self.skills or not all(s and isinstance(s, str) for s in self.skills):
            raise ConfigError(f"design.skills={self.skills!r} must be a non-empty list of names.")


@dataclass
class PlayConfig:
    """The solver's plays: how many, with which hints, at which difficulty, stepped where."""

    KEY: ClassVar[str] = "play"

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

    sandbox_workers: int = 2
    """Worker processes that step the episodes (with ``executor: ray``, in each actor), each
    under ``TrainConfig.sandbox``."""

    executor: str = "local"
    """Where episodes are stepped: ``"local"`` (a sandbox pool in this process) or ``"ray"``
    (Ray actors, each with its own sandbox workers; the cluster comes from Ray's usual
    settings, ``RAY_ADDRESS``) or ``"ray:<address>"``. Ray needs ``pip install
    'spadegym[ray]'``."""

    def __post_init__(self) -> None:
        check_fields(self, "play.")
        choice("play.hint_plays", self.hint_plays, HINT_PLAYS)
        if self.hint_source is not None:
            choice("play.hint_source", self.hint_source, HINT_SOURCES)
        at_least_one(
            self, "plays_per_env", "plays_per_seed", "max_episode_turns", "sandbox_workers"
        )
        if self.solver_difficulty is not None:
            check_difficulty("play.solver_difficulty", self.solver_difficulty)
        if (
            self.executor != "local"
            and self.executor != "ray"
            and not self.executor.startswith("ray:")
        ):
            raise ConfigError(
                f"play.executor={self.executor!r} is not supported; use 'local', 'ray' "
                "or 'ray:<address>'."
            )


@dataclass
class EvaluationConfig:
    """The held-out evaluation played every ``interval`` iterations."""

    KEY: ClassVar[str] = "evaluation"

    split: str = "envs"
    """``"envs"``: evaluate on held-out environments (``fraction`` of them, by a hash of the
    id); ``"seeds"``: on the training environments themselves, on seeds that training never
    draws (a learning curve on the same tasks)."""

    fraction: float = 0.2
    """Share of one-player registry environments held out for evaluation (never trained on)."""

    interval: int = 10
    """Iterations between evaluations (0 turns evaluation off)."""

    plays: int = 4
    """Plays per held-out environment at each evaluation."""

    envs: int = 8
    """Held-out environments played at each evaluation."""

    def __post_init__(self) -> None:
        check_fields(self, "evaluation.")
        choice("evaluation.split", self.split, EVAL_SPLITS)
        if not 0.0 <= self.fraction < 1.0:
            raise ConfigError(f"evaluation.fraction={self.fraction} must lie in [0, 1).")


@dataclass
class RewardConfig:
    """The designer's reward, and the baselines and scale of both roles' advantages."""

    KEY: ClassVar[str] = "rewards"

    designer_reward: str = "spade_blend"
    """``regret``, ``spade_blend`` (the SPADE 30B recipe), ``spice_variance`` or
    ``learnability``."""

    chance_adjusted: bool = True
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
    on far fewer samples; only with ``ppo.loss_aggregation="token_mean"``."""

    def __post_init__(self) -> None:
        check_fields(self, "rewards.")
        choice("rewards.designer_reward", self.designer_reward, DESIGNER_REWARDS)
        if not 0.0 < self.rae_decay < 1.0:
            raise ConfigError(
                f"rewards.rae_decay={self.rae_decay} must lie in (0, 1); SPIRAL uses 0.95."
            )
        if self.designer_scale_cap <= 0:
            raise ConfigError(
                f"rewards.designer_scale_cap={self.designer_scale_cap} must be positive."
            )


@dataclass
class LoggingConfig:
    """What a run writes besides its checkpoints' contents, and how often it checkpoints."""

    KEY: ClassVar[str] = "logging"

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

    def __post_init__(self) -> None:
        check_fields(self, "logging.")


@dataclass
class CurriculumConfig:
    """``mode=curriculum`` (``spadegym_train.curriculum``): the sampler's signal and its moves."""

    KEY: ClassVar[str] = "curriculum"

    signal: str = "learnability"
    """The priority of an (environment, difficulty) pair, from its recent plays: a designer
    reward's name (``learnability``, ``spice_variance``, ``regret`` (needs hint plays),
    ``spade_blend``)."""

    window: int = 32
    """Recent plays per pair that the priority and the mastery test read."""

    min_plays: int = 16
    """Plays at a pair, since it became active, before its difficulty may move."""

    mastery: float = 0.6
    """Chance-adjusted win rate at or above which an environment's difficulty goes up."""

    failure: float = 0.0
    """Chance-adjusted win rate at or below which it goes down (0: no better than chance)."""

    backoff: float = 2.0
    """After an environment falls back from a difficulty, the plays it needs at the lower one
    before it may try that difficulty again: ``min_plays`` times ``backoff`` per fall so far
    (1: none). Without it, a game mastered at one level and failed at the next alternates
    between them every ``min_plays`` plays, and half its plays teach nothing."""

    explore: float = 0.1
    """Share of the sampling probability spread evenly over the environments."""

    start: int = 1
    """Every environment's first difficulty."""

    top: int = 5
    """The highest difficulty the curriculum raises an environment to."""

    floor_plays: int = 32
    """Seeds on which each pair's chance floor (the best shortcut's score) is measured."""

    def __post_init__(self) -> None:
        check_fields(self, "curriculum.")
