"""``spadegym-train``: run or resume a self-play run from a preset, a YAML file and overrides.

Examples::

    spadegym-train --preset tiny-cpu
    spadegym-train --config run.yaml iterations=100 rewards.designer_reward=regret
    spadegym-train --preset qwen3-4b-4bit --workspace runs/4b mode=fixed ppo.learning_rate=1e-5
"""

from __future__ import annotations

import argparse
import sys

from spadegym.errors import SpadegymError


def build_parser() -> argparse.ArgumentParser:
    """The command line."""
    from spadegym_train.presets import PRESETS

    parser = argparse.ArgumentParser(
        prog="spadegym-train",
        description="SPADE-style self-play: one model designs environments and learns to "
        "solve them. Settings: a preset, then --config, then key=value overrides "
        "(any TrainConfig setting, by its dotted key: ppo.learning_rate=1e-4).",
    )
    parser.add_argument(
        "--config", help="YAML file of TrainConfig settings (a run's saved config.yaml is one)"
    )
    parser.add_argument("--preset", choices=sorted(PRESETS), help="starting settings")
    parser.add_argument("--workspace", help="run folder (overrides the config's)")
    parser.add_argument("--iterations", type=int, help="iterations to run in all")
    parser.add_argument(
        "--print-config",
        action="store_true",
        help="print the resolved configuration as YAML and exit",
    )
    parser.add_argument(
        "overrides",
        nargs="*",
        metavar="key=value",
        help="TrainConfig settings, e.g. mode=fixed ppo.kl_coef=0.005 validation.fuzz_examples=20",
    )
    return parser


def main(argv: list[str] | None = None) -> int:
    """Entry point of ``spadegym-train`` and ``python -m spadegym_train``.

    ``key=value`` overrides may stand anywhere on the line, before or after options.
    """
    args = build_parser().parse_intermixed_args(argv)
    overrides = list(args.overrides)
    if args.workspace:
        overrides.append(f"workspace={args.workspace}")
    if args.iterations is not None:
        overrides.append(f"iterations={args.iterations}")
    try:
        from spadegym_train.config import load_config, to_dict

        config = load_config(args.config, preset=args.preset, overrides=overrides)
        if args.print_config:
            import yaml

            print(yaml.safe_dump(to_dict(config), sort_keys=False), end="")
            return 0
        from spadegym_train.checkpoint import completed_iterations
        from spadegym_train.loop import train

        done = completed_iterations(config)
        if done >= config.iterations:
            print(
                f"spadegym-train: the run in {config.workspace} is already complete "
                f"({done} of {config.iterations} iterations); raise iterations= to continue it."
            )
            return 0
        start = f"resuming at iteration {done}" if done else "starting"
        print(
            f"spadegym-train: {start}; workspace {config.workspace} (metrics.jsonl, tb/, "
            "checkpoints/)",
            flush=True,
        )
        train(config)
    except SpadegymError as exc:
        print(f"spadegym-train: {exc}", file=sys.stderr)
        return 2
    return 0
