"""``evaluate``: play registered environments with a language model as the solver.

Each one-player environment is played ``episodes`` times without its hint and, when it has a
``hint()``, ``episodes`` times with it (the hint appended to the first observation as
a blank line and ``HINT: ...``, the SPADE convention), on the same seeds, so the two halves compare
like with like. Regret is ``max(0, mean(hint outcomes) - mean(plain outcomes))``. Two-player
games are played by the model in both seats; their outcomes are seat 0's, reported apart, and
a hint (when the game has one) goes to seat 0 only.

The solver sees a short system prompt, then the observations as user messages and its own
replies as assistant messages: the whole episode is one chat. Episodes run side by side; each
round asks the model for every live episode's next reply at once (``concurrency`` requests in
flight), then steps every environment, all over one ``SandboxPool``.
"""

from __future__ import annotations

import concurrent.futures
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from spadegym import contract
from spadegym.errors import ConfigError

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

HINT_PREFIX = "\n\nHINT: "
"""What joins the first observation and the hint in a hint play."""

_PUZZLE_PROMPT = (
    "You are playing a text game. Each user message is what the game shows you. Think as "
    "much as you need, then give your move or answer in \\boxed{...} at the end of your "
    "reply, in the format the game asks for."
)
_TOOL_PROMPT = (
    "You are completing a task with tools. Call a tool with a block "
    '<tool_call>{"name": "...", "arguments": {...}}</tool_call> (several blocks are '
    "allowed in one reply); each user message shows the results. When you are done, give "
    "the final answer in <answer>...</answer>."
)
_GAME_PROMPT = (
    "You are playing a two-player game against an opponent. Each user message is what the "
    "game shows you when it is your turn. Give your move in \\boxed{...} at the end of your "
    "reply, in the format the game asks for. An illegal move loses the game."
)


def solver_system_prompt(kind: str) -> str:
    """The solver's system prompt for an environment of this kind."""
    return {"tool": _TOOL_PROMPT, "two_player": _GAME_PROMPT}.get(kind, _PUZZLE_PROMPT)


def with_hint(observation: str, hint: str | None) -> str:
    """The first observation of a hint play."""
    return observation if not hint else f"{observation}{HINT_PREFIX}{hint}"


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
    """

    env_id: str
    title: str
    skill: str
    kind: str
    has_hint: bool
    plain: list[float] = field(default_factory=list)
    hinted: list[float] = field(default_factory=list)

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
        return max(0.0, self.win_rate_hint - self.win_rate_plain)

    @property
    def solved(self) -> float | None:
        """Share of plain plays with outcome 1 (solved outright)."""
        return sum(o >= 1.0 for o in self.plain) / len(self.plain) if self.plain else None

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready summary."""
        return {
            **asdict(self),
            "win_rate_plain": self.win_rate_plain,
            "win_rate_hint": self.win_rate_hint,
            "regret": self.regret,
            "solved": self.solved,
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
            f"{'solved':>6}"
        ]
        for e in self.one_player:
            lines.append(
                f"{e.env_id[:34]:<34} {e.skill[:22]:<22} {num(e.win_rate_plain):>6} "
                f"{num(e.win_rate_hint):>6} {num(e.regret):>6} {num(e.solved):>6}"
            )
        if self.one_player:
            lines.append("")
            lines.append(
                f"{'skill':<34} {'envs':>4} {'plain':>6} {'hint':>6} {'regret':>6} {'solved':>6}"
            )
            for skill, s in [*self.per_skill().items(), ("overall", self.overall())]:
                lines.append(
                    f"{skill[:34]:<34} {s['envs']:>4} {num(s['win_rate_plain']):>6} "
                    f"{num(s['win_rate_hint']):>6} {num(s['regret']):>6} "
                    f"{num(s['solved']):>6}"
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


class _Play:
    """One episode in progress: its environment and one chat per seat."""

    def __init__(self, target: _Target, env: Any, seed: int, hint: bool):
        self.target = target
        self.env = env
        self.seed = seed
        self.hint = hint
        self.chats: dict[int, list[dict[str, str]]] = {}
        self.seat = 0
        self.pending = ""
        self.hint_text: str | None = None
        self.error: str | None = None
        self.done = False
        self.result: EpisodeResult | None = None

    def start(self, options: dict | None) -> None:
        obs, info = self.env.reset(seed=self.seed, options=options)
        self.seat = info.get("player", 0) if self.env.num_players == 2 else 0
        self.hint_text = self.env.hint() if self.hint else None
        self.pending = obs

    def messages(self) -> list[dict[str, str]]:
        first = self.seat not in self.chats
        chat = self.chats.setdefault(
            self.seat, [{"role": "system", "content": solver_system_prompt(self.target.kind)}]
        )
        content = self.pending
        if first and self.seat == 0 and self.hint_text:
            # In a game the hint belongs to seat 0, with the first observation it is shown.
            content = with_hint(content, self.hint_text)
        chat.append({"role": "user", "content": content})
        return chat

    def answer(self, reply: str, error: str | None) -> None:
        self.chats[self.seat].append({"role": "assistant", "content": reply})
        self.error = self.error or error
        obs, _, terminated, truncated, info = self.env.step(reply)
        if terminated or truncated:
            outcome = info.get("episode_outcome", 0.0)
            if isinstance(outcome, list):  # a game: [r0, r1]
                outcome = outcome[0]
            failure = info["error"].get("message") if "error" in info else self.error
            self.result = EpisodeResult(
                self.target.env_id,
                self.seed,
                self.hint,
                float(outcome),
                int(info.get("episode_turns", 0)),
                failure,
            )
            self.done = True
            return
        if self.env.num_players == 2:
            self.seat = info.get("player", 1 - self.seat)
        self.pending = obs


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
        )
        for e in chosen
    ]


