r"""Playing episodes with a solver: its prompts, the hint, and the turn loop, in one place.

``spadegym.evaluation`` and the trainer (``spadegym_train``) both play through
``play_episodes``, so a model is evaluated under exactly the prompts it is trained with.

The solver sees a system prompt for the environment's kind (puzzle, tool use, two-player
game), the first observation, and then the last ``history_turns`` exchanges of its own
replies and the game's observations (``None`` keeps the whole episode). A hint play appends
``\n\nHINT: <hint>`` to the first observation (SPADE's format); in a two-player game only
seat 0 sees it, so regret measures what the hint is worth against an unhinted opponent.
The hint comes from the caller (``EpisodeSpec.hint``), from the program's own ``hint()``, or
from a hinter that reads the program and the instance's first observation.

Episodes end as the contract says: the outcome is the last reward if the episode terminated,
else 0 (truncation at the turn limit, a program failure). A two-player game gives both seats'
results from ``info["outcome"]`` (or the mover's reward and its negation); the model plays both
seats, each with its own conversation. Every live episode contributes one request per round:
the solver answers the round's requests together (one batch for a model engine, concurrent
calls for a chat backend) and the sandbox pool steps all the instances at once.
"""

from __future__ import annotations

import concurrent.futures
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from spadegym import contract
from spadegym.contract import as_win_rate
from spadegym.errors import ProgramError
from spadegym.llm.base import ChatLLM, LLMError, Message

__all__ = [
    "DEFAULT_HISTORY_TURNS",
    "HINT_SEPARATOR",
    "ChatSolver",
    "Episode",
    "EpisodeSpec",
    "HintRequest",
    "Reply",
    "ScriptedSolver",
    "Solver",
    "Turn",
    "as_win_rate",
    "play_episodes",
    "program_kind",
    "solver_messages",
    "solver_system_prompt",
    "with_hint",
]

HINT_SEPARATOR = "\n\nHINT: "
"""What joins a hint to the first observation (SPADE's format)."""

DEFAULT_HISTORY_TURNS = 2
"""Earlier (reply, observation) exchanges the solver sees besides its first observation."""

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
    """The first observation of a hint play (unchanged without a hint)."""
    return observation if not hint else f"{observation}{HINT_SEPARATOR}{hint}"


def program_kind(info: Any) -> str:
    """``puzzle``, ``tool`` or ``two_player`` for a loaded program's ``ProgramInfo``."""
    return contract.environment_kind(info.num_players, info.tool_env)


def solver_messages(
    kind: str, conversation: Sequence[Message], history_turns: int | None
) -> list[Message]:
    """System prompt, the first observation, then the last ``history_turns`` exchanges.

    Args:
        kind: the environment's kind (it picks the system prompt).
        conversation: the seat's messages so far, alternating user and assistant, starting
            and ending with a user message.
        history_turns: earlier exchanges to keep; ``None`` keeps them all.
    """
    keep = list(conversation[:1])
    if history_turns is None:
        keep += conversation[1:]
    else:
        keep += conversation[max(1, len(conversation) - 1 - 2 * history_turns) :]
    return [{"role": "system", "content": solver_system_prompt(kind)}, *keep]


@dataclass(frozen=True)
class Reply:
    """One reply of the solver.

    Attributes:
        text: what the solver wrote (the action sent to the environment).
        data: whatever the solver keeps about it (a model engine's tokens and log-probs).
        error: why the solver could not answer (the reply is then empty), or ``None``.
    """

    text: str
    data: Any = None
    error: str | None = None


class Solver(Protocol):
    """Answers a round of requests, one reply per conversation, in order."""

    def respond(self, requests: Sequence[list[Message]]) -> list[Reply]:
        """One reply per request."""
        ...


