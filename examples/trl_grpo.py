"""GRPO with TRL on spade environments: each episode is played through tool calls.

The model answers each observation by calling the tool ``act(reply)``; the environment runs in
a sandboxed worker, keeps the episode's state, and gives the episode's outcome as the reward
(``get_reward``), so no reward function is needed. Two-player games are left out (the model
alone acts every turn).

    python examples/trl_grpo.py --model Qwen/Qwen3-0.6B --ids spade/TankerRoute-v0 spade/JugPour-v0
    python examples/trl_grpo.py --tiny     # offline smoke run: a random 1-layer model, CPU, 1 step

Needs ``pip install -e '.[integrations]'`` (TRL) and, for ``--model``, the model's files.
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
    parser.add_argument("--model", default="Qwen/Qwen3-0.6B", help="a chat model with tool calls")
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

    from spadegym.integrations.trl import environment_factory

    steps = args.steps or (1 if args.tiny else 200)
    if args.tiny:
        model, tokenizer = tiny_model()
    else:
        from transformers import AutoTokenizer

        model, tokenizer = args.model, AutoTokenizer.from_pretrained(args.model)
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
        use_cpu=args.tiny,
        bf16=not args.tiny,
    )
    try:
        trainer = GRPOTrainer(
            model=model,
            args=config,
            # One row per episode: the system prompt and the instance (env id, seed).
            train_dataset=factory.dataset(steps * args.generations),
            processing_class=tokenizer,
            environment_factory=factory,
        )
        trainer.train()
    finally:
        factory.close()
    last = [entry for entry in trainer.state.log_history if "reward" in entry][-1]
    print(f"trained {steps} step(s); mean outcome of the last batch: {last['reward']:.3f}")


if __name__ == "__main__":
    main()
