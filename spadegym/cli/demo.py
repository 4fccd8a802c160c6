"""``spadegym demo``: the whole path from designer replies to a report, offline, in one command.

In a workspace folder (a new temporary one unless ``--workdir`` names one, and the spadegym
home for the run, so the user's own registry stays out of it: ``use_home``): a memory seeded
with the shipped library, an empty registry, then ``generate`` over the bundled *recorded*
designer replies (valid, broken, repaired, duplicate and hostile programs, as models really
send them; no model runs), with progress as each candidate is validated. Every accepted
environment is then played through Gymnasium with its own solution and with trivial replies,
a closing table is printed, and an HTML report is written to the workspace. ``--llm SPEC``
uses a real model instead: it designs the environments, then plays them as the solver.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from spadegym import contract
from spadegym.cli.output import terminal

if TYPE_CHECKING:
    from spadegym.designer.candidates import GenerationReport
    from spadegym.llm.base import ChatLLM
    from spadegym.memory import EnvironmentMemory
    from spadegym.registry import Registry

REPLAYS = Path(__file__).resolve().parent.parent / "demo_data" / "designer.jsonl"
"""The bundled recorded designer replies (a copy of tests/data/replays/designer.jsonl)."""

PLAY_SEEDS = (0, 1, 2)
"""Seeds each accepted environment is played on."""


def add_parsers(subparsers: argparse._SubParsersAction) -> None:
    """Add ``demo``."""
    parser = subparsers.add_parser(
        "demo",
        help="generate, validate, register, play and report, offline",
        description="Run the whole pipeline offline: replay recorded designer replies through "
        "generate (validation in the sandbox, repairs, dedup against a memory "
        "seeded with the shipped library, registration), play every new "
        "environment with its solution and with trivial replies, and write an HTML "
        "report. --llm uses a real model instead of the recordings.",
    )
    parser.add_argument(
        "--workdir",
        type=Path,
        default=None,
        metavar="DIR",
        help="the workspace (default: a new temporary folder)",
    )
    parser.add_argument(
        "--llm",
        default=None,
        metavar="SPEC",
        help="a real model, openai:<model>[@<base_url>], hf:<path>, gguf:<file> or "
        "smollm2 (a small local model; it writes few valid programs) (default: the bundled "
        "recorded replies)",
    )
    parser.add_argument(
        "-n",
        type=int,
        default=None,
        help="candidates (default: every recorded design reply; 6 with --llm)",
    )
    parser.add_argument(
        "--embedder",
        default="auto",
        choices=("auto", "minilm", "hashing"),
        help="the memory's embedder: the packaged MiniLM when it loads (auto, "
        "the default), MiniLM or fail, or the model-free hashing embedder",
    )
    parser.add_argument("--no-report", action="store_true", help="skip the HTML report")
    parser.set_defaults(func=run)


def design_reply_count(path: Path = REPLAYS) -> int:
    """How many design replies (first turns) a replay file holds."""
    count = 0
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            record = json.loads(line)
            count += "reply" in record and record.get("purpose", "design") == "design"
    return count


def run(args: argparse.Namespace) -> int:
    """Seed, generate, play, tabulate, report."""
    from spadegym.errors import ConfigError, SpadegymError
    from spadegym.registry import use_home

    started = time.perf_counter()
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="spadegym-demo-"))
    workdir.mkdir(parents=True, exist_ok=True)
    print(f"spadegym demo: workspace {workdir}\n")
    # The workspace is the home for the run: only the shipped library and the workspace's
    # registry are registered, so the user's own environments cannot shadow the run's.
    with use_home(workdir):
        try:
            llm, n = _designer(args)
            memory = _memory(workdir, args.embedder)
        except (ConfigError, SpadegymError) as exc:
            print(f"spadegym demo: {exc}", file=sys.stderr)
            return 2 if isinstance(exc, ConfigError) else 1
        try:
            return _pipeline(args, workdir, llm, n, memory, started)
        except SpadegymError as exc:
            print(f"spadegym demo: {exc}", file=sys.stderr)
            return 1
        finally:
            memory.close()


def _pipeline(
    args: argparse.Namespace,
    workdir: Path,
    llm: ChatLLM,
    n: int,
    memory: EnvironmentMemory,
    started: float,
) -> int:
    from spadegym.designer import generate
    from spadegym.registry import Registry, shipped_root

    shipped = shipped_root()
    registry = Registry(workdir / "registry", others=[shipped] if shipped else [])
    print(
        f"[2/5] Generating {n} candidates: each reply is validated in the sandbox, failures "
        "go back for up to 2 repairs, and the valid ones are checked for novelty and "
        "registered.",
        flush=True,
    )
    generation = generate(
        n,
        llm,
        None,
        registry=registry,
        memory=memory,
        max_repairs=2,
        concurrency=2,
        seed=0,
        progress=True,
        log=workdir / "generate.jsonl",
        kinds=("puzzle", "tool", "two_player") if args.llm else ("puzzle",),
    )
    print(terminal(f"\n{generation.table()}\n"))
    if generation.stopped:
        print(f"spadegym demo: stopped early: {generation.stopped}", file=sys.stderr)
        return 1
    ids = generation.env_ids
    print(
        f"[3/5] Playing the {len(ids)} new environments through Gymnasium (seeds "
        f"{', '.join(map(str, PLAY_SEEDS))}): their own solution, then trivial replies "
        "(empty, \\boxed{}, random words).",
        flush=True,
    )
    rows = [_play(registry.get(env_id)) for env_id in ids]
    print(terminal(f"\n{play_table(rows)}\n"))
    if args.llm:
        from spadegym.evaluation import evaluate

        print(f"      ...and with {llm.name} as the solver, with and without hints:", flush=True)
        solved = evaluate(llm, ids, episodes=2, roots=[registry.root], memory=memory)
        print(terminal(f"\n{solved.table()}\n"))
    page = None
    if not args.no_report:
        print("[4/5] Writing the HTML report...", flush=True)
        page = _report(workdir, registry, memory, generation, llm)
    print(f"[5/5] Done in {time.perf_counter() - started:.0f} s.")
    print(f"  registry: {registry.root}  (spadegym list --root {registry.root})")
    print(f"  memory:   {memory.path}")
    print(f"  run log:  {generation.log_path}")
    if page is not None:
        print(f"  report:   {page}")
    return 0


def _designer(args: argparse.Namespace) -> tuple[ChatLLM, int]:
    """The designer backend and the number of candidates, announced."""
    from spadegym.llm import ReplayChat, llm_from_spec

    if args.llm:
        llm = llm_from_spec(args.llm)
        print(f"[1/5] Designer: the model {llm.name}.")
        return llm, args.n or 6
    count = design_reply_count()
    llm = ReplayChat(REPLAYS, cycle=args.n is not None and args.n > count, name="recorded replies")
    print(
        f"[1/5] Designer: recorded replies. No model runs: {count} replies that designer "
        "models sent (valid programs, broken ones with their repairs, duplicates and "
        f"hostile programs) are replayed from {REPLAYS.name}. Use --llm SPEC for a real "
        "model."
    )
    return llm, args.n or count


def _memory(workdir: Path, choice: str) -> EnvironmentMemory:
    """The workspace memory, seeded with the shipped library."""
    from spadegym.memory import EnvironmentMemory, HashingEmbedder, SentenceTransformerEmbedder
    from spadegym.registry import Registry, shipped_root

    embedder: Any = HashingEmbedder()
    if choice != "hashing":
        try:
            candidate = SentenceTransformerEmbedder()
            candidate.embed(["probe"])  # load now, so a missing model is noticed here
            embedder = candidate
        except Exception as exc:  # optional dependency or model files missing
            if choice == "minilm":
                from spadegym.errors import ConfigError

                raise ConfigError(
                    f"the MiniLM embedder did not load ({type(exc).__name__}: "
                    f"{exc}); pip install 'spadegym[memory]' or use --embedder "
                    "hashing."
                ) from exc
            print(
                f"      note: the MiniLM embedder did not load ({type(exc).__name__}); the "
                "memory uses the hashing embedder, which finds near duplicates by shared "
                "words only."
            )
    memory = EnvironmentMemory(workdir / "memory", embedder)
    shipped = shipped_root()
    items = []
    if shipped is not None and shipped.is_dir():
        library = Registry(shipped)
        for entry in library.list():
            if entry.id not in memory:
                env = library.get(entry.id)
                items.append((env.id, env.source(), env.manifest.first_observation or None))
    if items:
        memory.add_many(items)
    print(
        f"      memory: {len(memory)} environments ({len(items)} added from the shipped "
        f"library), embedder {memory.embedder.name}.\n",
        flush=True,
    )
    return memory


def _play(env: Any) -> dict[str, Any]:
    """Play one registered environment with its solution and with trivial replies."""
    import gymnasium

    from spadegym.env import ProgramEnv
    from spadegym.validation.checks import TRIVIAL_REPLIES, random_words

    made = gymnasium.make(env.id, disable_env_checker=True)
    inner = made.unwrapped
    assert isinstance(inner, ProgramEnv)  # what every registry id makes
    row: dict[str, Any] = {
        "id": env.id,
        "kind": env.manifest.kind,
        "skill": env.manifest.skill or "-",
        "solution": [],
        "turns": [],
        "trivial": [],
    }
    try:
        for seed in PLAY_SEEDS:
            _, first = made.reset(seed=seed)
            if inner.num_players == 2:
                _, _, _, _, info = made.step("")
                outcome = info.get("episode_outcome") or [0.0, 0.0]
                row["trivial"].append(float(outcome[first.get("player", 0)]))
                continue
            solution = inner.solution() or []
            outcome, turns = _episode(made, solution)
            row["solution"].append(outcome)
            row["turns"].append(turns)
            for reply in [*TRIVIAL_REPLIES.values(), random_words(seed)]:
                made.reset(seed=seed)
                row["trivial"].append(_episode(made, [reply] * inner.max_turns)[0])
    finally:
        made.close()
    return row


def _episode(env: Any, actions: list[str]) -> tuple[float, int]:
    info: dict = {}
    for action in actions:
        _, _, terminated, truncated, info = env.step(action)
        if terminated or truncated:
            break
    return float(info.get("episode_outcome", 0.0)), int(info.get("episode_turns", len(actions)))


def play_table(rows: list[dict[str, Any]]) -> str:
    """The closing table: what the solution and the trivial replies score."""
    lines = [
        f"{'environment':<30} {'kind':<10} {'skill':<22} {'solution':>9} {'turns':>5} "
        f"{'trivial':>8}"
    ]
    for row in rows:
        if row["solution"]:
            wins = sum(map(contract.is_solved, row["solution"]))
            solution = f"{wins}/{len(row['solution'])} won"
            turns = f"{statistics.median(row['turns']):g}"
        else:
            solution, turns = "(game)", "-"
        trivial = f"{max(row['trivial']):.2f}" if row["trivial"] else "-"
        lines.append(
            f"{row['id'][:30]:<30} {row['kind']:<10} {row['skill'][:22]:<22} "
            f"{solution:>9} {turns:>5} {trivial:>8}"
        )
    if not rows:
        lines.append("(no environment was accepted)")
    lines.append(
        "solution: episodes won by the environment's own solution(); trivial: the best "
        "outcome of an empty reply, \\boxed{} or random words (for a game: an illegal "
        "first move, scored for the player who made it)."
    )
    return "\n".join(lines)


def _report(
    workdir: Path,
    registry: Registry,
    memory: EnvironmentMemory,
    generation: GenerationReport,
    llm: ChatLLM,
) -> Path:
    from spadegym.report import build_report

    reports = [t.report for c in generation.candidates for t in c.turns if t.report is not None]
    counts = ", ".join(f"{v} {k}" for k, v in generation.counts.items() if v)
    label = (
        "recorded replies (replayed offline; no model ran)"
        if llm.name == "recorded replies"
        else llm.name
    )
    notes = [f"Designer: {label}. {len(generation.candidates)} candidates: {counts}."]
    return build_report(
        workdir / "report",
        roots=[registry.root],
        memory=memory,
        generation=[generation],
        validation_reports=reports,
        title="spadegym demo",
        notes=notes,
    )
