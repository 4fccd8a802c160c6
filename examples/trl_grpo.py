"""GRPO with TRL on spade environments: each episode is played through tool calls.

The model answers each observation by calling the tool ``act(reply)``; the environment runs in
a sandboxed worker, keeps the episode's state, and gives the episode's outcome as the reward
(``get_reward``), so no reward function is needed. Two-player games are left out (the model
alone acts every turn).

    python examples/trl_grpo.py --model Qwen/Qwen3-0.6B --ids spade/TankerRoute-v0 spade/JugPour-v0
    python examples/trl_grpo.py --model smollm2 --steps 1   # on a CPU, as plain text turns
    python examples/trl_grpo.py --tiny     # offline smoke run: a random 1-layer model, CPU, 1 step

``--model`` takes what ``--llm`` takes (``smollm2``, ``gguf:<file>``, ``hf:<folder or hub
name>``); a model whose chat template has no tool calls plays the episodes as text turns.
Device and precision follow the machine (``machine_settings``). Needs ``pip install -e
'.[integrations]'`` (TRL) and, for ``--model``, the model's files.
"""

from __future__ import annotations

import argparse
import os


def tiny_model():
    """A random 1-layer Qwen3 and a character tokenizer with Qwen3's chat template (no files)."""
    import torch
    from transformers import AutoConfig, AutoModelForCausalLM
    from trl.chat_template_utils import qwen3_chat_template

    from spadegym_train.tokenizer import char_tokenizer

    tokenizer = char_tokenizer()
    tokenizer.chat_template = qwen3_chat_template  # TRL parses tool calls for known templates
    config = AutoConfig.for_model(
        "qwen3",
        vocab_size=len(tokenizer),
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=1,
        num_attention_heads=2,
        num_key_value_heads=1,
        head_dim=16,
        max_position_embeddings=8192,
        pad_token_id=tokenizer.pad_token_id,
        eos_token_id=tokenizer.eos_token_id,
        bos_token_id=None,
    )
    torch.manual_seed(0)
    return AutoModelForCausalLM.from_config(config), tokenizer


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--model",
        default="Qwen/Qwen3-0.6B",
        help="smollm2, gguf:<file>, hf:<folder or hub name> (a chat model)",
    )
    parser.add_argument("--tiny", action="store_true", help="a random tiny model, offline, CPU")
    parser.add_argument(
        "--ids",
        nargs="+",
        default=["spade/TankerRoute-v0", "spade/JugPour-v0", "spade/CounterfeitScale-v0"],
        help="one-player environment ids (`spadegym list`)",
    )
    parser.add_argument("--steps", type=int, default=None, help="optimizer steps")
    parser.add_argument("--generations", type=int, default=4, help="rollouts per episode")
    parser.add_argument("--output", default="runs/trl_grpo", help="output folder")
    args = parser.parse_args()
    os.environ.setdefault("TRL_EXPERIMENTAL_SILENCE", "1")  # environment_factory is experimental

    from trl import GRPOConfig, GRPOTrainer

    from spadegym.integrations.trl import environment_factory, load_model, machine_settings

    steps = args.steps or (1 if args.tiny else 200)
    model, tokenizer = tiny_model() if args.tiny else load_model(args.model)
    factory = environment_factory(args.ids, seed=0)
    config = GRPOConfig(
        output_dir=args.output,
        per_device_train_batch_size=args.generations,
        num_generations=args.generations,
        max_completion_length=64 if args.tiny else 4096,
        max_tool_calling_iterations=max(p.max_turns for p in factory.programs),
        max_steps=steps,
        learning_rate=1e-6,
        logging_steps=1,
        save_strategy="no",
        report_to="none",
        **(machine_settings() if not args.tiny else {"use_cpu": True, "bf16": False}),
    )
    try:
        trainer = GRPOTrainer(
            model=model,
            args=config,
            processing_class=tokenizer,
            # One row per episode (the system prompt and the instance), and the episodes
            # played through the tool `act`, or as text turns when the template has no tools.
            **factory.trainer_inputs(tokenizer, steps * args.generations),
        )
        trainer.train()
    finally:
        factory.close()
    last = [entry for entry in trainer.state.log_history if "reward" in entry][-1]
    print(f"trained {steps} step(s); mean outcome of the last batch: {last['reward']:.3f}")


if __name__ == "__main__":
    main()
