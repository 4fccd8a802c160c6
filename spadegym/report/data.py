"""What a report shows, gathered from registries, a memory, generation runs and validations.

Everything here is plain data (``EnvCard``, ``Funnel``, ``ReportData``), so the HTML and the
plots never touch a registry or a sandbox themselves.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from spadegym import contract

if TYPE_CHECKING:
    from spadegym.sandbox import Pool

TRANSCRIPT_CHARS = 1500
"""Characters of each observation kept in a card's sample transcript."""


@dataclass
class Step:
    """One row of a sample transcript: the reply, then what the environment answered."""

    action: str
    observation: str
    reward: float


@dataclass
class EnvCard:
    """One environment as its card shows it.

    Attributes:
        env_id: the Gymnasium id.
        title: the docstring's first line.
        description: the rest of the docstring.
        skill: the skill tag, or ``"-"``.
        kind: ``puzzle``, ``tool`` or ``two_player``.
        max_turns: the turn limit.
        passed: validation checks passed (from the manifest).
        failed: validation checks failed.
        first_observation: what ``reset(seed=0)`` shows.
        transcript: a sample episode (seed 0) played by the environment's solution.
        transcript_note: how the sample was played, or why there is none.
        outcome: the sample episode's outcome.
        stats: play statistics from the memory (``win_rate``, ``hint_win_rate``, ``regret``,
            ``plays``), when there are any.
        provenance: where it came from (designer, origin).
        floor: the chance floor validation measured (the best shortcut solver's mean
            outcome), or ``None``.
        floor_shortcut: the shortcut that set it.
    """

    env_id: str
    title: str
    description: str
    skill: str
    kind: str
    max_turns: int
    passed: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)
    first_observation: str = ""
    transcript: list[Step] = field(default_factory=list)
    transcript_note: str = ""
    outcome: Any = None
    stats: dict[str, Any] | None = None
    provenance: dict[str, Any] = field(default_factory=dict)
    floor: float | None = None
    floor_shortcut: str | None = None

    @property
    def anchor(self) -> str:
        """The card's HTML id."""
        return "env-" + self.env_id.rsplit("/", 1)[-1]


@dataclass
class Funnel:
    """How many candidates made it through each stage, and where the numbers came from."""

    generated: int
    valid: int
    novel: int
    registered: int
    source: str


@dataclass
class ReportData:
    """Everything one report page shows."""

    title: str
    cards: list[EnvCard]
    funnel: Funnel
    check_seconds: dict[str, list[float]]
    check_source: str
    roots: list[str]
    memory_path: str | None = None
    notes: list[str] = field(default_factory=list)


def funnel_from_generation(reports: Sequence[Any]) -> Funnel:
    """The funnel of ``GenerationReport`` objects (or their ``to_dict()`` forms)."""
    candidates = []
    for report in reports:
        data = report.to_dict() if hasattr(report, "to_dict") else report
        candidates += data.get("candidates", [])
    return _funnel(candidates, f"{len(reports)} generate run(s)")


def funnel_from_logs(paths: Sequence[Path]) -> Funnel | None:
    """The funnel of generate run logs (JSONL): their ``candidate`` events; None if none."""
    last: dict[tuple[str, int], dict] = {}
    for path in paths:
        try:
            lines = path.read_text(encoding="utf-8").splitlines()
        except OSError:
            continue
        for line in lines:
            try:
                record = json.loads(line)
            except ValueError:
                continue
            if isinstance(record, dict) and record.get("event") == "candidate":
                last[(str(path), int(record.get("candidate", -1)))] = record
    if not last:
        return None
    return _funnel(list(last.values()), f"{len(paths)} generate log(s)")


def _funnel(candidates: list[dict], source: str) -> Funnel:
    def valid(c: dict) -> bool:
        turns = c.get("turns") or []
        return bool(turns) and bool(turns[-1].get("ok"))

    return Funnel(
        generated=len(candidates),
        valid=sum(valid(c) for c in candidates),
        novel=sum(valid(c) and c.get("status") != "duplicate" for c in candidates),
        registered=sum(c.get("status") == "accepted" for c in candidates),
        source=source,
    )


