"""``spadegym similar`` and ``spadegym stats``: look into the environment memory."""

from __future__ import annotations

import argparse
import contextlib
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
        "environment already in the memory), with every signal the memory decides by: "
        "semantic cosine, code similarity, fingerprint match, and cross-play (the stored "
        "environment's recorded solutions replayed in the program, in a sandbox), and the "
        "verdict they give.",
    )
    similar.add_argument("target", metavar="FILE|ID")
    similar.add_argument(
        "--no-sandbox",
        action="store_true",
        help="compare by meaning, code and fingerprint only; do not play the program in a "
        "sandbox worker for cross-play",
    )
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
    if args.memory is None and not (path / "memory.sqlite").exists():
        # A command that only reads leaves no home behind: the shipped library, in a
        # temporary memory removed at exit.
        import atexit
        import shutil
        import tempfile

        temporary = Path(tempfile.mkdtemp(prefix="spadegym-memory-"))
        atexit.register(shutil.rmtree, temporary, ignore_errors=True)
        print(
            f"spadegym: no memory at {path} yet; reading the shipped library's (nothing is "
            "written)",
            file=sys.stderr,
        )
        path = temporary / "memory"
    try:
        return open_memory(path, progress=lambda line: print(f"spadegym: {line}", file=sys.stderr))
    except (SpadegymError, OSError) as exc:
        print(f"spadegym: the memory at {path} cannot be used: {exc}", file=sys.stderr)
        return None


def read_program(path: Path) -> str:
    """The text of a program file.

    Raises:
        SpadegymError: the file cannot be read, is binary, or is not UTF-8 text; the message
            names the file and the fix.
    """
    from spadegym.errors import SpadegymError

    try:
        data = path.read_bytes()
    except OSError as exc:
        raise SpadegymError(f"cannot read {path}: {exc.strerror or exc}") from exc
    if b"\0" in data:
        raise SpadegymError(f"{path} is a binary file, not a program; give a .py file")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise SpadegymError(
            f"{path} is not UTF-8 text (byte 0x{data[exc.start]:02x} at offset {exc.start}); "
            "programs are UTF-8: save it as UTF-8 and try again"
        ) from None


def run_similar(args: argparse.Namespace) -> int:
    """Print the neighbours of a program file or a stored env_id, with their signals."""
    if args.k < 1:
        print(f"spadegym similar: -k {args.k} must be at least 1", file=sys.stderr)
        return 2
    from spadegym.errors import ProgramError, SandboxError, SpadegymError

    target = Path(args.target)
    try:
        source = read_program(target) if target.is_file() else None
    except SpadegymError as exc:
        print(f"spadegym similar: {exc}", file=sys.stderr)
        return 1
    memory = _open(args)
    if memory is None:
        return 1
    try:
        if source is None and args.target not in memory:
            print(
                f"spadegym similar: {args.target!r} is neither a program file nor an env_id in "
                f"the memory at {memory.path}; give a path to a .py file or a stored id",
                file=sys.stderr,
            )
            return 1
        with contextlib.ExitStack() as stack:
            worker = None if args.no_sandbox else stack.enter_context(memory.sandbox())
            if source is None:
                try:
                    neighbours = memory.similar_to(args.target, args.k, sandbox=worker)
                except SandboxError as exc:
                    print(
                        f"spadegym similar: the sandbox failed ({exc}); showing meaning, code "
                        "and fingerprint only (--no-sandbox skips this)",
                        file=sys.stderr,
                    )
                    neighbours = memory.similar_to(args.target, args.k)
            else:
                if worker is not None:
                    try:
                        memory.signature_of(source, worker, strict=True)
                    except (ProgramError, SandboxError) as exc:
                        where = "fails in" if isinstance(exc, ProgramError) else "cannot run in"
                        print(
                            f"spadegym similar: {target} {where} the sandbox ({exc}); showing "
                            "meaning, code and fingerprint only (--no-sandbox skips this)",
                            file=sys.stderr,
                        )
                        worker = None
                neighbours = memory.similar(source, args.k, sandbox=worker)
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
        print(terminal(_neighbour_line(n)))
    return 0


def _neighbour_line(n) -> str:
    """One neighbour and its signals, e.g. ``cosine 0.812  code 0.45  ...  => same game``."""
    code = "-" if n.code_similarity is None else f"{n.code_similarity:.2f}"
    cross = "-" if n.cross_play is None else str(n.cross_play)
    verdict = f"same game ({n.verdict})" if n.verdict else "different"
    return (
        f"cosine {n.similarity:.3f}  code {code}  fingerprint "
        f"{'same' if n.fingerprint_match else '-'}  cross-play {cross}  => {verdict}  "
        f"{n.env_id}  [{n.skill or '-'}] {n.title}"
    )


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
