"""Playing many short episodes of one program at once, in lockstep, over one worker.

Validation plays dozens of episodes (solutions, trivial replies, repeats for determinism). Each
gets its own instance, and every round sends the next action of every live episode in one
batch, so a check costs a few round trips rather than hundreds.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from spadegym.errors import ProgramError, SandboxError
from spadegym.sandbox import ProgramInfo, Worker, answer_value, protocol


@dataclass
class Episode:
    """One episode to play, and what happened.

    Exactly one way of choosing actions: ``actions`` (played in order, the episode stops when
    they run out), ``repeat`` (the same reply every turn), or ``use_solution`` (the program's
    own ``solution()`` for this instance, asked right after ``reset``).
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


def play(worker: Worker, info: ProgramInfo, episodes: list[Episode], max_turns: int) -> None:
    """Play ``episodes`` to their ends (or ``max_turns``), recording everything on them."""
    creates = [protocol.new_request(info.program) for _ in episodes]
    instances: list[int | None] = []
    for episode, request, answer in zip(episodes, creates, worker.exchange(creates)):
        try:
            instances.append(answer_value(request, answer))
        except ProgramError as exc:
            episode.error, episode.error_during = exc, "creating the environment"
            instances.append(None)
    live = [k for k, iid in enumerate(instances) if iid is not None]
    resets = [
        protocol.reset_request(instances[k], episodes[k].seed, episodes[k].options) for k in live
    ]
    for k, request, answer in zip(live, resets, worker.exchange(resets)):
        try:
            episodes[k].first_observation, episodes[k].first_info = answer_value(request, answer)
        except ProgramError as exc:
            episodes[k].error, episodes[k].error_during = exc, "reset()"
    live = [k for k in live if episodes[k].error is None]
    wanting = [k for k in live if episodes[k].use_solution]
    calls = [protocol.solution_request(instances[k]) for k in wanting]
    for k, request, answer in zip(wanting, calls, worker.exchange(calls)):
        try:
            episodes[k].solution = answer_value(request, answer)
        except ProgramError as exc:
            episodes[k].error, episodes[k].error_during = exc, "solution()"
    live = [k for k in live if episodes[k].error is None]
    for _ in range(max_turns):
        batch = [(k, episodes[k].next_action()) for k in live]
        batch = [(k, action) for k, action in batch if action is not None]
        if not batch:
            break
        steps: list[dict | ProgramError] = []
        for k, action in batch:
            try:
                steps.append(protocol.step_request(instances[k], action))
            except ProgramError as exc:  # an action longer than the contract allows
                steps.append(exc)
        sent = [request for request in steps if not isinstance(request, ProgramError)]
        started = time.perf_counter()
        answers = iter(worker.exchange(sent))
        per_step = (time.perf_counter() - started) / len(batch)
        still = []
        for (k, action), request in zip(batch, steps):
            episode = episodes[k]
            episode.step_seconds.append(per_step)
            try:
                if isinstance(request, ProgramError):
                    raise request
                result = answer_value(request, next(answers))
            except ProgramError as exc:
                episode.error = exc
                episode.error_during = (
                    f"step() on turn {episode.turns + 1} with action {_show(action)}"
                )
                continue
            obs, reward, terminated, truncated = (
                result.observation,
                result.reward,
                result.terminated,
                result.truncated,
            )
            episode.transcript.append([obs, reward, terminated, truncated, result.info, action])
            episode.terminated, episode.truncated = terminated, truncated
            if not (terminated or truncated):
                still.append(k)
        live = still
    closes = [protocol.close_request(iid) for iid in instances if iid is not None]
    try:
        worker.exchange(closes)
    except (ProgramError, SandboxError):
        pass


def _show(action: str, limit: int = 80) -> str:
    text = action if len(action) <= limit else action[:limit] + "..."
    return repr(text)
