"""``evaluate``: play registered environments with a language model as the solver.

Each one-player environment is played ``episodes`` times without its hint and, when it has a
``hint()``, ``episodes`` times with it, on the same seeds, so the two halves compare like with
like. Regret is ``max(0, mean(hint outcomes) - mean(plain outcomes))``. Two-player games are
played by the model in both seats; their outcomes are seat 0's, reported apart, and a hint
(when the game has one) goes to seat 0 only.

Episodes are played by ``spadegym.play``, the module the trainer plays with too: the same
system prompt per kind, the same hint format and the same view of the episode (the first
observation and the last ``history_turns`` exchanges), so a model is evaluated under the
prompts it was trained with. Each round asks the model for every live episode's next reply at
once (``concurrency`` requests in flight), then steps every environment, all over one
``SandboxPool``.
"""

from __future__ import annotations

import statistics
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from spadegym import contract
from spadegym.errors import ConfigError, ProgramError
from spadegym.play import (
    DEFAULT_HISTORY_TURNS,
    HINT_SEPARATOR,
    ChatSolver,
    EpisodeSpec,
    play_episodes,
    solver_system_prompt,
    with_hint,
)

if TYPE_CHECKING:
    from spadegym.llm.base import ChatLLM
    from spadegym.memory.interface import MemoryLike

__all__ = [
    "HINT_MODES",
    "EnvResult",
    "EpisodeResult",
    "EvalReport",
    "evaluate",
    "solver_system_prompt",
    "with_hint",
]

HINT_MODES = ("none", "both", "only")
"""``none``: plain plays only; ``both``: plain and hint plays; ``only``: hint plays only."""

HINT_PREFIX = HINT_SEPARATOR
"""What joins the first observation and the hint in a hint play (``spadegym.play``)."""


@dataclass
class EpisodeResult:
    """One episode the solver played.

    Attributes:
        env_id: the environment.
        seed: the instance.
        hint: whether the hint was shown.
        outcome: the contract's outcome (seat 0's for a two-player game).
        turns: steps played.
        error: why the episode ended early (the program or the model failed), if it did.
    """

    env_id: str
    seed: int
    hint: bool
    outcome: float
    turns: int
    error: str | None = None


