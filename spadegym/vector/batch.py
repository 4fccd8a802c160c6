"""Step a batch of *different* environments at once, over a shared pool of sandbox workers.

LLM training plays many environments side by side: one batch may mix a maze, a tool-use task
and a two-player game. ``gymnasium.make_vec`` wants one id for the whole batch, so ``EnvBatch``
takes any mix of registered ids (and program texts), spreads the instances over a
``SandboxPool`` and steps the whole batch in one exchange: every worker gets its share in one
frame before any answer is read, so the workers compute in parallel, and a worker whose
episodes ended gets their resets as soon as its answers are read (``step_then_reset``).

Autoreset is *same-step* by default (Gymnasium's ``AutoresetMode.SAME_STEP``): when an
episode ends, the step that ends it returns its reward, ``terminated``/``truncated`` and, in
the info, ``final_observation``, ``final_info`` (which holds ``episode_outcome`` and
``episode_turns``) and ``episode_outcome``; the observation returned is already the first one
of the next episode, and the info's other keys are that reset's info. No action is wasted on a
finished episode, which is what a token budget wants. ``autoreset=AutoresetMode.NEXT_STEP``
plays Gymnasium's ``sync``/``async`` default instead: the ending step returns the final
observation and info, and the instance's next ``step`` ignores its action and returns the new
episode's first observation (reward 0, not done) and reset info. The reset itself still goes
out in the ending step's exchange, as each worker answers; its answer is held for the next
step. ``autoreset=False`` (``DISABLED``) leaves resets to the caller.

Seeds follow ``ProgramEnv``'s (Gymnasium's) rule (``spadegym.vector.autoreset``), so a batch plays
the episodes that ``ProgramEnv`` instances reset with the same seeds play.

This is not ``spadegym.play``: ``EnvBatch`` is a vector-environment API (the caller holds the
loop and sends actions; nothing here prompts a solver or keeps a conversation), the Gymnasium
face of the same ``Pool`` batching that ``play_episodes`` drives from its own loop. Its
outcomes are the contract's, from ``spadegym.contract.episode_outcome``, the rule that
``ProgramEnv``, ``spadegym.play`` and the async integration use too.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from gymnasium.vector import AutoresetMode
from numpy.random import Generator

from spadegym.contract import check_max_turns, episode_outcome
from spadegym.errors import ProgramError, SandboxError, SpadegymError
from spadegym.sandbox import Pool, SandboxConfig, SandboxPool, StepResult
from spadegym.sandbox.pool import ResetArgs
from spadegym.vector.autoreset import autoreset_mode_of, next_seed, seed_generator

__all__ = ["EnvBatch", "resolve_program"]


def resolve_program(item: str) -> tuple[str, str]:
    """``(label, program)`` for a registered id, or for a program text (which holds a newline).

    Raises:
        SpadegymError: the id is not registered with Gymnasium.
    """
    if "\n" in item:
        return "<program>", item
    from gymnasium.envs.registration import registry

    from spadegym.registry import ENTRY_POINT
    from spadegym.registry.entry import load_program
    from spadegym.registry.ids import gym_id

    env_id = item if "/" in item else gym_id(item)
    spec = registry.get(env_id)
    if spec is None or spec.entry_point != ENTRY_POINT:
        from spadegym.registry.ids import MAKE_HINT

        raise SpadegymError(
            f"{item!r} is not a registered spadegym environment; pass an id such "
            f"as spade/LockPick-v0 (see `spadegym list`; {MAKE_HINT}) or a program text."
        )
    source, _ = load_program(spec.kwargs["folder"])
    return env_id, source


def _expect_validated_timings(pool: Pool[Any], envs: Sequence[str]) -> None:
    """Give the pool's watchdog each registered program's validated timings (its manifest's).

    Without them the watchdog holds a program to the validation's whole step budget; with
    them, to a multiple of the slowest call validation timed (``spadegym.sandbox.watchdog``).
    """
    watchdog = getattr(pool, "watchdog", None)
    if watchdog is None:
        return
    from gymnasium.envs.registration import registry

    from spadegym.registry.entry import load_program
    from spadegym.registry.ids import gym_id
    from spadegym.sandbox.handle import program_digest

    for item in dict.fromkeys(e for e in envs if "\n" not in e):
        spec = registry.get(item if "/" in item else gym_id(item))
        if spec is None or "folder" not in spec.kwargs:
            continue
        source, manifest = load_program(spec.kwargs["folder"])
        slowest = manifest.validation.properties.get("step_ms_max")
        watchdog.expect(program_digest(source), slowest if type(slowest) is float else None)


_Owed = tuple[int | None, str, dict[str, Any]]
"""A reset already made: its seed, observation and info."""


@dataclass
class _Slot:
    label: str
    handle: Any  # the pool's own handle type (a Pool[H] takes back only the H it opened)
    max_turns: int
    two_player: bool
    rng: Generator
    turn: int = 0
    done: bool = True
    error: dict[str, Any] | None = None
    # NEXT_STEP: the episode already begun, (seed, observation, info), owed to the next step.
    owed: _Owed | None = None


class EnvBatch:
    """A batch of environment instances, any mix of programs, stepped together.

    Args:
        envs: registered ids (``spade/X-v0`` or ``X-v0``) or program texts, one per instance;
            repeat an id to get several instances of it.
        pool: share an existing pool (``spadegym.sandbox.Pool``; it stays open after
            ``close``).
        num_workers: the ``size`` of the ``SandboxPool`` made when ``pool`` is None (default:
            one per core, at most one per instance). Each program gets a worker of its own,
            so a batch of more programs than this runs more worker processes.
        seed: seeds the episodes of resets given no seed: instance ``k``'s generator starts
            seeded with ``[seed, k]``; None draws fresh seeds.
        sandbox: the ``SandboxConfig`` of a pool made here.
        autoreset: an ``AutoresetMode`` (or its name, see ``autoreset_mode_of``): True or
            ``SAME_STEP`` (default), ``NEXT_STEP``, or False or ``DISABLED`` (see the module).
        options: the options of every reset that is given none, autoresets included (e.g.
            ``{"difficulty": 3}``).
    """

    def __init__(
        self,
        envs: Sequence[str],
        *,
        pool: Pool[Any] | None = None,
        num_workers: int | None = None,
        seed: int | None = None,
        sandbox: SandboxConfig | None = None,
        autoreset: bool | str | AutoresetMode = True,
        options: dict[str, Any] | None = None,
    ):
        if not envs:
            raise SpadegymError("EnvBatch needs at least one environment id or program.")
        resolved = [resolve_program(item) for item in envs]
        self.autoreset_mode = autoreset_mode_of(autoreset)
        self.autoreset = self.autoreset_mode is not AutoresetMode.DISABLED
        self.options = options
        self._own_pool = pool is None
        size = num_workers or min(len(resolved), os.cpu_count() or 1)
        self.pool: Pool[Any] = pool if pool is not None else SandboxPool(size, sandbox)
        _expect_validated_timings(self.pool, envs)
        self.ids = [label for label, _ in resolved]
        self._slots: list[_Slot] = []
        self._closed = False
        try:
            # The programs' workers start and load side by side.
            opened = self.pool.open_many([(source, label) for label, source in resolved])
            failures = [h for h in opened if isinstance(h, ProgramError)]
            for k, ((label, _), handle) in enumerate(zip(resolved, opened, strict=True)):
                if isinstance(handle, ProgramError):
                    continue
                info = handle.info
                rng = seed_generator(None if seed is None else [seed, k])
                turns = check_max_turns(info.max_turns)
                self._slots.append(_Slot(label, handle, turns, info.num_players == 2, rng))
            if failures:  # a sandbox failure (no worker, a missing layer) stays one
                first = failures[0]
                raise SandboxError(str(first)) if first.kind == "sandbox" else first
        except BaseException:
            self.close()
            raise

    @property
    def num_envs(self) -> int:
        """How many instances the batch holds."""
        return len(self._slots)

    def __len__(self) -> int:
        return len(self._slots)

    def _chosen(self, indices: Sequence[int] | None) -> list[int]:
        """The instances ``indices`` names (all when None), checked."""
        n = len(self._slots)
        if indices is None:
            return list(range(n))
        chosen = [int(k) for k in indices]
        if len(set(chosen)) != len(chosen) or any(not 0 <= k < n for k in chosen):
            raise SpadegymError(
                f"indices={list(indices)!r}: name each instance at most once, as ints in "
                f"0..{n - 1}."
            )
        return chosen

    def reset(
        self,
        seed: int | Sequence[int | None] | None = None,
        options: dict[str, Any] | None = None,
        indices: Sequence[int] | None = None,
    ) -> tuple[list[str], list[dict[str, Any]]]:
        """Start new episodes (all instances, or only ``indices``).

        Args:
            seed: instance ``k`` plays seed ``seed + k``; or one seed (or None) per reset
                instance. A seed also seeds the instance's generator, which the instance's
                unseeded resets draw from (see the module).
            options: passed to every program's ``reset`` (e.g. ``{"difficulty": 3}``;
                default: the batch's ``options``).
            indices: reset only these instances.

        Returns:
            Observations and infos of the reset instances, in the order of ``indices``.
        """
        chosen = self._chosen(indices)
        if seed is None or isinstance(seed, int):
            each = [None if seed is None else seed + k for k in chosen]
        else:
            each = list(seed)
            if len(each) != len(chosen):
                raise SpadegymError(
                    f"reset() got {len(each)} seeds for {len(chosen)} environments; pass one "
                    "seed (or None) per environment reset, or a single int."
                )
        seeds: dict[int, int | None] = {}
        for k, value in zip(chosen, each, strict=True):
            slot = self._slots[k]
            if value is not None:
                slot.rng = seed_generator(value)
            elif slot.owed is not None:  # NEXT_STEP drew this reset's seed already
                value = slot.owed[0]
            slot.owed = None
            seeds[k] = value
        results = self._reset_many(chosen, seeds, options)
        return [results[k][0] for k in chosen], [results[k][1] for k in chosen]

    def _reset_many(
        self, chosen: Sequence[int], seeds: dict[int, int | None], options: dict[str, Any] | None
    ) -> dict[int, tuple[str, dict[str, Any]]]:
        """Reset instances in one batch (the workers reset in parallel).

        An instance without a seed in ``seeds`` draws one, which is written into ``seeds``.
        """
        batch = []
        for k in chosen:
            slot = self._slots[k]
            if seeds.get(k) is None:
                seeds[k] = next_seed(slot.rng)
            batch.append((slot.handle, seeds[k], options if options is not None else self.options))
        answers = self.pool.reset_batch(batch)
        return {k: self._after_reset(k, result) for k, result in zip(chosen, answers, strict=True)}

    def _after_reset(
        self, k: int, result: tuple[str, dict[str, Any]] | ProgramError
    ) -> tuple[str, dict[str, Any]]:
        """Instance ``k`` after a reset: a new episode, or the failure as its first observation.

        A failed instance then fails every step until it is reset.
        """
        slot = self._slots[k]
        slot.turn, slot.done = 0, False
        if isinstance(result, ProgramError):
            slot.error = {"kind": result.kind, "message": str(result)}
            return f"The environment failed to reset: {result}", {"error": slot.error}
        slot.error = None
        return result

    def step(
        self, actions: Sequence[str], indices: Sequence[int] | None = None
    ) -> tuple[list[str], list[float], list[bool], list[bool], list[dict[str, Any]]]:
        """Play one reply in every instance (or in ``indices``) at once.

        Args:
            actions: one reply per stepped instance.
            indices: step only these instances.

        Returns:
            ``(observations, rewards, terminated, truncated, infos)``, lists in the order of
            the stepped instances. How an ending episode reads depends on the autoreset mode
            (see the module).
        """
        chosen = self._chosen(indices)
        if len(actions) != len(chosen):
            raise SpadegymError(
                f"step() got {len(actions)} actions for {len(chosen)} "
                "environments; pass one reply per environment."
            )
        for k, action in zip(chosen, actions, strict=True):
            if not isinstance(action, str):
                raise SpadegymError(
                    f"actions[{k}] is a {type(action).__name__}; actions are str replies."
                )
            if self._slots[k].done:
                raise SpadegymError(
                    f"environment {k} ({self._slots[k].label}) has no episode "
                    "running; call reset() first (or use autoreset=True)."
                )
        next_step = self.autoreset_mode is AutoresetMode.NEXT_STEP
        owed = {k: o for k in chosen if (o := self._slots[k].owed) is not None} if next_step else {}
        stepped = [k for k in chosen if k not in owed] if owed else chosen
        acting = dict(zip(chosen, actions, strict=True))
        obs, rewards, terminated, truncated, infos, fresh = self._step_many(stepped, acting)
        for k, (seed, new_obs, new_info) in fresh.items():
            if next_step:  # the new episode shows at this instance's next step
                self._slots[k].owed = (seed, new_obs, new_info)
                continue
            infos[k] = {
                **new_info,
                "final_observation": obs[k],
                "final_info": infos[k],
                "episode_outcome": infos[k]["episode_outcome"],
            }
            obs[k] = new_obs
        for k, (_, new_obs, new_info) in owed.items():  # the action is ignored, as Gymnasium's
            self._slots[k].owed = None
            obs[k], rewards[k], terminated[k], truncated[k], infos[k] = (
                new_obs,
                0.0,
                False,
                False,
                new_info,
            )
        if indices is None:
            return obs, rewards, terminated, truncated, infos
        return (
            [obs[k] for k in chosen],
            [rewards[k] for k in chosen],
            [terminated[k] for k in chosen],
            [truncated[k] for k in chosen],
            [infos[k] for k in chosen],
        )

    def _step_many(
        self, chosen: list[int], actions: dict[int, str]
    ) -> tuple[
        list[str], list[float], list[bool], list[bool], list[dict[str, Any]], dict[int, _Owed]
    ]:
        """Step instances ``chosen`` in one exchange, and reset those that end (autoreset).

        Returns:
            ``(obs, rewards, terminated, truncated, infos, fresh)``: lists over every instance
            (those of ``chosen`` filled) of the step's own results, and ``fresh``, the new
            episodes of the instances that ended, ``{k: (seed, observation, info)}`` (empty
            without autoreset).
        """
        live = [k for k in chosen if self._slots[k].error is None]
        n = len(self._slots)
        obs, rewards = [""] * n, [0.0] * n
        terminated, truncated = [False] * n, [False] * n
        infos: list[dict[str, Any]] = [{} for _ in range(n)]
        finished: list[int] = []

        def settle(k: int, result: StepResult | ProgramError) -> bool:
            """Record instance ``k``'s step; whether its episode ended."""
            slot = self._slots[k]
            if isinstance(result, ProgramError):
                obs[k], terminated[k] = f"The environment failed: {result}", True
                infos[k] = {"error": {"kind": result.kind, "message": str(result)}}
            else:
                obs[k], rewards[k] = result.observation, result.reward
                terminated[k], truncated[k], infos[k] = (
                    result.terminated,
                    result.truncated,
                    result.info,
                )
            slot.turn += 1
            if not terminated[k] and slot.turn >= slot.max_turns:
                truncated[k] = True
            if not (terminated[k] or truncated[k]):
                return False
            slot.done = True
            outcome = episode_outcome(
                rewards[k], terminated[k], infos[k], 2 if slot.two_player else 1
            )
            infos[k] = {**infos[k], "episode_outcome": outcome, "episode_turns": slot.turn}
            finished.append(k)
            return True

        broken = {k: error for k in chosen if (error := self._slots[k].error) is not None}
        batch = [(self._slots[k].handle, actions[k]) for k in live]
        fresh: dict[int, tuple[str, dict[str, Any]]] = {}
        seeds: dict[int, int | None] = {}
        if not batch:  # every instance stepped is owed its reset, or broken: no exchange
            pass
        elif self.autoreset and isinstance(self.pool, SandboxPool):
            # Each worker resets its finished instances as soon as it has answered, while
            # the others still step (see SandboxPool.step_then_reset).
            settled: set[int] = set()

            def reset_if(position: int, result: StepResult | ProgramError) -> ResetArgs | None:
                k = live[position]
                settled.add(k)
                if not settle(k, result):
                    return None
                seeds[k] = next_seed(self._slots[k].rng)
                return seeds[k], self.options

            results, resets = self.pool.step_then_reset(batch, reset_if)
            for k, result in zip(live, results, strict=True):
                if k not in settled:  # refused before it was sent (quarantined, lost)
                    settle(k, result)
            fresh = {live[p]: self._after_reset(live[p], r) for p, r in resets.items()}
        else:
            for k, result in zip(live, self.pool.step_batch(batch), strict=True):
                settle(k, result)
        for k, error in broken.items():
            settle(k, ProgramError(error["message"], error["kind"]))
        if not self.autoreset:
            return obs, rewards, terminated, truncated, infos, {}
        unsent = [k for k in finished if k not in fresh]
        if unsent:  # seeds already drawn for an instance stay its seeds
            fresh.update(self._reset_many(unsent, seeds, None))
        begun = {k: (seeds[k], *fresh[k]) for k in finished}
        return obs, rewards, terminated, truncated, infos, begun

    def close(self) -> None:
        """Release every instance; stop the pool if this batch made it."""
        if self._closed:
            return
        self._closed = True
        self.pool.release_many([slot.handle for slot in self._slots])
        if self._own_pool:
            self.pool.close()

    def __enter__(self) -> EnvBatch:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
