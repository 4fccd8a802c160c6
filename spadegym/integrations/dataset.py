"""Single-turn datasets in reasoning-gym's shape: ``spadegym.dataset(ids, size, seed)``.

Item ``k`` of a dataset plays environment ``ids[k % len(ids)]`` on an instance seed derived
from ``(seed, k)``. It is a dict with ``question`` (the first observation), ``answer`` (the
reply that wins: the program's one-reply ``solution()``) and ``metadata`` (the environment,
the instance, the program's sha256, ...). ``score_answer(answer, item)`` replays the instance
in the sandbox with the model's whole reply and returns the episode's outcome, clipped to
``[0, 1]`` (a penalty scores 0), as reasoning-gym's scores are.

Only environments that end in one turn belong here. A program qualifies when, on the probed
instance, its ``solution()`` is one reply that wins, and a reply that is no answer (the empty
reply) also ends the episode at the first step: the episode is over after one reply, whatever
it says. A program that keeps the game going after a wrong first reply (``LockPick``, where
each guess gets feedback) is multi-turn and is refused with the reason; train those with the
multi-turn adapters (``spadegym.integrations.trl``, ``spadegym.integrations.verifiers``).
"""

from __future__ import annotations

import atexit
import threading
from collections.abc import Iterator, Sequence
from typing import Any

from spadegym import contract
from spadegym.errors import ConfigError, SpadegymError
from spadegym.integrations.programs import Program, resolve, seed_for, with_hint

__all__ = ["SpadeDataset", "dataset", "score_answer"]

SOURCE = "spadegym"
"""``metadata["source_dataset"]`` of every item."""


def _options(difficulty: int | None) -> dict[str, Any] | None:
    return {"difficulty": difficulty} if difficulty is not None else None


class _Replayer:
    """Plays instances in sandboxed workers: one ``ProgramEnv`` per program over one pool.

    Calls are serialised by a lock, so a dataset can be scored from several threads.
    """

    def __init__(self, workers: int = 1, sandbox: Any = None):
        from spadegym.sandbox import SandboxPool

        self._pool = SandboxPool(workers, sandbox)
        self._envs: dict[str, Any] = {}
        self._lock = threading.Lock()

    def _env(self, program: Program) -> Any:
        from spadegym.env import ProgramEnv

        env = self._envs.get(program.sha256)
        if env is None:
            env = ProgramEnv(program.source, pool=self._pool, on_error="terminate")
            self._envs[program.sha256] = env
        return env

    def item(
        self, program: Program, seed: int, difficulty: int | None, hint: bool
    ) -> tuple[Any, ...]:
        """``(first observation, solution replies, whether the solution wins at once)``."""
        with self._lock:
            env = self._env(program)
            obs, _ = env.reset(seed=seed, options=_options(difficulty))
            if hint:
                obs = with_hint(obs, env.hint())
            solution = env.solution() or []
            if len(solution) != 1:
                return obs, solution, False
            _, _, terminated, _, info = env.step(solution[0])
            return obs, solution, terminated and contract.is_solved(info.get("episode_outcome"))

    def ends_after_one_reply(self, program: Program, seed: int, difficulty: int | None) -> bool:
        """Whether an empty reply on this instance ends the episode at the first step."""
        with self._lock:
            env = self._env(program)
            env.reset(seed=seed, options=_options(difficulty))
            _, _, terminated, truncated, _ = env.step("")
            return bool(terminated or truncated)

    def outcome(self, program: Program, seed: int, difficulty: int | None, reply: str) -> float:
        """The outcome of playing ``reply`` as the first (and only) reply of an instance."""
        with self._lock:
            env = self._env(program)
            env.reset(seed=seed, options=_options(difficulty))
            _, reward, terminated, truncated, info = env.step(reply)
            if not (terminated or truncated):
                return 0.0  # the episode goes on: a single-turn item is lost
            return float(info.get("episode_outcome", 0.0))

    def close(self) -> None:
        with self._lock:
            for env in self._envs.values():
                env.close()
            self._envs.clear()
            self._pool.close()


