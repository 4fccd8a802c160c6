r"""Multi-turn solver play over many environment instances at once.

Every live episode contributes one prompt per round; the engine answers them in one batch and
the sandbox pool steps all instances concurrently (``SandboxPool.step_batch``). One-player
episodes end as the contract says: the outcome is the last reward if the episode terminated,
else 0. Two-player games put the model in both seats: each seat keeps its own conversation,
``info["player"]`` names who moves, and ``info["outcome"]`` gives both results; a truncated game
is a draw. A hint play appends ``\n\nHINT: <hint>`` to the first observation (of player 0 in a
two-player game, so regret measures what the hint is worth against an unhinted opponent).
The instances live in a local ``SandboxPool`` or, with ``executor: ray``, on Ray actors
(``spadegym.vector_ray.RaySandboxPool``, same interface); an instance whose actor died ends
its episode with an error of kind ``"lost"`` naming the environment.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from spadegym.errors import ProgramError
from spadegym.sandbox import EnvHandle, SandboxPool, StepResult
from spadegym_train.engines.base import GenerationEngine, encode_chat

SOLVER_SYSTEM = (
    "You are playing a text game. Read the observation, think briefly, and give your move or "
    "answer inside \\boxed{...} exactly as the game asks."
)
"""The solver's system message."""

HINT_SEPARATOR = "\n\nHINT: "
"""What joins a hint to the first observation (SPADE's format)."""


@dataclass
class EpisodeSpec:
    """One episode to play.

    Attributes:
        env_key: the environment's id in the pool.
        source: its program.
        seed: the reset seed.
        hint: the hint to show, or ``None`` for a plain play.
        use_program_hint: ask the program's ``hint()`` for this instance (overrides ``hint``).
        max_turns: turns before truncation.
        num_players: 1 or 2.
    """

    env_key: str
    source: str
    seed: int
    hint: str | None = None
    use_program_hint: bool = False
    max_turns: int = 25
    num_players: int = 1


@dataclass
class Turn:
    """One reply of the model in an episode: what it saw and what it wrote."""

    seat: int
    prompt_ids: list[int]
    response_ids: list[int]
    text: str


@dataclass
class Episode:
    """A finished episode.

    Attributes:
        spec: what was played.
        turns: the model's replies in order.
        outcome: per seat: ``[r]`` for one player, ``[r0, r1]`` for two.
        error: why the environment failed (``None`` when it did not).
        error_kind: the ``ProgramError`` kind (``"timeout"``, ``"crash"``, ...).
        hinted: whether a hint was actually shown.
    """

    spec: EpisodeSpec
    turns: list[Turn] = field(default_factory=list)
    outcome: list[float] = field(default_factory=list)
    error: str | None = None
    error_kind: str | None = None
    hinted: bool = False

    @property
    def steps(self) -> int:
        """Environment steps taken."""
        return len(self.turns)


class _Live:
    """An episode in progress: the handle, each seat's conversation, whose turn it is."""

    def __init__(self, spec: EpisodeSpec, handle: EnvHandle | None):
        self.spec = spec
        self.handle = handle
        self.episode = Episode(spec)
        self.conversations: list[list[dict[str, str]]] = [[] for _ in range(spec.num_players)]
        self.first = ""
        self.seat = 0
        self.done = False

    def observe(self, seat: int, observation: str) -> None:
        """Give ``seat`` an observation; its first one opens with the game's reset text."""
        talk = self.conversations[seat]
        if not talk:
            text = self.first
            if seat == 0 and self.episode.hinted:
                text += HINT_SEPARATOR + str(self.spec.hint)
            if observation != self.first:
                text += "\n\n" + observation
            talk.append({"role": "user", "content": text})
        else:
            talk.append({"role": "user", "content": observation})

    def finish(self, outcome: list[float], error: ProgramError | None = None) -> None:
        self.episode.outcome = outcome
        if error is not None:
            self.episode.error, self.episode.error_kind = str(error), error.kind
        self.done = True


def solver_messages(conversation: list[dict[str, str]], history_turns: int) -> list[dict]:
    """System, the first observation, then the last ``history_turns`` exchanges."""
    keep = conversation[:1]
    tail_start = max(1, len(conversation) - 1 - 2 * history_turns)
    keep += conversation[tail_start:]
    return [{"role": "system", "content": SOLVER_SYSTEM}, *keep]


def _clip(value: Any) -> float:
    number = float(value)
    return max(-1.0, min(1.0, number)) if math.isfinite(number) else 0.0