@dataclass
class EnvResult:
    """What the solver did on one environment.

    Attributes:
        env_id: the environment.
        title: its title.
        skill: its skill tag (``"-"`` when it has none).
        kind: ``puzzle``, ``tool`` or ``two_player``.
        has_hint: whether the program has a ``hint()``.
        plain: outcomes without the hint.
        hinted: outcomes with the hint.
        floor: the environment's chance floor (its manifest's: the best shortcut solver's
            mean outcome), or ``None`` where none was measured.
    """

    env_id: str
    title: str
    skill: str
    kind: str
    has_hint: bool
    plain: list[float] = field(default_factory=list)
    hinted: list[float] = field(default_factory=list)
    floor: float | None = None

    @property
    def two_player(self) -> bool:
        """Whether this is a two-player game (outcomes are seat 0's)."""
        return self.kind == "two_player"

    @property
    def win_rate_plain(self) -> float | None:
        """Mean outcome without the hint (the memory's win rate)."""
        return statistics.fmean(self.plain) if self.plain else None

    @property
    def win_rate_hint(self) -> float | None:
        """Mean outcome with the hint."""
        return statistics.fmean(self.hinted) if self.hinted else None

    @property
    def regret(self) -> float | None:
        """``max(0, mean(hint) - mean(plain))``; None without both kinds of play."""
        if self.win_rate_plain is None or self.win_rate_hint is None:
            return None
        return contract.regret(self.win_rate_hint, self.win_rate_plain)

    @property
    def adjusted(self) -> float | None:
        """The plain win rate read against the floor, ``(win - floor) / (1 - floor)``.

        0 is what a shortcut solver that does not play scores, 1 is always solved, below 0 is
        worse than the shortcut; ``None`` without plain plays or without a floor.
        """
        if self.win_rate_plain is None or self.floor is None:
            return None
        return contract.chance_adjusted(self.win_rate_plain, self.floor)

    @property
    def solved(self) -> float | None:
        """Share of plain plays with outcome 1 (solved outright)."""
        if not self.plain:
            return None
        return sum(map(contract.is_solved, self.plain)) / len(self.plain)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready summary."""
        return {
            **asdict(self),
            "win_rate_plain": self.win_rate_plain,
            "win_rate_hint": self.win_rate_hint,
            "regret": self.regret,
            "solved": self.solved,
            "adjusted": self.adjusted,
        }


def _mean(values: Sequence[float | None]) -> float | None:
    known = [v for v in values if v is not None]
    return statistics.fmean(known) if known else None


def _summary(results: Sequence[EnvResult]) -> dict[str, Any]:
    return {
        "envs": len(results),
        "plain_plays": sum(len(r.plain) for r in results),
        "hint_plays": sum(len(r.hinted) for r in results),
        "win_rate_plain": _mean([r.win_rate_plain for r in results]),
        "win_rate_hint": _mean([r.win_rate_hint for r in results]),
        "regret": _mean([r.regret for r in results]),
        "solved": _mean([r.solved for r in results]),
        "floor": _mean([r.floor for r in results]),
        "adjusted": _mean([r.adjusted for r in results]),
    }


@dataclass
class EvalReport:
    """The outcome of one ``evaluate`` run.

    Attributes:
        model: the solver backend's name.
        envs: one result per environment, in the order played.
        episodes: every episode.
        seconds: wall time.
        llm_errors: model calls that failed (their episodes got an empty reply).
        memory_path: the memory the statistics went to, if any.
    """

    model: str
    envs: list[EnvResult]
    episodes: list[EpisodeResult]
    seconds: float = 0.0
    llm_errors: int = 0
    memory_path: str | None = None

    def result(self, env_id: str) -> EnvResult:
        """The result of one environment."""
        for env in self.envs:
            if env.env_id == env_id:
                return env
        raise KeyError(
            f"{env_id!r} was not evaluated; evaluated: {', '.join(e.env_id for e in self.envs)}"
        )

    @property
    def one_player(self) -> list[EnvResult]:
        """Results of the one-player environments (puzzles and tool use)."""
        return [e for e in self.envs if not e.two_player]

    @property
    def two_player(self) -> list[EnvResult]:
        """Results of the two-player games."""
        return [e for e in self.envs if e.two_player]

    def per_skill(self) -> dict[str, dict[str, Any]]:
        """Means per skill over the one-player environments (win rates, regret, solved)."""
        skills: dict[str, list[EnvResult]] = {}
        for env in self.one_player:
            skills.setdefault(env.skill, []).append(env)
        return {skill: _summary(skills[skill]) for skill in sorted(skills)}

    def overall(self) -> dict[str, Any]:
        """Means over every one-player environment."""
        return _summary(self.one_player)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready report."""
        return {
            "model": self.model,
            "seconds": round(self.seconds, 3),
            "llm_errors": self.llm_errors,
            "memory_path": self.memory_path,
            "overall": self.overall(),
            "per_skill": self.per_skill(),
            "envs": [e.to_dict() for e in self.envs],
            "episodes": [asdict(e) for e in self.episodes],
        }

    def table(self) -> str:
        """Readable tables: per environment, per skill, overall, and the two-player games."""

        def num(value: float | None) -> str:
            return "-" if value is None else f"{value:.2f}"

        lines = [
            f"{'environment':<34} {'skill':<22} {'plain':>6} {'hint':>6} {'regret':>6} "
            f"{'solved':>6} {'floor':>6} {'adj.':>6}"
        ]
        for e in self.one_player:
            lines.append(
                f"{e.env_id[:34]:<34} {e.skill[:22]:<22} {num(e.win_rate_plain):>6} "
                f"{num(e.win_rate_hint):>6} {num(e.regret):>6} {num(e.solved):>6} "
                f"{num(e.floor):>6} {num(e.adjusted):>6}"
            )
        if self.one_player:
            lines.append("")
            lines.append(
                f"{'skill':<34} {'envs':>4} {'plain':>6} {'hint':>6} {'regret':>6} {'solved':>6} "
                f"{'floor':>6} {'adj.':>6}"
            )
            for skill, s in [*self.per_skill().items(), ("overall", self.overall())]:
                lines.append(
                    f"{skill[:34]:<34} {s['envs']:>4} {num(s['win_rate_plain']):>6} "
                    f"{num(s['win_rate_hint']):>6} {num(s['regret']):>6} "
                    f"{num(s['solved']):>6} {num(s['floor']):>6} {num(s['adjusted']):>6}"
                )
            lines.append(
                "floor: what a shortcut solver that does not play scores; adj.: the plain win "
                "rate read against it, (plain - floor) / (1 - floor)."
            )
        if self.two_player:
            lines.append("")
            lines.append(
                f"{'two-player game (self-play)':<34} {'games':>5} {'seat 0':>7} "
                f"{'hint':>6} {'regret':>6}"
            )
            for e in self.two_player:
                lines.append(
                    f"{e.env_id[:34]:<34} {len(e.plain) + len(e.hinted):>5} "
                    f"{num(e.win_rate_plain):>7} {num(e.win_rate_hint):>6} "
                    f"{num(e.regret):>6}"
                )
        if not self.envs:
            lines.append("(no environments)")
        tail = f"\n{len(self.episodes)} episodes in {self.seconds:.1f} s with {self.model}"
        if self.llm_errors:
            tail += f"; {self.llm_errors} model call(s) failed and were played as empty replies"
        if self.memory_path:
            tail += f"; statistics written to {self.memory_path}"
        return "\n".join(lines) + tail