class ScriptedSolver:
    """A solver for one episode that replies with fixed actions, in order.

    For a scripted play through the same loop as a model's: a program's ``solution()``
    (the report's sample episode) or recorded replies. Once the actions run out, each reply
    is empty with an error, so the episode ends at its turn limit.
    """

    def __init__(self, actions: Sequence[str]):
        self.actions = list(actions)
        self.used = 0

    def respond(self, requests: Sequence[list[Message]]) -> list[Reply]:
        """The next action for each request."""
        replies = []
        for _ in requests:
            if self.used < len(self.actions):
                replies.append(Reply(self.actions[self.used]))
                self.used += 1
            else:
                replies.append(Reply("", error="the scripted actions ran out"))
        return replies


class ChatSolver:
    """A chat backend (``spadegym.llm``) as the solver, ``concurrency`` requests at a time.

    A failed model call becomes an empty reply with its error, so one failure ends no run.
    """

    def __init__(self, llm: ChatLLM, concurrency: int = 8):
        self.llm = llm
        self._threads = concurrent.futures.ThreadPoolExecutor(max(1, concurrency))
        self.errors = 0

    def _ask(self, messages: list[Message]) -> Reply:
        try:
            return Reply(self.llm.complete(messages, 1)[0])
        except LLMError as exc:
            return Reply("", error=f"the model failed: {exc}")

    def respond(self, requests: Sequence[list[Message]]) -> list[Reply]:
        """Ask for every reply at once; the backend may batch the requests in flight."""
        replies = list(self._threads.map(self._ask, requests))
        self.errors += sum(r.error is not None for r in replies)
        return replies

    def close(self) -> None:
        """Stop the request threads."""
        self._threads.shutdown(wait=False)


@dataclass(frozen=True)
class HintRequest:
    """What a hinter sees of one instance: the program, and what the player will see first.

    Attributes:
        env_key: the environment's id.
        source: the program.
        first_observation: the instance's first observation.
        solution: the instance's ``solution()`` (for the leak check), or ``None``.
    """

    env_key: str
    source: str
    first_observation: str
    solution: list[str] | None


Hinter = Callable[[Sequence[HintRequest]], list[str | None]]
"""Writes one hint per request (``None``: no acceptable hint; the hint play is dropped)."""

HintSource = Literal["program", "hinter"]


@dataclass
class EpisodeSpec:
    """One episode to play.

    Attributes:
        env_key: the environment's id (grouping key of results).
        source: its program.
        seed: the reset seed.
        options: ``reset`` options (``{"difficulty": d}``), or ``None``.
        max_turns: turns before truncation; the program's own limit always holds too.
        hint: a hint to show (a hint play), or ``None``.
        hint_source: where a hint play's hint comes from when ``hint`` is ``None``: the
            program's ``hint()`` or the hinter. A hint play whose hint cannot be had is
            dropped, not played plain.
    """

    env_key: str
    source: str
    seed: int
    options: dict[str, Any] | None = None
    max_turns: int | None = None
    hint: str | None = None
    hint_source: HintSource | None = None

    @property
    def hint_play(self) -> bool:
        """Whether this episode is meant to show a hint."""
        return self.hint is not None or self.hint_source is not None


@dataclass
class Turn:
    """One reply in an episode: the seat, the messages it answered, and the reply.

    Attributes:
        seat: who replied (0, or 1 in a two-player game).
        messages: what the solver was shown.
        reply: its reply, sent to the environment as the action.
        observation: what the environment showed after the step (``None`` when it failed).
        reward: the step's reward (``None`` when it failed).
    """

    seat: int
    messages: list[Message]
    reply: Reply
    observation: str | None = None
    reward: float | None = None