def _start_all(specs: Sequence[EpisodeSpec], pool: SandboxPool) -> list[_Live]:
    """Open and reset every episode's instance, each worker's in one batch; fetch hints."""
    lives = []
    for spec, handle in zip(
        specs, pool.open_many([(s.source, s.env_key) for s in specs]), strict=True
    ):
        failed = isinstance(handle, ProgramError)
        live = _Live(spec, None if failed else handle)
        if failed:
            live.finish([0.0] * spec.num_players, handle)
        lives.append(live)
    opened = [live for live in lives if live.handle is not None]
    resets = pool.reset_batch([(live.handle, live.spec.seed, None) for live in opened])
    for live, reset in zip(opened, resets, strict=True):
        if isinstance(reset, ProgramError):
            live.finish([0.0] * live.spec.num_players, reset)
            continue
        observation, info = reset
        spec = live.spec
        if spec.use_program_hint:
            try:
                spec.hint = live.handle.hint()
            except ProgramError:  # a failing hint() means no hint, as when none exists
                spec.hint = None
        live.episode.hinted = bool(spec.hint)
        live.first = observation
        live.seat = int(info.get("player", 0)) if spec.num_players == 2 else 0
        live.observe(live.seat, observation)
    return lives


def _advance(live: _Live, result: StepResult | ProgramError) -> None:
    """Apply one step result: end the episode or hand the next observation to a seat."""
    spec = live.spec
    if isinstance(result, ProgramError):
        live.finish([0.0] * spec.num_players, result)
        return
    if result.terminated:
        if spec.num_players == 2:
            outcome = result.info.get("outcome")
            if isinstance(outcome, list) and len(outcome) == 2:
                live.finish([_clip(outcome[0]), _clip(outcome[1])])
            else:
                reward = _clip(result.reward)  # the mover's reward, zero-sum for the other
                live.finish([reward, -reward] if live.seat == 0 else [-reward, reward])
        else:
            live.finish([_clip(result.reward)])
        return
    if result.truncated or live.episode.steps >= spec.max_turns:
        live.finish([0.0] * spec.num_players)
        return
    if spec.num_players == 2:
        player = result.info.get("player")
        live.seat = player if player in (0, 1) else 1 - live.seat
    live.observe(live.seat, result.observation)


def open_episode_pool(executor: str, sandbox_workers: int) -> SandboxPool:
    """The pool that hosts the episodes' instances.

    Args:
        executor: ``"local"``, ``"ray"`` or ``"ray:<address>"`` (``TrainConfig.executor``).
        sandbox_workers: worker processes of the local pool, or of each Ray actor.
    """
    if executor == "local":
        pool = SandboxPool(sandbox_workers)
        pool.start()
        return pool
    from spadegym.vector_ray import RaySandboxPool

    address = executor[4:] if executor.startswith("ray:") else None
    return RaySandboxPool(workers_per_actor=sandbox_workers, address=address)


def play_episodes(
    specs: Sequence[EpisodeSpec],
    pool: SandboxPool,
    engine: GenerationEngine,
    tokenizer: Any,
    *,
    max_prompt_tokens: int,
    max_new_tokens: int,
    history_turns: int,
    template_kwargs: dict[str, Any] | None = None,
    timings: dict[str, float] | None = None,
) -> list[Episode]:
    """Play every spec to the end, all episodes advancing together one round at a time.

    Args:
        specs: the episodes.
        pool: sandbox workers that host the instances.
        engine: samples the solver's replies.
        tokenizer: builds the prompts.
        max_prompt_tokens: prompt budget (the beginning is cut first).
        max_new_tokens: reply budget per turn.
        history_turns: earlier exchanges kept in the prompt.
        template_kwargs: extra ``apply_chat_template`` arguments.
        timings: if given, ``"env"`` and ``"model"`` seconds are added to it.

    Returns:
        The episodes, in the order of ``specs``.
    """
    import time

    timings = timings if timings is not None else {}
    clock = time.perf_counter()
    lives = _start_all(specs, pool)
    timings["env"] = timings.get("env", 0.0) + time.perf_counter() - clock
    while True:
        active = [live for live in lives if not live.done]
        if not active:
            break
        clock = time.perf_counter()
        prompts = [
            encode_chat(
                tokenizer,
                solver_messages(live.conversations[live.seat], history_turns),
                max_prompt_tokens,
                template_kwargs,
            )
            for live in active
        ]
        replies = engine.generate(prompts, "solver", max_new_tokens)
        timings["model"] = timings.get("model", 0.0) + time.perf_counter() - clock
        clock = time.perf_counter()
        for live, reply in zip(active, replies, strict=True):
            live.episode.turns.append(
                Turn(live.seat, reply.prompt_ids, reply.response_ids, reply.text)
            )
            live.conversations[live.seat].append({"role": "assistant", "content": reply.text})
        results = pool.step_batch(
            [(live.handle, reply.text) for live, reply in zip(active, replies, strict=True)]
        )
        for live, result in zip(active, results, strict=True):
            _advance(live, result)
        timings["env"] = timings.get("env", 0.0) + time.perf_counter() - clock
    clock = time.perf_counter()
    pool.release_many([live.handle for live in lives if live.handle is not None])
    timings["env"] = timings.get("env", 0.0) + time.perf_counter() - clock
    return [live.episode for live in lives]
