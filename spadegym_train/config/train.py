"""``TrainConfig``: a run's settings, grouped by concern, with the library's own configs nested.

The sandbox that steps the episodes (``sandbox``), the validation battery (``validation``) and
the duplicate rule of the run's memory (``dedup``) are the library's config classes, so each of
their settings has one home and a run can set every one (``validation.fuzz_examples=20``,
``sandbox.call_timeout=2``, ``dedup.code_copy=0.9``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from spadegym.errors import ConfigError
from spadegym.memory.novelty import DedupConfig
from spadegym.sandbox.config import SandboxConfig
from spadegym.validation.config import ValidationConfig
from spadegym_train.config.keys import as_plain, build, check_fields, flatten
from spadegym_train.config.learner import (
    RANDOM_MODEL,
    GenerationConfig,
    LoraConfig,
    ModelConfig,
    PPOConfig,
    choice,
)
from spadegym_train.config.selfplay import (
    CurriculumConfig,
    DesignConfig,
    EvaluationConfig,
    LoggingConfig,
    PlayConfig,
    PoolConfig,
    RewardConfig,
)

MODES = ("spade", "fixed", "curriculum")


@dataclass
class TrainConfig:
    """Settings of one run. Hyperparameters keep the papers' names where they have one."""

    mode: str = "spade"
    """``"spade"``: the designer regenerates the environment pool and is trained by its reward;
    ``"fixed"``: the solver trains on registry environments only (the paper's baseline);
    ``"curriculum"``: on registry environments chosen, and moved between difficulties, by the
    solver's recent plays (``spadegym_train.curriculum``; the ``curriculum`` group)."""

    iterations: int = 400
    """Training iterations (rollouts) to run; the paper runs 400."""

    seed: int = 0
    """Seed of torch, numpy and random, of episode seeds and of document sampling."""

    workspace: str = "runs/spade"
    """Folder of the run: metrics, checkpoints, the run's registry and memory."""

    resume: bool = True
    """Continue from the latest checkpoint in ``workspace`` when there is one."""

    model: ModelConfig = field(default_factory=ModelConfig)
    """The base model and how it is loaded."""

    lora: LoraConfig = field(default_factory=LoraConfig)
    """The LoRA adapters."""

    generation: GenerationConfig = field(default_factory=GenerationConfig)
    """Sampling of both roles and the hinter."""

    pool: PoolConfig = field(default_factory=PoolConfig)
    """The environment pool and its registry."""

    design: DesignConfig = field(default_factory=DesignConfig)
    """The designer's slots and prompts (``spade`` mode)."""

    play: PlayConfig = field(default_factory=PlayConfig)
    """The solver's plays and hints."""

    evaluation: EvaluationConfig = field(default_factory=EvaluationConfig)
    """The held-out evaluation."""

    rewards: RewardConfig = field(default_factory=RewardConfig)
    """Designer rewards and advantage baselines."""

    ppo: PPOConfig = field(default_factory=PPOConfig)
    """The policy update."""

    logging: LoggingConfig = field(default_factory=LoggingConfig)
    """Metrics, episodes and checkpoints."""

    curriculum: CurriculumConfig = field(default_factory=CurriculumConfig)
    """``mode=curriculum``'s sampler."""

    sandbox: SandboxConfig = field(default_factory=SandboxConfig)
    """The sandbox in which the solver's episodes are stepped (deadlines, limits, isolation)."""

    validation: ValidationConfig = field(default_factory=ValidationConfig)
    """The battery every designed program passes (budgets, seeds, fuzzing, its own sandbox)."""

    dedup: DedupConfig = field(default_factory=DedupConfig)
    """Thresholds of the run's memory's duplicate rule."""

    def __post_init__(self) -> None:
        check_fields(self)
        choice("mode", self.mode, MODES)
        if self.iterations < 1:
            raise ConfigError(f"iterations={self.iterations!r} must be at least 1.")
        play = self.play
        if play.hint_source is None:
            play.hint_source = "hinter" if self.mode == "spade" else "program"
        if self.generation.engine == "vllm" and self.model.name == RANDOM_MODEL:
            raise ConfigError(
                "generation.engine='vllm' loads the model from disk by name; a 'random' model "
                "runs with generation.engine='hf'."
            )
        design = self.design
        if (
            self.mode == "spade"
            and design.docs_per_regen * design.candidates_per_doc < 1
            and not design.scripted
        ):
            raise ConfigError(
                "spade mode needs candidates: set design.docs_per_regen and "
                "design.candidates_per_doc >= 1, or a design.scripted."
            )
        if play.hint_llm is not None and play.hint_source != "hinter":
            raise ConfigError(
                f"play.hint_llm={play.hint_llm!r} writes hints only with "
                f"play.hint_source=hinter (now {play.hint_source!r})."
            )
        if self.mode == "curriculum":
            from spadegym_train.curriculum import check_settings

            check_settings(self.curriculum)
            if self.curriculum.floor_plays < 1:
                raise ConfigError(
                    f"curriculum.floor_plays={self.curriculum.floor_plays} must be at least 1."
                )

    def replace(self, changes: Mapping[str, Any] | None = None, **top: Any) -> TrainConfig:
        """A checked copy with ``changes`` set.

        ``changes`` takes dotted keys (``{"ppo.learning_rate": 0}``) or nested mappings, and
        top-level fields may come as keywords (``workspace=...``).
        ``dataclasses.replace`` cannot reach into a group; this can, and checks the result
        as ``load_config`` does. A ``hint_source`` the original resolved from its mode is kept.
        """
        values = flatten(TrainConfig, to_dict(self), "replace")
        values.update(flatten(TrainConfig, {**(changes or {}), **top}, "replace"))
        return build(TrainConfig, values)


def to_dict(config: TrainConfig) -> dict[str, Any]:
    """The configuration as nested plain values (for YAML, checkpoints and logs)."""
    return as_plain(config)