@dataclass
class Episode:
    """A played (or dropped) episode.

    Attributes:
        spec: what was asked for.
        kind: the program's kind (``puzzle``, ``tool``, ``two_player``).
        num_players: 1 or 2.
        turns: the solver's replies, in order.
        outcome: per seat: ``[r]`` for one player, ``[r0, r1]`` for two.
        hint: the hint shown, or ``None``.
        error: why the environment failed, or ``None``.
        error_kind: the ``ProgramError`` kind of that failure.
        dropped: why a hint play was not played (no hint could be had), or ``None``.
    """

    spec: EpisodeSpec
    kind: str = "puzzle"
    num_players: int = 1
    turns: list[Turn] = field(default_factory=list)
    outcome: list[float] = field(default_factory=list)
    hint: str | None = None
    error: str | None = None
    error_kind: str | None = None
    dropped: str | None = None

    @property
    def hinted(self) -> bool:
        """Whether a hint was shown."""
        return self.hint is not None

    @property
    def steps(self) -> int:
        """Environment steps taken."""
        return len(self.turns)

    @property
    def win_rate(self) -> float:
        """Seat 0's outcome on the win-rate scale (``as_win_rate``)."""
        return as_win_rate(self.outcome[0], self.num_players) if self.outcome else 0.0

    @property
    def solver_errors(self) -> list[str]:
        """The solver's failures during the episode."""
        return [t.reply.error for t in self.turns if t.reply.error is not None]


class _Live:
    """An episode in progress: its handle, each seat's conversation, whose turn it is."""

    def __init__(self, spec: EpisodeSpec, handle: Any):
        self.spec = spec
        self.handle = handle
        self.episode = Episode(spec)
        self.conversations: list[list[Message]] = []
        self.first = ""
        self.seat = 0
        self.max_turns = spec.max_turns or 1
        self.done = False

    def setup(self, info: Any) -> None:
        """Take the program's facts: kind, seats, turn limit."""
        self.episode.kind = program_kind(info)
        self.episode.num_players = 2 if info.num_players == 2 else 1
        own = info.max_turns or self.max_turns
        self.max_turns = min(own, self.spec.max_turns) if self.spec.max_turns else own
        self.conversations = [[] for _ in range(self.episode.num_players)]

    def observe(self, seat: int, observation: str) -> None:
        """Give ``seat`` an observation; its first one opens with the game's reset text."""
        talk = self.conversations[seat]
        if talk:
            talk.append({"role": "user", "content": observation})
            return
        text = with_hint(self.first, self.episode.hint if seat == 0 else None)
        if observation != self.first:
            text += "\n\n" + observation
        talk.append({"role": "user", "content": text})

    def finish(self, outcome: list[float], error: ProgramError | None = None) -> None:
        self.episode.outcome = outcome
        if error is not None:
            self.episode.error, self.episode.error_kind = str(error), error.kind
        self.done = True

    def fail(self, error: ProgramError) -> None:
        self.finish([0.0] * max(1, self.episode.num_players), error)


def _open_and_reset(specs: Sequence[EpisodeSpec], pool: Any) -> list[_Live]:
    """Open and reset every episode's instance, each worker's in one batch."""
    lives = []
    handles = pool.open_many([(s.source, s.env_key) for s in specs])
    for spec, handle in zip(specs, handles, strict=True):
        failed = isinstance(handle, ProgramError)
        live = _Live(spec, None if failed else handle)
        if failed:
            live.fail(handle)
        else:
            live.setup(handle.info)
        lives.append(live)
    opened = [live for live in lives if live.handle is not None]
    resets = pool.reset_batch([(live.handle, live.spec.seed, live.spec.options) for live in opened])
    for live, reset in zip(opened, resets, strict=True):
        if isinstance(reset, ProgramError):
            live.fail(reset)
            continue
        observation, info = reset
        live.first = observation
        if live.episode.num_players == 2:
            player = info.get("player", 0)
            live.seat = player if player in (0, 1) else 0
    return lives