class SpadeDataset:
    """Single-turn items of registered environments, generated on demand (see the module).

    Args:
        ids: registered environment ids, each ending in one turn.
        size: how many items.
        seed: names the instances (the same seed gives the same items).
        difficulty: ``options={"difficulty": d}`` for every instance, 1..5 (None: the
            program's default).
        hint: append each instance's ``hint()`` to its question (the SPADE hint play).
        workers: sandbox workers that generate and score items.
        sandbox: the ``SandboxConfig`` of those workers.

    Raises:
        SpadegymError: an id is unknown, or an environment does not end in one turn.
        ConfigError: ``size`` or ``difficulty`` is out of range.
    """

    def __init__(
        self,
        ids: str | Sequence[str],
        size: int = 500,
        seed: int = 0,
        *,
        difficulty: int | None = None,
        hint: bool = False,
        workers: int = 1,
        sandbox: Any = None,
    ):
        if not isinstance(size, int) or size < 1:
            raise ConfigError(f"size={size!r}: a dataset holds at least 1 item.")
        if difficulty is not None:
            contract.check_difficulty(difficulty)
        self.programs = resolve(ids, one_player="a single-turn dataset")
        self.size = size
        self.seed = seed
        self.difficulty = difficulty
        self.hint = hint
        self._items: dict[int, dict[str, Any]] = {}
        self._replayer = _Replayer(max(1, workers), sandbox)
        try:
            for k, program in enumerate(self.programs[:size]):
                self._check_single_turn(program, seed_for(seed, k))
        except BaseException:
            self.close()
            raise

    def _check_single_turn(self, program: Program, instance: int) -> None:
        _, solution, wins = self._replayer.item(program, instance, self.difficulty, False)
        why = ""
        if len(solution) != 1:
            why = f"its solution() for seed {instance} is {len(solution)} replies, not one"
        elif not wins:
            why = f"its one-reply solution() for seed {instance} does not win at the first step"
        elif not self._replayer.ends_after_one_reply(program, instance, self.difficulty):
            why = "a first reply that is no answer (the empty reply) does not end the episode"
        if why:
            raise SpadegymError(
                f"{program.env_id} is not a single-turn environment: {why}. A single-turn "
                "dataset needs environments that end after one reply, whatever it says. "
                "Train it multi-turn instead (spadegym.integrations.trl.environment_factory, "
                "or the verifiers SpadeEnv)."
            )

    def __len__(self) -> int:
        return self.size

    def __getitem__(self, idx: int) -> dict[str, Any]:
        """Item ``idx``: ``{"question", "answer", "metadata"}``."""
        if not isinstance(idx, int) or isinstance(idx, bool):
            raise TypeError(f"dataset indices are ints; got {type(idx).__name__}.")
        if idx < 0:
            idx += self.size
        if not 0 <= idx < self.size:
            raise IndexError(f"index {idx} is out of range for a dataset of {self.size} items.")
        item = self._items.get(idx)
        if item is None:
            item = self._items[idx] = self._make(idx)
        return item

    def _make(self, idx: int) -> dict[str, Any]:
        program = self.programs[idx % len(self.programs)]
        instance = seed_for(self.seed, idx)
        question, solution, wins = self._replayer.item(
            program, instance, self.difficulty, self.hint
        )
        if len(solution) != 1 or not wins:
            raise SpadegymError(
                f"{program.env_id} seed {instance} (item {idx}) is not single-turn: its "
                f"solution() is {len(solution)} replies"
                + ("" if len(solution) != 1 else " and does not win at the first step")
                + ". Leave this environment out of single-turn datasets."
            )
        return {
            "question": question,
            "answer": solution[0],
            "metadata": {
                "source_dataset": SOURCE,
                "source_index": idx,
                "env_id": program.env_id,
                "seed": instance,
                "difficulty": self.difficulty,
                "hint": self.hint,
                "sha256": program.sha256,
                "kind": program.kind,
                "title": program.title,
            },
        }

    def __iter__(self) -> Iterator[dict[str, Any]]:
        return (self[k] for k in range(self.size))

    def score_answer(self, answer: str | None, entry: dict[str, Any]) -> float:
        """The outcome of ``answer`` (a model's whole reply) on ``entry``'s instance, in [0, 1].

        Raises:
            SpadegymError: the entry is not a spadegym item, or its program changed since.
        """
        program = _entry_program(entry, {p.env_id: p for p in self.programs})
        return _score(self._replayer, program, entry, answer)

    def close(self) -> None:
        """Stop the sandbox workers."""
        self._replayer.close()

    def __enter__(self) -> SpadeDataset:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _entry_program(entry: dict[str, Any], known: dict[str, Program]) -> Program:
    """The program an item was made from, checked against the sha256 it recorded."""
    metadata = entry.get("metadata") if isinstance(entry, dict) else None
    if not isinstance(metadata, dict) or metadata.get("source_dataset") != SOURCE:
        raise SpadegymError(
            "score_answer takes an item of a spadegym dataset (a dict whose metadata has "
            f"source_dataset={SOURCE!r}, env_id and seed)."
        )
    env_id = metadata.get("env_id")
    program = known.get(str(env_id)) or resolve([str(env_id)])[0]
    if program.sha256 != metadata.get("sha256"):
        raise SpadegymError(
            f"{env_id} is not the program this item was made from (sha256 "
            f"{str(metadata.get('sha256'))[:12]}... then, {program.sha256[:12]}... now); "
            "make the dataset again."
        )
    return program


def _score(
    replayer: _Replayer, program: Program, entry: dict[str, Any], answer: str | None
) -> float:
    if not isinstance(answer, str):
        return 0.0
    metadata = entry["metadata"]
    outcome = replayer.outcome(program, int(metadata["seed"]), metadata.get("difficulty"), answer)
    return min(1.0, max(0.0, outcome))


def dataset(
    ids: str | Sequence[str],
    size: int = 500,
    seed: int = 0,
    **kwargs: Any,
) -> SpadeDataset:
    """A single-turn dataset of registered environments (see ``SpadeDataset``)."""
    return SpadeDataset(ids, size, seed, **kwargs)


_shared: _Replayer | None = None
_shared_lock = threading.Lock()


def score_answer(answer: str | None, entry: dict[str, Any]) -> float:
    """Score a model's reply to a spadegym item without its dataset object, in [0, 1].

    The item's metadata names the environment and the instance; the reply is played in a
    sandboxed worker this module keeps for such calls.
    """
    global _shared
    program = _entry_program(entry, {})
    with _shared_lock:
        if _shared is None:
            _shared = _Replayer()
            atexit.register(_shared.close)
        replayer = _shared
    return _score(replayer, program, entry, answer)
