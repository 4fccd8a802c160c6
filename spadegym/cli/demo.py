"""``spadegym demo``: validate the bundled example programs and play the accepted ones, offline.

The examples are hand-written: some good, some broken in the ways model-written programs
break. Each is validated in the sandbox; every accepted one is then played through Gymnasium
with its own solution and with an empty reply, so the whole path from text to environment runs.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path


def add_parsers(subparsers: argparse._SubParsersAction) -> None:
    """Add ``demo``."""
    parser = subparsers.add_parser(
        "demo", help="validate and play the bundled example programs (offline)",
        description="Validate the bundled example programs, good and bad, then play every "
                    "accepted one with its solution and with an empty reply.")
    parser.add_argument("--examples", type=Path, default=None,
                        help="a folder of programs (default: the bundled examples)")
    parser.set_defaults(func=run)


def examples_folder() -> Path:
    """The bundled examples: beside the package in a source checkout, or inside it installed."""
    here = Path(__file__).resolve().parent.parent
    for candidate in (here.parent / "examples", here / "examples"):
        if (candidate / "good").is_dir():
            return candidate
    raise FileNotFoundError("the bundled examples were not found; pass --examples FOLDER")


def run(args: argparse.Namespace) -> int:
    """Validate, tabulate, play."""
    from spadegym.cli.validate import format_table
    from spadegym.validation import validate_many

    try:
        folder = args.examples or examples_folder()
    except FileNotFoundError as exc:
        print(f"spadegym demo: {exc}", file=sys.stderr)
        return 2
    files = sorted(folder.rglob("*.py"))
    if not files:
        print(f"spadegym demo: no .py programs in {folder}", file=sys.stderr)
        return 2
    names = [str(f.relative_to(folder)) for f in files]
    print(f"Validating {len(files)} example programs from {folder} in the sandbox...")
    started = time.perf_counter()
    done = [0]

    def progress(index: int, report: object) -> None:
        done[0] += 1
        verdict = "valid" if report.ok else "rejected"
        print(f"  [{done[0]:>2}/{len(files)}] {names[index]}: {verdict}", flush=True)

    reports = validate_many([f.read_text(encoding="utf-8") for f in files], workers=2,
                            progress=progress)
    print(f"\n{format_table(names, reports)}  ({time.perf_counter() - started:.1f} s)\n")
    print("Playing the accepted environments through Gymnasium:")
    for name, path, report in zip(names, files, reports):
        if report.ok:
            print(f"  {name}: {play_summary(path.read_text(encoding='utf-8'), report)}")
    return 0


def play_summary(source: str, report: object) -> str:
    """One line: what the solution and an empty reply score on seed 0."""
    from spadegym.env import ProgramEnv

    env = ProgramEnv(source)
    try:
        parts = []
        obs, info = env.reset(seed=0)
        if env.num_players == 2:
            _, _, _, _, info = env.step("")
            return f"two-player game; an illegal first move ends it with outcome " \
                   f"{info.get('episode_outcome')}"
        solution = env.solution() or []
        outcome, turns = _play(env, solution)
        parts.append(f"solution wins with outcome {outcome} in {turns} turn(s)")
        env.reset(seed=0)
        outcome, turns = _play(env, [""] * env.max_turns)
        parts.append(f"an empty reply scores {outcome} after {turns} turn(s)")
        return "; ".join(parts)
    finally:
        env.close()


def _play(env: object, actions: list[str]) -> tuple[float, int]:
    info: dict = {}
    for action in actions:
        _, _, terminated, truncated, info = env.step(action)
        if terminated or truncated:
            break
    return info.get("episode_outcome", 0.0), info.get("episode_turns", len(actions))