def _ask_all(
    llm: Any, plays: list[_Play], pool: concurrent.futures.Executor
) -> list[tuple[str, str | None]]:
    """Every live play's next reply, ``concurrency`` requests at a time."""
    from spadegym.llm.base import LLMError

    def ask(messages: list[dict[str, str]]) -> tuple[str, str | None]:
        try:
            return llm.complete(messages, 1)[0], None
        except LLMError as exc:
            return "", f"the model failed: {exc}"

    return list(pool.map(ask, [play.messages() for play in plays]))


def evaluate(
    llm: Any,
    ids: Sequence[str] | None = None,
    *,
    skill: str | None = None,
    kind: str | None = None,
    episodes: int = 4,
    hint: str = "both",
    seed: int = 0,
    difficulty: int | None = None,
    roots: Sequence[str | Path] | None = None,
    memory: Any = None,
    concurrency: int = 8,
    batch: int = 64,
    workers: int | None = None,
    sandbox: Any = None,
    progress: Callable[[str], None] | bool | None = None,
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
        workers: sandbox workers (default: up to 2, one per core).
        sandbox: the ``SandboxConfig`` of the workers.
        progress: a callable given one line per finished environment, or True for stderr.

    Returns:
        An ``EvalReport``.

    Raises:
        ConfigError: a setting is out of range or an id is unknown.
    """
    import os

    from spadegym.env import ProgramEnv
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
    say = _progress_writer(progress)
    started = time.perf_counter()
    targets = _targets(ids, skill, kind, roots)
    options = {"difficulty": difficulty} if difficulty is not None else None
    pool = SandboxPool(workers or min(2, os.cpu_count() or 1), sandbox)
    threads = concurrent.futures.ThreadPoolExecutor(concurrency)
    results: list[EnvResult] = []
    all_episodes: list[EpisodeResult] = []
    errors = 0
    try:
        for start in range(0, len(targets), max(1, batch // (2 * episodes))):
            group = targets[start : start + max(1, batch // (2 * episodes))]
            plays: list[_Play] = []
            for target in group:
                probe = ProgramEnv(target.source, pool=pool, on_error="terminate")
                has_hint = probe.program_info.has_hint
                probe.close()
                results.append(
                    EnvResult(target.env_id, target.title, target.skill, target.kind, has_hint)
                )
                conditions = [
                    c
                    for c in (False, True)
                    if (c is False and hint != "only")
                    or (c is True and hint != "none" and has_hint)
                ]
                for hinted in conditions:
                    for k in range(episodes):
                        env = ProgramEnv(target.source, pool=pool, on_error="terminate")
                        plays.append(_Play(target, env, seed + k, hinted))
            try:
                for play in plays:
                    play.start(options)
                live = [p for p in plays if not p.done]
                while live:
                    replies = _ask_all(llm, live, threads)
                    for play, (reply, error) in zip(live, replies):
                        errors += error is not None
                        play.answer(reply, error)
                    live = [p for p in live if not p.done]
            finally:
                for play in plays:
                    play.env.close()
            for result in results[-len(group) :]:
                mine = [p.result for p in plays if p.target.env_id == result.env_id]
                result.plain = [r.outcome for r in mine if not r.hint]
                result.hinted = [r.outcome for r in mine if r.hint]
                all_episodes += mine
                say(_line(result))
    finally:
        threads.shutdown(wait=False)
        pool.close()
    if memory is not None:
        _record(memory, targets, results)
    return EvalReport(
        getattr(llm, "name", type(llm).__name__),
        results,
        all_episodes,
        time.perf_counter() - started,
        errors,
        str(getattr(memory, "path", "")) or None if memory is not None else None,
    )


def _record(memory: Any, targets: Sequence[_Target], results: Sequence[EnvResult]) -> None:
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
        memory.record_plays(result.env_id, plain=result.plain, hint=result.hinted)


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