# -- playing -------------------------------------------------------------------------------


@dataclass
class _Target:
    env_id: str
    source: str
    title: str
    skill: str
    kind: str
    first_observation: str
    floor: float | None = None


def _targets(
    ids: Sequence[str] | None,
    skill: str | None,
    kind: str | None,
    roots: Sequence[str | Path] | None,
) -> list[_Target]:
    """The environments to play: the given ids, or every one of the roots (by skill/kind)."""
    from spadegym.registry import Registry, RegistryError, default_roots

    registries = [
        Registry(r) for r in (roots if roots is not None else default_roots()) if Path(r).is_dir()
    ]
    found: list[Any] = []
    if ids:
        for env_id in ids:
            errors = []
            for registry in registries:
                try:
                    found.append(registry.get(env_id))
                    break
                except RegistryError as exc:
                    errors.append(str(exc))
            else:
                raise ConfigError(
                    errors[0]
                    if errors
                    else f"{env_id!r}: there is no registry to look in; pass roots= or "
                    "add environments with `spadegym add`."
                )
    else:
        seen = set()
        for registry in registries:
            for entry in registry.list(skill=skill, kind=kind):
                if entry.id not in seen:
                    seen.add(entry.id)
                    found.append(registry.get(entry.id))
    chosen = [
        e
        for e in found
        if (skill is None or e.manifest.skill == skill)
        and (kind is None or e.manifest.kind == kind)
    ]
    return [
        _Target(
            e.id,
            e.source(),
            e.manifest.title,
            e.manifest.skill or "-",
            e.manifest.kind,
            e.manifest.first_observation,
            e.manifest.floor,
        )
        for e in chosen
    ]


