"""``spadegym similar`` and ``spadegym stats``: look into the environment memory."""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import asdict
from pathlib import Path

from spadegym.cli import arguments
from spadegym.cli.output import terminal


def add_parsers(subparsers: argparse._SubParsersAction) -> None:
    """Add ``similar`` and ``stats``."""
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument(
        "--memory",
        type=Path,
        default=None,
        metavar="PATH",
        help="the memory folder (default: $SPADEGYM_HOME/memory)",
    )
    common.add_argument("--json", action="store_true", help="print JSON")
    common.add_argument("-k", type=int, default=5, help="how many to show (default 5)")

    similar = subparsers.add_parser(
        "similar",
        parents=[common],
        help="stored environments nearest to a program or id",
        description="Show the stored environments nearest to FILE (a program) or to ID (an "
        "environment already in the memory), with semantic and code similarity.",
    )
    similar.add_argument("target", metavar="FILE|ID")
    similar.set_defaults(func=run_similar)

    stats = subparsers.add_parser(
        "stats",
        parents=[common],
        help="frontier, too easy and too hard environments",
        description="Show the environments at the frontier (highest regret with a plain win "
        "rate inside the band), and those too easy or too hard.",
    )
    stats.add_argument(
        "--skill", type=arguments.skill, default=None, help="only environments of this skill"
    )
    stats.add_argument(
        "--band",
        type=float,
        nargs=2,
        default=(0.15, 0.85),
        metavar=("LOW", "HIGH"),
        help="plain win-rate band of the frontier (default 0.15 0.85)",
    )
    stats.set_defaults(func=run_stats)


def _open(args: argparse.Namespace):
    """Open the memory named by ``--memory``; ``None`` (after a message) when it is unusable."""
    from spadegym.errors import SpadegymError
    from spadegym.memory.default import default_memory_path, open_memory

    if args.memory is not None and not (args.memory / "memory.sqlite").exists():
        print(
            f"spadegym: no memory at {args.memory}; pass an existing --memory PATH", file=sys.stderr
        )
        return None
    path = args.memory or default_memory_path()
    try:
        # The default memory is created on first use, seeded with the shipped library.
        return open_memory(path, progress=lambda line: print(f"spadegym: {line}", file=sys.stderr))
    except (SpadegymError, OSError) as exc:
        print(f"spadegym: the memory at {path} cannot be used: {exc}", file=sys.stderr)
        return None


def run_similar(args: argparse.Namespace) -> int:
    """Print the neighbours of a program file or a stored env_id."""
    if args.k < 1:
        print(f"spadegym similar: -k {args.k} must be at least 1", file=sys.stderr)
        return 2
    memory = _open(args)
    if memory is None:
        return 1
    from spadegym.errors import SpadegymError

    try:
        target = Path(args.target)
        if target.is_file():
            neighbours = memory.similar(target.read_text(encoding="utf-8"), args.k)
        elif args.target in memory:
            neighbours = memory.similar_to(args.target, args.k)
        else:
            print(
                f"spadegym similar: {args.target!r} is neither a program file nor an env_id in "
                f"the memory at {memory.path}; give a path to a .py file or a stored id",
                file=sys.stderr,
            )
            return 1
    except SpadegymError as exc:
        print(f"spadegym similar: {exc}", file=sys.stderr)
        return 1
    finally:
        memory.close()
    if args.json:
        print(json.dumps([asdict(n) for n in neighbours]))
        return 0
    if not neighbours:
        print("the memory is empty")
    for n in neighbours:
        code = "" if n.code_similarity is None else f"  code {n.code_similarity:.2f}"
        print(terminal(f"{n.similarity:.3f}{code}  {n.env_id}  [{n.skill or '-'}] {n.title}"))
    return 0


def run_stats(args: argparse.Namespace) -> int:
    """Print the frontier, the too easy and the too hard environments."""
    low, high = args.band
    if not 0.0 <= low <= high <= 1.0 or args.k < 1:
        print(
            f"spadegym stats: --band {low} {high} must satisfy 0 <= LOW <= HIGH <= 1 and -k "
            f"{args.k} must be at least 1",
            file=sys.stderr,
        )
        return 2
    memory = _open(args)
    if memory is None:
        return 1
    from spadegym.errors import SpadegymError

    try:
        sections = {
            "frontier": memory.frontier(args.k, (low, high), skill=args.skill),
            "too_easy": memory.too_easy(args.k, skill=args.skill),
            "too_hard": memory.too_hard(args.k, skill=args.skill),
        }
        total = len(memory)
    except SpadegymError as exc:
        print(f"spadegym stats: {exc}", file=sys.stderr)
        return 1
    finally:
        memory.close()
    if args.json:
        print(
            json.dumps(
                {"environments": total, **{k: [asdict(s) for s in v] for k, v in sections.items()}}
            )
        )
        return 0
    print(f"{total} environments in memory")
    for name, rows in sections.items():
        print(f"\n{name.replace('_', ' ')}:")
        if not rows:
            print("  (none)")
        for s in rows:
            hint = "-" if s.hint_win_rate is None else f"{s.hint_win_rate:.2f}"
            print(
                terminal(
                    f"  {s.env_id}  win {s.win_rate:.2f}  hint {hint}  regret {s.regret:.2f}  "
                    f"plays {s.plays}  [{s.skill or '-'}] {s.title}"
                )
            )
    return 0
