"""The keys of ``TrainConfig``: dotted paths, the old flat names, and checked values.

A setting is named by its dotted path from ``TrainConfig`` (``ppo.learning_rate``,
``validation.sandbox.call_timeout``); a source of settings (a preset, a YAML file, overrides)
may also nest mappings (``ppo: {learning_rate: 1e-4}``). The flat names of the release before
the groups (``learning_rate``) are read for one more release, each with a ``FutureWarning``
naming its dotted key. Values are checked against the field's annotation, so ``iterations=abc``
is refused with the field and the type it takes, before any default is silently kept.
"""

from __future__ import annotations

import dataclasses
import difflib
import re
import types
import typing
import warnings
from collections.abc import Mapping
from typing import Any, TypeVar

from spadegym.errors import ConfigError

T = TypeVar("T")

FLAT_KEYS: dict[str, str] = {
    # -- model
    "model": "model.name",
    "random_model_config": "model.random_config",
    "load_in_4bit": "model.load_in_4bit",
    "bnb_double_quant": "model.bnb_double_quant",
    "dtype": "model.dtype",
    "device": "model.device",
    "torch_threads": "model.torch_threads",
    "gradient_checkpointing": "model.gradient_checkpointing",
    "chat_template_kwargs": "model.chat_template_kwargs",
    # -- lora
    "lora_r": "lora.r",
    "lora_alpha": "lora.alpha",
    "lora_dropout": "lora.dropout",
    "lora_target_modules": "lora.target_modules",
    "separate_adapters": "lora.separate_adapters",
    # -- generation
    "engine": "generation.engine",
    "temperature": "generation.temperature",
    "top_p": "generation.top_p",
    "eval_temperature": "generation.eval_temperature",
    "max_prompt_tokens": "generation.max_prompt_tokens",
    "solver_max_new_tokens": "generation.solver_max_new_tokens",
    "designer_max_new_tokens": "generation.designer_max_new_tokens",
    "hint_max_new_tokens": "generation.hint_max_new_tokens",
    "hint_temperature": "generation.hint_temperature",
    "generation_batch_size": "generation.batch_size",
    "vllm_gpu_memory_utilization": "generation.vllm_gpu_memory_utilization",
    "vllm_keep_adapters": "generation.vllm_keep_adapters",
    # -- pool
    "pool_size": "pool.size",
    "regen_interval": "pool.regen_interval",
    "registry": "pool.registry",
    "env_ids": "pool.env_ids",
    # -- design
    "docs_per_regen": "design.docs_per_regen",
    "candidates_per_doc": "design.candidates_per_doc",
    "design_attempts": "design.attempts",
    "designer_difficulty": "design.difficulty",
    "designer_prompt": "design.prompt",
    "designer_examples": "design.examples",
    "designer_example_pool": "design.example_pool",
    "designer_example_band": "design.example_band",
    "async_regeneration": "design.async_regeneration",
    "skills": "design.skills",
    "skills_per_regen": "design.skills_per_regen",
    "corpus": "design.corpus",
    "scripted_designer": "design.scripted",
    "scripted_per_regen": "design.scripted_per_regen",
    "validation_workers": "design.validation_workers",
    "memory_embedder": "design.memory_embedder",
    "fuzz_examples": "validation.fuzz_examples",
    # -- play
    "plays_per_env": "play.plays_per_env",
    "plays_per_seed": "play.plays_per_seed",
    "hint_plays": "play.hint_plays",
    "hint_source": "play.hint_source",
    "hint_llm": "play.hint_llm",
    "solver_difficulty": "play.solver_difficulty",
    "max_episode_turns": "play.max_episode_turns",
    "history_turns": "play.history_turns",
    "sandbox_workers": "play.sandbox_workers",
    "executor": "play.executor",
    # -- evaluation
    "eval_split": "evaluation.split",
    "eval_fraction": "evaluation.fraction",
    "eval_interval": "evaluation.interval",
    "eval_plays": "evaluation.plays",
    "eval_envs": "evaluation.envs",
    # -- rewards
    "designer_reward": "rewards.designer_reward",
    "chance_adjusted_rewards": "rewards.chance_adjusted",
    "invalid_reward": "rewards.invalid_reward",
    "timeout_penalty": "rewards.timeout_penalty",
    "rae_decay": "rewards.rae_decay",
    "designer_scale_cap": "rewards.designer_scale_cap",
    # -- ppo
    "learning_rate": "ppo.learning_rate",
    "weight_decay": "ppo.weight_decay",
    "optimizer": "ppo.optimizer",
    "clip_eps_low": "ppo.clip_eps_low",
    "clip_eps_high": "ppo.clip_eps_high",
    "kl_coef": "ppo.kl_coef",
    "ppo_epochs": "ppo.epochs",
    "tis_cap": "ppo.tis_cap",
    "loss_aggregation": "ppo.loss_aggregation",
    "micro_batch_size": "ppo.micro_batch_size",
    "max_grad_norm": "ppo.max_grad_norm",
    # -- logging
    "tensorboard": "logging.tensorboard",
    "wandb": "logging.wandb",
    "wandb_project": "logging.wandb_project",
    "checkpoint_interval": "logging.checkpoint_interval",
    "console": "logging.console",
    "log_episodes": "logging.log_episodes",
    # -- curriculum
    "curriculum_signal": "curriculum.signal",
    "curriculum_window": "curriculum.window",
    "curriculum_min_plays": "curriculum.min_plays",
    "curriculum_mastery": "curriculum.mastery",
    "curriculum_failure": "curriculum.failure",
    "curriculum_explore": "curriculum.explore",
    "curriculum_start": "curriculum.start",
    "curriculum_top": "curriculum.top",
    "curriculum_floor_plays": "curriculum.floor_plays",
}
"""Flat name of the release before the groups -> its dotted key (read, with a warning, for one
more release; saved ``config.yaml`` files of older runs are written in these names)."""

