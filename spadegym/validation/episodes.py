"""Playing many short episodes of one program at once, in lockstep, over one worker.

Validation plays dozens of episodes (solutions, trivial replies, repeats for determinism). Each
gets its own instance, and every round sends the next action of every live episode in one
batch, so a check costs a few round trips rather than hundreds.

This is not ``spadegym.play``, which plays episodes with a solver (a model, or a script, as in
the report's sample episode): here nothing answers prompts. Each episode replays fixed actions,
one repeated reply or the program's own ``solution()``, and the battery needs what a solver
loop never keeps: the raw transcript of every step, each step's time, privileged calls
(``solution``, ``hint``) right after ``reset``, instances left open for a later check, and the
requests sent through the validator's own timed exchange with a worker it holds alone (no pool).
The two share the sandbox's request API (``spadegym.sandbox.protocol``); the contract's outcome
is read here with a two-player game's missing ``info["outcome"]`` kept as ``None``, which the
checks report, where a solver loop must score every ending.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from spadegym import contract
from spadegym.errors import ProgramError, SandboxError
from spadegym.sandbox import ProgramInfo, Worker, answer_value, protocol
from spadegym.sandbox.answers import Request


@dataclass
class ScriptedEpisode:
    """One episode whose moves are set before it starts (no solver), and what happened.

    Exactly one way of choosing actions: ``actions`` (played in order, the episode stops when
    they run out), ``repeat`` (the same reply every turn), or ``use_solution`` (the program's
    own ``solution()`` for this instance, asked right after ``reset``). ``calls`` names more
    privileged methods to call right after ``reset`` (after ``solution`` when it is used);
    their values, or the ``ProgramError`` each raised, land in ``called`` in order. ``instance``
    plays on an instance that already exists (the caller's to close) instead of a new one.
    """

    seed: int
    options: dict[str, Any] | None = None
    actions: list[str] | None = None
    repeat: str | None = None
    use_solution: bool = False
    label: str = ""
    first_observation: str = ""
    first_info: dict[str, Any] = field(default_factory=dict)
    transcript: list[list[Any]] = field(default_factory=list)
    solution: list[str] | None = None
    error: ProgramError | None = None
    error_during: str = ""
    terminated: bool = False
    truncated: bool = False
    step_seconds: list[float] = field(default_factory=list)
    calls: tuple[str, ...] = ()
    called: list[Any] = field(default_factory=list)
    instance: int | None = None

    @property
    def turns(self) -> int:
        """Steps played."""
        return len(self.transcript)

    def outcome(self, num_players: int = 1) -> Any:
        """The contract's outcome (``contract.episode_outcome``), or ``None`` for a two-player game.

        ``None`` when a two-player game never put ``info["outcome"]`` on its last step: the
        checks report that, where a solver loop must score every ending.
        """
        last = self.transcript[-1] if self.transcript else None
        if num_players == 2 and (not self.terminated or last is None or "outcome" not in last[4]):
            return None
        if last is None:
            return 0.0
        return contract.episode_outcome(last[1], self.terminated, last[4], num_players)

    def won(self) -> bool:
        """Whether a one-player episode was solved (outcome 1.0)."""
        return self.error is None and contract.is_solved(self.outcome())

    def next_action(self) -> str | None:
        """The reply for the next turn, or None when this episode has no more."""
        if self.repeat is not None:
            return self.repeat
        actions = self.solution if self.use_solution else self.actions
        return actions[self.turns] if actions is not None and self.turns < len(actions) else None


Exchange = Callable[[Sequence[dict[str, Any]]], list[Any]]
"""Sends a batch of requests (``spadegym.sandbox.protocol``'s builders) and returns one answer
per request: the worker's own ``exchange``, or the validator's timed one."""


def play(
    worker: Worker,
    info: ProgramInfo,
    episodes: list[ScriptedEpisode],
    max_turns: int,
    *,
    exchange: Exchange | None = None,
    keep: bool = False,
) -> None:
    """Play ``episodes`` to their ends (or ``max_turns``), recording everything on them.

    Args:
        worker: the worker holding the program.
        info: the loaded program.
        episodes: what to play; each records its results.
        max_turns: steps per episode at most.
        exchange: sends a batch of requests and returns the answers; the worker's own by
            default (the validator passes a timed one).
        keep: leave the instances this call created open (their ids stay on the episodes).
    """
    if exchange is None:
        exchange = worker.exchange
    created = [k for k, e in enumerate(episodes) if e.instance is None]
    creates = [protocol.new_request(info.program) for _ in created]
    for k, request, answer in zip(created, creates, exchange(creates)):
        try:
            episodes[k].instance = answer_value(request, answer)
        except ProgramError as exc:
            episodes[k].error, episodes[k].error_during = exc, "creating the environment"
    instances = {k: e.instance for k, e in enumerate(episodes) if e.instance is not None}
    live = list(instances)
    resets = [
        protocol.reset_request(instances[k], episodes[k].seed, episodes[k].options) for k in live
    ]
    for k, request, answer in zip(live, resets, exchange(resets)):
        try:
            episodes[k].first_observation, episodes[k].first_info = answer_value(request, answer)
        except ProgramError as exc:
            episodes[k].error, episodes[k].error_during = exc, "reset()"
    live = [k for k in live if episodes[k].error is None]
    wanting = [
        (k, method)
        for k in live
        for method in ("solution",) * episodes[k].use_solution + episodes[k].calls
    ]
    calls = [_CALLS[method](instances[k]) for k, method in wanting]
    for (k, method), request, answer in zip(wanting, calls, exchange(calls)):
        episode = episodes[k]
        try:
            value = answer_value(request, answer)
        except ProgramError as exc:
            value = exc
        if episode.use_solution and method == "solution" and episode.solution is None:
            if isinstance(value, ProgramError):  # without its solution the episode cannot go on
                episode.error, episode.error_during = value, "solution()"
            else:
                episode.solution = value
        else:
            episode.called.append(value)
    live = [k for k in live if episodes[k].error is None]
    for _ in range(max_turns):
        batch = [(k, action) for k in live if (action := episodes[k].next_action()) is not None]
        if not batch:
            break
        steps: list[Request | ProgramError] = []
        for k, action in batch:
            try:
                steps.append(protocol.step_request(instances[k], action))
            except ProgramError as exc:  # an action longer than the contract allows
                steps.append(exc)
        sent = [request for request in steps if not isinstance(request, ProgramError)]
        started = time.perf_counter()
        answers = iter(exchange(sent))
        per_step = (time.perf_counter() - started) / len(batch)
        still = []
        for (k, action), sending in zip(batch, steps):
            episode = episodes[k]
            episode.step_seconds.append(per_step)
            try:
                if isinstance(sending, ProgramError):
                    raise sending
                result = answer_value(sending, next(answers))
                obs, reward, terminated, truncated, step_info = (
                    result.observation,
                    result.reward,
                    result.terminated,
                    result.truncated,
                    result.info,
                )
            except ProgramError as exc:
                episode.error = exc
                episode.error_during = (
                    f"step() on turn {episode.turns + 1} with action {_show(action)}"
                )
                continue
            episode.transcript.append([obs, reward, terminated, truncated, step_info, action])
            episode.terminated, episode.truncated = terminated, truncated
            if not (terminated or truncated):
                still.append(k)
        live = still
    if keep:
        return
    closes = [protocol.close_request(instances[k]) for k in created if k in instances]
    try:
        exchange(closes)
    except (ProgramError, SandboxError):
        pass


_CALLS = {"solution": protocol.solution_request, "hint": protocol.hint_request}


def _show(action: str, limit: int = 80) -> str:
    text = action if len(action) <= limit else action[:limit] + "..."
    return repr(text)