def evaluate(
    llm: ChatLLM,
    ids: Sequence[str] | None = None,
    *,
    skill: str | None = None,
    kind: str | None = None,
    episodes: int = 4,
    hint: str = "both",
    seed: int = 0,
    difficulty: int | None = None,
    roots: Sequence[str | Path] | None = None,
    memory: MemoryLike | None = None,
    concurrency: int = 8,
    batch: int = 64,
    history_turns: int | None = DEFAULT_HISTORY_TURNS,
    workers: int | None = None,
    sandbox: Any = None,
    progress: Callable[[str], None] | bool | None = None,
    on_episode: Callable[[Any], None] | None = None,
) -> EvalReport:
    """Play registered environments with ``llm`` as the solver and measure hint regret.

    Args:
        llm: a chat backend (``spadegym.llm``: ``OpenAIChat``, ``TransformersChat``, ...).
        ids: environments to play (``spade/X-v0``, ``X-v0`` or ``X``); ``None`` plays every
            environment of the roots (filtered by ``skill`` and ``kind``).
        skill: only environments with this skill tag.
        kind: only ``puzzle``, ``tool`` or ``two_player`` environments.
        episodes: plays per environment and condition (plain, hint).
        hint: ``"both"`` (plain and hint plays), ``"none"`` or ``"only"``.
        seed: episode ``k`` plays seed ``seed + k``, with and without the hint.
        difficulty: passed as ``options={"difficulty": d}`` to every reset.
        roots: registry folders to look in; the default roots when ``None``.
        memory: an ``EnvironmentMemory``: each one-player environment's outcomes are
            recorded there (the environment is added first when the memory lacks it).
        concurrency: model requests in flight at once.
        batch: episodes played side by side.
        history_turns: earlier exchanges the solver sees besides the first observation
            (``None``: the whole episode); the trainer's default, so a trained model is
            evaluated under the prompts it learned with.
        workers: sandbox workers (default: up to 2, one per core).
        sandbox: the ``SandboxConfig`` of the workers.
        progress: a callable given one line per finished environment, or True for stderr.
        on_episode: called with each ``spadegym.play.Episode`` as it ends (a counter).

    Returns:
        An ``EvalReport``.

    Raises:
        ConfigError: a setting is out of range or an id is unknown.
    """
    import os

    from spadegym.sandbox import SandboxPool

    if hint not in HINT_MODES:
        raise ConfigError(f"hint={hint!r} is not one of {', '.join(HINT_MODES)}.")
    if episodes < 1 or concurrency < 1 or batch < 1:
        raise ConfigError(
            f"episodes={episodes}, concurrency={concurrency}, batch={batch}: "
            "each must be at least 1."
        )
    if difficulty is not None:
        contract.check_difficulty(difficulty)
    if history_turns is not None and history_turns < 0:
        raise ConfigError(f"history_turns={history_turns} must be 0 or more (or None: all).")
    say = _progress_writer(progress)
    started = time.perf_counter()
    targets = _targets(ids, skill, kind, roots)
    options = {"difficulty": difficulty} if difficulty is not None else None
    conditions = [h for h in (False, True) if (h and hint != "none") or (not h and hint != "only")]
    per_target = episodes * len(conditions)
    group_size = max(1, batch // per_target)
    pool = SandboxPool(workers or min(2, os.cpu_count() or 1), sandbox)
    solver = ChatSolver(llm, concurrency)
    results: list[EnvResult] = []
    all_episodes: list[EpisodeResult] = []
    try:
        for start in range(0, len(targets), group_size):
            group = targets[start : start + group_size]
            specs = [
                EpisodeSpec(
                    t.env_id,
                    t.source,
                    seed + k,
                    options,
                    hint_source="program" if hinted else None,
                )
                for t in group
                for hinted in conditions
                for k in range(episodes)
            ]
            played = play_episodes(
                specs, pool, solver, history_turns=history_turns, on_episode=on_episode
            )
            hints = _has_hint(pool, group)
            for target, has_hint in zip(group, hints, strict=True):
                mine = [e for e in played if e.spec.env_key == target.env_id]
                hint_plays = [e for e in mine if e.spec.hint_play]
                result = EnvResult(
                    target.env_id,
                    target.title,
                    target.skill,
                    target.kind,
                    has_hint,
                    plain=[e.outcome[0] for e in mine if not e.spec.hint_play],
                    hinted=[e.outcome[0] for e in hint_plays if not e.dropped],
                    floor=target.floor,
                )
                results.append(result)
                all_episodes += [_episode_result(e) for e in mine if not e.dropped]
                say(_line(result))
    finally:
        solver.close()
        pool.close()
    if memory is not None:
        _record(memory, targets, results)
    return EvalReport(
        getattr(llm, "name", type(llm).__name__),
        results,
        all_episodes,
        time.perf_counter() - started,
        solver.errors,
        str(getattr(memory, "path", "")) or None if memory is not None else None,
    )


def _has_hint(pool: Any, targets: Sequence[_Target]) -> list[bool]:
    """Whether each target's program defines ``hint()`` (read from its loaded class)."""
    handles = pool.open_many([(t.source, t.env_id) for t in targets])
    opened = [h for h in handles if not isinstance(h, ProgramError)]
    pool.release_many(opened)
    return [not isinstance(h, ProgramError) and bool(h.info.has_hint) for h in handles]


def _episode_result(episode: Any) -> EpisodeResult:
    """The report's record of one played episode (seat 0's outcome for a game)."""
    errors = episode.solver_errors
    return EpisodeResult(
        episode.spec.env_key,
        episode.spec.seed,
        episode.hinted,
        episode.outcome[0],
        episode.steps,
        episode.error or (errors[0] if errors else None),
    )


def _record(memory: MemoryLike, targets: Sequence[_Target], results: Sequence[EnvResult]) -> None:
    """Write the one-player outcomes to the memory (games' seat-0 outcomes would mislead it)."""
    by_id = {t.env_id: t for t in targets}
    for result in results:
        if result.two_player or not (result.plain or result.hinted):
            continue
        if result.env_id not in memory:
            target = by_id[result.env_id]
            memory.add(
                result.env_id,
                target.source,
                first_observation=target.first_observation or None,
                skill=None if target.skill == "-" else target.skill,
            )
        memory.record_plays(
            result.env_id, plain=result.plain, hint=result.hinted, floor=result.floor
        )


def _line(result: EnvResult) -> str:
    def num(value: float | None) -> str:
        return "-" if value is None else f"{value:.2f}"

    return (
        f"{result.env_id}: plain {num(result.win_rate_plain)}, hint "
        f"{num(result.win_rate_hint)}, regret {num(result.regret)}"
    )


def _progress_writer(progress: Callable[[str], None] | bool | None) -> Callable[[str], None]:
    if callable(progress):
        return progress
    if progress:
        return lambda line: print(line, file=sys.stderr, flush=True)
    return lambda line: None