_FLOAT = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")
"""A number as written in a config: ``1e-3``, ``2.5E+2``, ``.5``."""


def is_group(kind: Any) -> bool:
    """Whether an annotation is a nested config (a dataclass) rather than a value."""
    return isinstance(kind, type) and dataclasses.is_dataclass(kind)


_HINTS: dict[type, dict[str, Any]] = {}
"""Annotations by config class, read once: a config is built often (every group checks itself)."""


def _hints(cls: type) -> dict[str, Any]:
    if cls not in _HINTS:
        _HINTS[cls] = typing.get_type_hints(cls)
    return _HINTS[cls]


def leaf_keys(cls: type, prefix: str = "") -> list[str]:
    """Every settable dotted key below ``cls``, in field order."""
    keys: list[str] = []
    hints = _hints(cls)
    for item in dataclasses.fields(cls):
        kind = hints[item.name]
        if is_group(kind):
            keys += leaf_keys(kind, f"{prefix}{item.name}.")
        else:
            keys.append(f"{prefix}{item.name}")
    return keys


def _accepts(kind: Any, value: Any) -> bool:
    """Whether ``value`` is of the annotated type ``kind`` (unions, lists, dicts, scalars)."""
    origin = typing.get_origin(kind)
    if origin in (typing.Union, types.UnionType):
        return any(_accepts(k, value) for k in typing.get_args(kind))
    if kind is type(None):
        return value is None
    if kind is Any:
        return True
    if origin in (list, tuple):
        item = (typing.get_args(kind) or (Any,))[0]
        return isinstance(value, origin) and all(_accepts(item, v) for v in value)
    if origin is not None:
        return isinstance(value, origin)
    if kind is float:
        return isinstance(value, int | float) and not isinstance(value, bool)
    if kind is int:
        return isinstance(value, int) and not isinstance(value, bool)
    return isinstance(value, kind)


def _type_name(kind: Any) -> str:
    return str(kind).replace("typing.", "").replace("<class '", "").replace("'>", "")


def checked_value(key: str, kind: Any, value: Any) -> Any:
    """``value`` as field ``key`` of annotation ``kind`` stores it, or a ``ConfigError``.

    A float written ``1e-3`` (which YAML 1.1 reads as text) is the number; an int where a
    float is asked is stored as a float; a list where a tuple is asked becomes the tuple.
    """
    if kind is float and isinstance(value, str) and _FLOAT.fullmatch(value):
        value = float(value)
    if typing.get_origin(kind) is tuple and isinstance(value, list):
        value = tuple(value)
    if not _accepts(kind, value):
        raise ConfigError(f"{key}={value!r} is not a valid value: {key} takes {_type_name(kind)}.")
    if kind is float and isinstance(value, int):
        value = float(value)
    return value


def check_fields(config: Any, prefix: str = "") -> None:
    """Check (and normalise, as ``checked_value``) every field of a config dataclass in place."""
    hints = _hints(type(config))
    for item in dataclasses.fields(config):
        value = getattr(config, item.name)
        fixed = checked_value(prefix + item.name, hints[item.name], value)
        if fixed is not value:
            setattr(config, item.name, fixed)


def nearest(key: str, cls: type) -> list[str]:
    """The valid dotted keys closest to ``key`` (by the whole key, its last part, a flat name)."""
    keys = leaf_keys(cls)
    found = difflib.get_close_matches(key, keys, n=3, cutoff=0.75)
    last = key.rpartition(".")[2]
    by_last: dict[str, list[str]] = {}
    for full in keys:
        by_last.setdefault(full.rpartition(".")[2], []).append(full)
    for name in difflib.get_close_matches(last, list(by_last), n=2, cutoff=0.75):
        found += by_last[name]
    for name in difflib.get_close_matches(last, list(FLAT_KEYS), n=2, cutoff=0.75):
        found.append(FLAT_KEYS[name])
    return list(dict.fromkeys(found))[:3]


