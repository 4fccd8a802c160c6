"""``spadegym report``: a static HTML page of a registry and its memory."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def add_parsers(subparsers: argparse._SubParsersAction) -> None:
    """Add ``report``."""
    parser = subparsers.add_parser(
        "report",
        help="write a static HTML page of the registry and its memory",
        description="Write an HTML page (no server needed) with a card per environment (title, "
        "skill, checks, a sample episode played by its solution) and figures: "
        "environments per skill and kind, the validation funnel, time per check, "
        "and win rate against regret where play statistics exist.",
    )
    parser.add_argument(
        "--out",
        type=Path,
        default=Path("spadegym-report"),
        metavar="DIR",
        help="the output folder (default: ./spadegym-report)",
    )
    parser.add_argument(
        "--root",
        type=Path,
        action="append",
        default=None,
        metavar="PATH",
        help="a registry folder (repeatable; default: every root)",
    )
    parser.add_argument(
        "--memory",
        type=Path,
        default=None,
        metavar="PATH",
        help="the memory with play statistics (default: $SPADEGYM_HOME/memory when it exists)",
    )
    parser.add_argument("--no-memory", action="store_true", help="leave statistics out")
    parser.add_argument(
        "--timing-sample",
        type=int,
        default=6,
        metavar="N",
        help="programs to validate for the time-per-check figure (default 6; 0 leaves it out)",
    )
    parser.add_argument("--title", default="spadegym report", help="the page's heading")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Build the page and print its path."""
    from spadegym.errors import ConfigError, SpadegymError
    from spadegym.report import build_report

    memory = None
    if not args.no_memory:
        from spadegym.registry.roots import spadegym_home

        path = args.memory or spadegym_home() / "memory"
        if (path / "config.json").is_file():
            from spadegym.memory import EnvironmentMemory

            memory = EnvironmentMemory(path)
        elif args.memory is not None:
            print(
                f"spadegym report: {path} is not a memory folder (no config.json); pass "
                "the folder of an EnvironmentMemory or --no-memory.",
                file=sys.stderr,
            )
            return 2
    try:
        page = build_report(
            args.out,
            roots=args.root,
            memory=memory,
            timing_sample=max(0, args.timing_sample),
            title=args.title,
        )
    except ConfigError as exc:
        print(f"spadegym report: {exc}", file=sys.stderr)
        return 2
    except SpadegymError as exc:
        print(f"spadegym report: {exc}", file=sys.stderr)
        return 1
    finally:
        if memory is not None:
            memory.close()
    print(f"wrote {page}")
    return 0
