"""Playing many short episodes of one program at once, in lockstep, over one worker.

Validation plays dozens of episodes (solutions, trivial replies, repeats for determinism). Each
gets its own instance, and every round sends the next action of every live episode in one
batch, so a check costs a few round trips rather than hundreds.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from spadegym.errors import ProgramError, SandboxError
from spadegym.sandbox import ProgramInfo, protocol
from spadegym.sandbox.client import _check, _result
from spadegym.sandbox.pool import Worker


@dataclass
class Episode:
    """One episode to play, and what happened.

    Exactly one way of choosing actions: ``actions`` (played in order, the episode stops when
    they run out), ``repeat`` (the same reply every turn), or ``use_solution`` (the program's
    own ``solution()`` for this instance, asked right after ``reset``). ``calls`` names more
    privileged methods to call right after ``reset`` (after ``solution`` when it is used);
    their values, or the ``ProgramError`` each raised, land in ``called`` in order. ``instance``
    plays on an instance that already exists (the caller's to close) instead of a new one.
    """

    seed: int
    options: dict | None = None
    actions: list[str] | None = None
    repeat: str | None = None
    use_solution: bool = False
    label: str = ""
    first_observation: str = ""
    first_info: dict = field(default_factory=dict)
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
        """The contract's outcome: the last reward if terminated, else 0 (or the info outcome)."""
        if not self.terminated or not self.transcript:
            return 0.0 if num_players != 2 else None
        last = self.transcript[-1]
        return last[4].get("outcome") if num_players == 2 else last[1]

    def won(self) -> bool:
        """Whether a one-player episode was solved (outcome 1.0)."""
        return self.error is None and self.outcome() >= 1.0

    def next_action(self) -> str | None:
        """The reply for the next turn, or None when this episode has no more."""
        if self.repeat is not None:
            return self.repeat
        actions = self.solution if self.use_solution else self.actions
        return actions[self.turns] if actions is not None and self.turns < len(actions) else None


def _exchange(worker: Worker, requests: list[dict], timeout: float) -> list[Any]:
    return worker._exchange(requests, timeout) if requests else []


def _value(response: Any, what: str) -> Any:
    if isinstance(response, ProgramError):
        raise response
    return _result(response, what)


_CALL_CHECKS = {"solution": protocol.check_solution, "hint": protocol.check_hint}


def play(
    worker: Worker,
    info: ProgramInfo,
    episodes: list[Episode],
    max_turns: int,
    *,
    exchange: Callable[[list[dict], float], list[Any]] | None = None,
    keep: bool = False,
) -> None:
    """Play ``episodes`` to their ends (or ``max_turns``), recording everything on them.

    Args:
        worker: the worker holding the program.
        info: the loaded program.
        episodes: what to play; each records its results.
        max_turns: steps per episode at most.
        exchange: sends a batch of requests (with a timeout) and returns the answers; the
            worker's own by default (the validator passes a timed one).
        keep: leave the instances this call created open (their ids stay on the episodes).
    """
    call_timeout = worker.config.call_timeout
    load_timeout = worker.config.load_timeout
    if exchange is None:
        exchange = functools.partial(_exchange, worker)
    created = [k for k, e in enumerate(episodes) if e.instance is None]
    answers = exchange([{"op": "new", "p": info.program} for _ in created], load_timeout)
    for k, answer in zip(created, answers):
        try:
            episodes[k].instance = _value(answer, "new")
        except ProgramError as exc:
            episodes[k].error, episodes[k].error_during = exc, "creating the environment"
    instances = [e.instance for e in episodes]
    live = [k for k, iid in enumerate(instances) if iid is not None]
    resets = [
        {"op": "reset", "i": instances[k], "seed": episodes[k].seed, "options": episodes[k].options}
        for k in live
    ]
    for k, answer in zip(live, exchange(resets, call_timeout)):
        try:
            episodes[k].first_observation, episodes[k].first_info = _check(
                _value(answer, "reset"), protocol.check_reset
            )
        except ProgramError as exc:
            episodes[k].error, episodes[k].error_during = exc, "reset()"
    live = [k for k in live if episodes[k].error is None]
    wanting = [
        (k, method)
        for k in live
        for method in ("solution",) * episodes[k].use_solution + episodes[k].calls
    ]
    calls = [{"op": "call", "i": instances[k], "m": method} for k, method in wanting]
    for (k, method), answer in zip(wanting, exchange(calls, call_timeout)):
        episode = episodes[k]
        try:
            value = _check(_value(answer, method), _CALL_CHECKS[method])
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
        batch = [(k, episodes[k].next_action()) for k in live]
        batch = [(k, action) for k, action in batch if action is not None]
        if not batch:
            break
        started = time.perf_counter()
        answers = exchange(
            [{"op": "step", "i": instances[k], "a": a} for k, a in batch], call_timeout
        )
        per_step = (time.perf_counter() - started) / len(batch)
        still = []
        for (k, action), answer in zip(batch, answers):
            episode = episodes[k]
            episode.step_seconds.append(per_step)
            try:
                obs, reward, terminated, truncated, step_info = _check(
                    _value(answer, "step"), protocol.check_step
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
    closes = [{"op": "close", "i": instances[k]} for k in created if instances[k] is not None]
    try:
        exchange(closes, call_timeout)
    except (ProgramError, SandboxError):
        pass


def _show(action: str, limit: int = 80) -> str:
    text = action if len(action) <= limit else action[:limit] + "..."
    return repr(text)