def _unknown(key: str, cls: type, where: str) -> ConfigError:
    near = nearest(key, cls)
    hint = f" Did you mean {' or '.join(repr(k) for k in near)}?" if near else ""
    return ConfigError(f"{where}: {key!r} is not a TrainConfig field.{hint}")


def _resolve(cls: type, key: str, where: str) -> Any:
    """The annotation at dotted ``key`` below ``cls`` (a group's class for a group)."""
    kind: Any = cls
    for part in key.split("."):
        if not is_group(kind):
            raise _unknown(key, cls, where)
        hints = _hints(kind)
        if part not in hints or part not in {f.name for f in dataclasses.fields(kind)}:
            raise _unknown(key, cls, where)
        kind = hints[part]
    return kind


def flatten(cls: type, source: Mapping[str, Any], where: str) -> dict[str, Any]:
    """``source``'s settings as ``{dotted key: value}``, checked against ``cls``'s keys.

    Nested mappings of a group are opened (``ppo: {learning_rate: 1}``); a flat name of
    ``FLAT_KEYS`` becomes its dotted key, with one ``FutureWarning`` per source naming each.

    Raises:
        ConfigError: an unknown key (with the nearest valid ones), or a group given a value
            that is not a mapping.
    """
    values: dict[str, Any] = {}
    renamed: dict[str, str] = {}

    def visit(key: str, value: Any) -> None:
        top = {f.name for f in dataclasses.fields(cls)}
        if key in FLAT_KEYS and not (key in top and isinstance(value, Mapping)):
            renamed[key] = FLAT_KEYS[key]  # an old flat name (``model`` is one and a group)
            key = FLAT_KEYS[key]
        kind = _resolve(cls, key, where)
        if not is_group(kind):
            values[key] = value
        elif isinstance(value, Mapping):
            for name, inner in value.items():
                visit(f"{key}.{str(name).replace('-', '_')}", inner)
        else:
            raise ConfigError(
                f"{where}: {key} is a group of settings; give it a mapping of its fields "
                f"({', '.join(repr(k) for k in leaf_keys(kind, key + '.')[:3])}, ...) "
                f"or set one with a dotted key ({key}.<field>=...)."
            )

    for key, value in source.items():
        visit(str(key), value)
    if renamed:
        moves = ", ".join(f"{old} -> {new}" for old, new in renamed.items())
        warnings.warn(
            f"{where}: flat TrainConfig keys are deprecated and stop working in the next "
            f"release; write the dotted keys instead: {moves}.",
            FutureWarning,
            stacklevel=3,
        )
    return values


def defaults(cls: type) -> dict[str, Any]:
    """The field defaults of ``cls`` as a nested mapping (a group's from its own default)."""
    out: dict[str, Any] = {}
    for item in dataclasses.fields(cls):
        if item.default is not dataclasses.MISSING:
            value = item.default
        elif item.default_factory is not dataclasses.MISSING:
            value = item.default_factory()
        else:
            raise TypeError(f"{cls.__name__}.{item.name} has no default")
        out[item.name] = as_plain(value) if dataclasses.is_dataclass(value) else value
    return out


def as_plain(config: Any) -> dict[str, Any]:
    """A config dataclass as nested plain values (tuples as lists, for YAML and JSON)."""

    def plain(value: Any) -> Any:
        if isinstance(value, dict):
            return {k: plain(v) for k, v in value.items()}
        if isinstance(value, list | tuple):
            return [plain(v) for v in value]
        return value

    return plain(dataclasses.asdict(config))


def build(cls: type[T], values: Mapping[str, Any]) -> T:
    """A ``cls`` from its defaults with ``values`` (dotted keys, as ``flatten`` returns) set."""
    tree = defaults(cls)
    for key, value in values.items():
        node = tree
        *path, last = key.split(".")
        for part in path:
            node = node[part]
        node[last] = value
    return _construct(cls, tree, "")


def _construct(cls: type[T], data: Mapping[str, Any], prefix: str) -> T:
    hints = _hints(cls)
    kwargs: dict[str, Any] = {}
    for item in dataclasses.fields(cls):  # type: ignore[arg-type]
        kind, value = hints[item.name], data[item.name]
        if is_group(kind):
            kwargs[item.name] = _construct(kind, value, f"{prefix}{item.name}.")
        else:
            kwargs[item.name] = checked_value(prefix + item.name, kind, value)
    try:
        return cls(**kwargs)
    except ConfigError as exc:
        if not prefix or str(exc).startswith(prefix):
            raise
        raise ConfigError(f"{prefix[:-1]}: {exc}") from exc


def parse_override(text: str) -> tuple[str, Any]:
    """Split ``key=value``; the value is read as YAML (``3``, ``true``, ``[a, b]``, text)."""
    import yaml

    key, sep, raw = text.partition("=")
    if not sep or not key.strip():
        raise ConfigError(
            f"override {text!r} is not key=value; write e.g. iterations=2 or ppo.epochs=1."
        )
    return key.strip().replace("-", "_"), yaml.safe_load(raw) if raw.strip() else ""