def _hints(lives: Sequence[_Live], hinter: Hinter | None) -> None:
    """Give each hint play its hint, or drop it when none can be had."""
    wanted = [live for live in lives if live.spec.hint_play and not live.done]
    asked: list[tuple[_Live, HintRequest]] = []
    for live in wanted:
        spec = live.spec
        if spec.hint is not None:
            live.episode.hint = spec.hint
        elif spec.hint_source == "program":
            try:
                live.episode.hint = live.handle.hint() or None
            except ProgramError:
                live.episode.hint = None  # no hint(), or a failing one: no hint play
        elif hinter is not None:
            solution = None
            if live.episode.num_players == 1:
                try:
                    solution = list(live.handle.solution())
                except ProgramError:
                    solution = None
            asked.append((live, HintRequest(spec.env_key, spec.source, live.first, solution)))
    if asked:
        written = hinter([request for _, request in asked]) if hinter is not None else []
        for (live, _), hint in zip(asked, written, strict=True):
            live.episode.hint = hint or None
    for live in wanted:
        if live.episode.hint is None:
            live.episode.dropped = "no hint"
            live.finish([0.0] * live.episode.num_players)


def _advance(live: _Live, result: Any) -> None:
    """Apply one step's result: end the episode or hand the next observation to a seat."""
    if isinstance(result, ProgramError):
        live.fail(result)
        return
    turn = live.episode.turns[-1]
    turn.observation, turn.reward = result.observation, float(result.reward)
    two = live.episode.num_players == 2
    if result.terminated:
        outcome = contract.episode_outcome(
            result.reward, True, result.info, live.episode.num_players, live.seat
        )
        live.finish(outcome if two else [outcome])
        return
    if result.truncated or live.episode.steps >= live.max_turns:
        live.finish([0.0] * live.episode.num_players)
        return
    if two:
        player = result.info.get("player")
        live.seat = player if player in (0, 1) else 1 - live.seat
    live.observe(live.seat, result.observation)


def play_episodes(
    specs: Sequence[EpisodeSpec],
    pool: Any,
    solver: Solver,
    *,
    history_turns: int | None = DEFAULT_HISTORY_TURNS,
    hinter: Hinter | None = None,
    timings: dict[str, float] | None = None,
    on_episode: Callable[[Episode], None] | None = None,
) -> list[Episode]:
    """Play every spec to its end, all episodes advancing together one round at a time.

    Args:
        specs: the episodes.
        pool: the sandbox pool that hosts the instances (``SandboxPool`` or
            ``RaySandboxPool``).
        solver: answers each round's requests.
        history_turns: earlier exchanges the solver sees (``None``: all).
        hinter: writes the hints of specs with ``hint_source="hinter"``.
        timings: if given, ``"env"`` (sandbox) and ``"model"`` (solver and hinter) seconds are
            added to it.
        on_episode: called with each episode as it ends (progress lines; dropped hint plays,
            which never start, are not reported).

    Returns:
        The episodes, in the order of ``specs``; hint plays without a hint are ``dropped``.
    """
    timings = timings if timings is not None else {}

    def spent(key: str, since: float) -> float:
        now = time.perf_counter()
        timings[key] = timings.get(key, 0.0) + now - since
        return now

    clock = time.perf_counter()
    lives = _open_and_reset(specs, pool)
    clock = spent("env", clock)
    _hints(lives, hinter)
    clock = spent("model", clock)
    for live in lives:
        if not live.done:
            live.observe(live.seat, live.first)
    try:
        while active := [live for live in lives if not live.done]:
            clock = time.perf_counter()
            requests = [
                solver_messages(live.episode.kind, live.conversations[live.seat], history_turns)
                for live in active
            ]
            replies = solver.respond(requests)
            clock = spent("model", clock)
            for live, messages, reply in zip(active, requests, replies, strict=True):
                live.episode.turns.append(Turn(live.seat, messages, reply))
                live.conversations[live.seat].append({"role": "assistant", "content": reply.text})
            results = pool.step_batch(
                [(live.handle, reply.text) for live, reply in zip(active, replies, strict=True)]
            )
            for live, result in zip(active, results, strict=True):
                _advance(live, result)
                if live.done and on_episode is not None:
                    on_episode(live.episode)
            spent("env", clock)
    finally:
        clock = time.perf_counter()
        pool.release_many([live.handle for live in lives if live.handle is not None])
        spent("env", clock)
    return [live.episode for live in lives]