def funnel_from_registries(registries: Sequence[Any]) -> Funnel:
    """A funnel read from the registries alone, when no generate run is known."""
    folders = valid = 0
    for registry in registries:
        entries = registry.list()
        folders += len(entries) + len(registry.skipped())
        valid += len(entries)
    return Funnel(folders, valid, valid, valid, "the registry folders (no generate run known)")


def check_seconds_of(reports: Sequence[Any]) -> dict[str, list[float]]:
    """Seconds per check, over ``ValidationReport`` objects, in the order checks run."""
    from spadegym.validation import CHECK_ORDER

    seconds: dict[str, list[float]] = {}
    for report in reports:
        if report is None:
            continue
        for check in report.checks:
            seconds.setdefault(check.name, []).append(float(check.seconds))
    order = {name: k for k, name in enumerate(CHECK_ORDER)}
    return {name: seconds[name] for name in sorted(seconds, key=lambda n: order.get(n, 99))}


def card_of(env: Any, stats: Any = None) -> EnvCard:
    """The card of a ``RegisteredEnv``, without its transcript (see ``play_sample``)."""
    manifest = env.manifest
    card = EnvCard(
        env.id,
        manifest.title,
        manifest.description,
        manifest.skill or "-",
        manifest.kind,
        manifest.max_turns,
        list(manifest.validation.passed),
        list(manifest.validation.failed),
        manifest.first_observation,
        provenance={
            k: v
            for k, v in manifest.provenance.model_dump().items()
            if k in ("designer", "origin", "document_id") and v
        },
        floor=manifest.floor,
        floor_shortcut=manifest.validation.properties.get("floor_shortcut"),
    )
    if stats is not None:
        card.stats = {
            "plays": stats.plays,
            "win_rate": stats.win_rate,
            "hint_win_rate": stats.hint_win_rate,
            "regret": stats.regret,
            "adjusted": contract.chance_adjusted(stats.win_rate, manifest.floor)
            if stats.win_rate is not None and manifest.floor is not None
            else None,
        }
    return card


def play_sample(card: EnvCard, source: str, pool: Pool[Any], seed: int = 0) -> None:
    """Play seed ``seed`` with the environment's solution and put the transcript on the card.

    The solution is played through ``spadegym.play`` (as a scripted solver), the loop that
    plays models in evaluation and training. A two-player game has no solution: its card
    shows the opening position instead.
    """
    from spadegym.errors import SpadegymError
    from spadegym.play import EpisodeSpec, ScriptedSolver, play_episodes

    try:
        handle = pool.open(source, card.env_id)
    except SpadegymError as exc:
        card.transcript_note = f"could not be started: {exc}"
        return
    try:  # the opening position, and the solution of this seed's instance
        card.first_observation, _ = handle.reset(seed=seed)
        two_player = handle.info.num_players == 2
        solution = None if two_player else handle.solution()
    except SpadegymError as exc:
        card.transcript_note = f"the sample episode failed: {exc}"
        return
    finally:
        pool.release(handle)
    if not solution:
        card.transcript_note = (
            "a two-player game: no solution to play; the opening position is shown"
            if two_player
            else "the program has no solution()"
        )
        return
    episode = play_episodes(
        [EpisodeSpec(card.env_id, source, seed)], pool, ScriptedSolver(solution)
    )[0]
    card.transcript = [
        Step(t.reply.text, _cut(t.observation), t.reward)
        for t in episode.turns
        if t.observation is not None and t.reward is not None and t.reply.error is None
    ]
    if episode.error is not None:
        card.transcript_note = f"the sample episode failed: {episode.error}"
        return
    card.outcome = episode.outcome[0] if episode.outcome else None
    card.transcript_note = f"seed {seed}, played by its solution()"


def _cut(text: str) -> str:
    return text if len(text) <= TRANSCRIPT_CHARS else text[:TRANSCRIPT_CHARS] + " [...]"
