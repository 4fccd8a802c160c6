"""``TrainConfig``: every setting of a self-play run, loaded from a preset, YAML and overrides.

Settings are grouped by concern (``model``, ``lora``, ``generation``, ``pool``, ``design``,
``play``, ``evaluation``, ``rewards``, ``ppo``, ``logging``, ``curriculum``) beside the
library's own configs (``sandbox``, ``validation``, ``dedup``); a setting's key is its dotted
path, ``ppo.learning_rate`` or ``validation.sandbox.call_timeout``.

Precedence, lowest first: the dataclass defaults, a preset (``--preset``), a YAML file
(``--config``; dotted keys or nested mappings, and it may name a ``preset``), then ``key=value``
overrides from the command line. Unknown keys are refused with the nearest valid keys, so a typo
never silently falls back to a default. The flat names of the release before the groups
(``learning_rate=...``, and the ``config.yaml`` an older run saved) are still read, each with a
``FutureWarning`` naming its dotted key; they stop working in the next release.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from spadegym.errors import ConfigError
from spadegym_train.config.keys import FLAT_KEYS, build, flatten, leaf_keys, parse_override
from spadegym_train.config.learner import (
    RANDOM_MODEL,
    GenerationConfig,
    LoraConfig,
    ModelConfig,
    PPOConfig,
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
from spadegym_train.config.train import TrainConfig, to_dict

__all__ = [
    "FLAT_KEYS",
    "RANDOM_MODEL",
    "CurriculumConfig",
    "DesignConfig",
    "EvaluationConfig",
    "GenerationConfig",
    "LoggingConfig",
    "LoraConfig",
    "ModelConfig",
    "PPOConfig",
    "PlayConfig",
    "PoolConfig",
    "RewardConfig",
    "TrainConfig",
    "field_names",
    "load_config",
    "parse_override",
    "to_dict",
]


def field_names() -> list[str]:
    """Every settable key of ``TrainConfig``, dotted, in order."""
    return leaf_keys(TrainConfig)


def load_config(
    path: str | Path | None = None,
    *,
    preset: str | None = None,
    overrides: list[str] | dict[str, Any] | None = None,
) -> TrainConfig:
    """Build a ``TrainConfig`` from a preset, a YAML file and overrides, in that order.

    Args:
        path: a YAML file of settings (dotted keys or nested mappings; it may name a
            ``preset`` itself). A run's saved ``config.yaml`` is one.
        preset: a name from ``spadegym_train.presets.PRESETS``.
        overrides: ``key=value`` strings, or a dict, applied last.

    Returns:
        The checked configuration.

    Raises:
        ConfigError: an unknown preset or key, a malformed file, or a failed check.
    """
    from spadegym_train.presets import preset_values

    from_file: dict[str, Any] = {}
    if path is not None:
        import yaml

        try:
            from_file = yaml.safe_load(Path(path).read_text(encoding="utf-8")) or {}
        except (OSError, yaml.YAMLError) as exc:
            raise ConfigError(f"could not read the config {path}: {exc}") from exc
        if not isinstance(from_file, dict):
            raise ConfigError(f"{path} must hold a mapping of TrainConfig settings.")
        preset = preset or from_file.pop("preset", None)
        from_file.pop("preset", None)
    values: dict[str, Any] = {}
    if preset is not None:
        values.update(flatten(TrainConfig, preset_values(preset), f"preset {preset}"))
    values.update(flatten(TrainConfig, from_file, str(path)))
    if isinstance(overrides, dict):
        extra = dict(overrides)
    else:
        extra = dict(parse_override(o) for o in overrides or [])
    values.update(flatten(TrainConfig, extra, "override"))
    return build(TrainConfig, values)
