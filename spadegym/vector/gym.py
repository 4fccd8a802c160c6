"""``gymnasium.make_vec("spade/X-v0", n)``: the pooled batch behind Gymnasium's vector API.

Every registered spec names ``make_vector`` as its ``vector_entry_point``, so ``make_vec``
without a ``vectorization_mode`` returns a ``SpadeVectorEnv``: ``n`` instances spread over a
shared pool of sandbox workers and stepped as one ``EnvBatch`` (every worker gets its share in
one frame before any answer is read), instead of ``n`` dedicated worker processes stepped one
after another (``"sync"``) or ``n`` Python processes each driving its own worker
(``"async"``, which works too, with its defaults).

Autoreset is Gymnasium's ``SAME_STEP`` by default: the step that ends an episode returns the
next episode's first observation, with ``final_obs`` and ``final_info`` in the info (and
``episode_outcome``, the contract's outcome). Gymnasium's ``"sync"`` and ``"async"`` modes
default to ``NEXT_STEP`` instead (the ending step returns the final observation; the next
``step`` resets and ignores that instance's action), so a loop written for one misreads the
other. ``autoreset_mode=`` chooses here (``metadata["autoreset_mode"]`` says which):
``SAME_STEP``, ``NEXT_STEP`` or ``DISABLED`` (reset finished instances yourself, with
``options={"reset_mask": ...}``), each played as ``SyncVectorEnv`` plays it; there,
``vector_kwargs={"autoreset_mode": ...}`` chooses. ``NEXT_STEP`` costs no extra exchange: the
reset goes out with the ending step, as the default's does, and its answer waits for the next
``step``. Seeds follow ``ProgramEnv``'s rule (``spadegym.vector.autoreset``), so the pooled vector
and ``"sync"`` play the same episodes for the same reset seeds and actions.

Observations are a tuple of strings; actions are a sequence of ``n`` strings. A program that
fails ends its episode with ``info["error"]`` (``on_error="terminate"``), like every episode
``EnvBatch`` plays.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from spadegym.env import (
    action_space,
    check_difficulty,
    check_options,
    check_seed,
    observation_space,
)
from spadegym.errors import SpadegymError
from spadegym.vector.autoreset import autoreset_mode_of

__all__ = ["SpadeVectorEnv", "autoreset_mode_of", "make_vector"]

_OPTIONS = (
    "difficulty",
    "num_workers",
    "pool",
    "sandbox",
    "isolation",
    "seed",
    "autoreset_mode",
)


class SpadeVectorEnv(VectorEnv):
    """``num_envs`` instances of one environment, stepped together over a pool of workers.

    Args:
        env_id: a registered id, or a program text.
        num_envs: instances.
        difficulty: the default difficulty (1..5) of every reset that names none.
        num_workers: workers of the pool made here (default: one per core, at most one per
            instance).
        pool: share an existing ``SandboxPool`` instead.
        sandbox: the ``SandboxConfig`` of a pool made here.
        isolation: shorthand for ``sandbox=SandboxConfig(isolation=...)``.
        seed: seeds the instances' episodes when ``reset`` is given no seed.
        autoreset_mode: ``SAME_STEP`` (default), ``NEXT_STEP`` or ``DISABLED``, or their names
            (see the module).
    """

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP, "render_modes": []}

    def __init__(
        self,
        env_id: str,
        num_envs: int,
        *,
        difficulty: int | None = None,
        num_workers: int | None = None,
        pool: Any = None,
        sandbox: Any = None,
        isolation: str | None = None,
        seed: int | None = None,
        autoreset_mode: str | AutoresetMode = AutoresetMode.SAME_STEP,
    ):
        from spadegym.sandbox import SandboxConfig
        from spadegym.vector.batch import EnvBatch

        if not isinstance(num_envs, int) or num_envs < 1:
            raise SpadegymError(f"num_envs={num_envs!r}: a vector holds at least 1 instance.")
        check_difficulty(difficulty)
        mode = autoreset_mode_of(autoreset_mode)
        self.metadata = {**self.metadata, "autoreset_mode": mode}
        if isolation is not None:
            base = sandbox or SandboxConfig()
            sandbox = SandboxConfig(**{**base.__dict__, "isolation": isolation})
        self.batch = EnvBatch(
            [env_id] * num_envs,
            pool=pool,
            num_workers=num_workers,
            seed=seed,
            sandbox=sandbox,
            autoreset=mode,
            options={"difficulty": difficulty} if difficulty is not None else None,
        )
        self.num_envs = num_envs
        self.difficulty = difficulty
        self.single_observation_space = observation_space()
        self.single_action_space = action_space()
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.action_space = batch_space(self.single_action_space, num_envs)
        self._last: tuple[str, ...] = ("",) * num_envs  # the observations reset_mask keeps

    def reset(
        self,
        *,
        seed: int | Sequence[int | None] | None = None,
        options: dict[str, Any] | None = None,
    ) -> tuple[tuple[str, ...], dict[str, Any]]:
        """Reset every instance (``options["reset_mask"]``: only those marked True).

        ``seed``: instance ``k`` plays ``seed + k``; or one seed (or None) per instance.
        """
        check_seed(seed)
        options = dict(options or {})
        mask = options.pop("reset_mask", None)
        check_options(options)
        indices = None if mask is None else [int(k) for k in np.flatnonzero(mask)]
        if indices is not None and seed is not None and not isinstance(seed, int):
            seed = [seed[k] for k in indices]
        observations, infos = self.batch.reset(seed=seed, options=options or None, indices=indices)
        chosen = range(self.num_envs) if indices is None else indices
        vector_info: dict[str, Any] = {}
        for k, info in zip(chosen, infos, strict=True):
            vector_info = self._add_info(vector_info, info, k)
        current = list(self._last)
        for k, observation in zip(chosen, observations, strict=True):
            current[k] = observation
        self._last = tuple(current)
        return self._last, vector_info

    def step(
        self, actions: Sequence[str]
    ) -> tuple[tuple[str, ...], np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """Play one reply in every instance at once (one batch over the workers)."""
        if isinstance(actions, str):
            raise SpadegymError(
                f"step() got one str for {self.num_envs} environments; pass a sequence of "
                f"{self.num_envs} replies."
            )
        observations, rewards, terminated, truncated, infos = self.batch.step(list(actions))
        vector_info: dict[str, Any] = {}
        for k, info in enumerate(infos):
            if "final_observation" in info:  # Gymnasium's name for it
                info = {**info, "final_obs": info["final_observation"]}
                del info["final_observation"]
            vector_info = self._add_info(vector_info, info, k)
        self._last = tuple(observations)
        return (
            self._last,
            np.asarray(rewards, dtype=np.float64),
            np.asarray(terminated, dtype=np.bool_),
            np.asarray(truncated, dtype=np.bool_),
            vector_info,
        )

    def close_extras(self, **kwargs: Any) -> None:
        """Release the instances (and the pool, when this vector made it)."""
        self.batch.close()


def make_vector(
    num_envs: int = 1,
    *,
    folder: str,
    sha256: str | None = None,
    max_episode_steps: int | None = None,
    **kwargs: Any,
) -> SpadeVectorEnv:
    """The ``vector_entry_point`` of every registered spec (``gymnasium.make_vec``).

    Keyword arguments are ``SpadeVectorEnv``'s (``difficulty``, ``num_workers``, ``pool``,
    ``sandbox``, ``isolation``, ``seed``, ``autoreset_mode``).

    Raises:
        SpadegymError: an argument the pooled vector does not take.
    """
    from pathlib import Path

    from spadegym.registry.entry import load_program

    unknown = sorted(set(kwargs) - set(_OPTIONS))
    if unknown:
        raise SpadegymError(
            f"make_vec got {', '.join(unknown)}, which spadegym's pooled vector does not take "
            f"(it takes {', '.join(_OPTIONS)}); pass vectorization_mode='sync' or 'async' to "
            "give each instance its own ProgramEnv arguments."
        )
    _, manifest = load_program(Path(folder))
    if max_episode_steps is not None and max_episode_steps != manifest.max_turns:
        raise SpadegymError(
            f"max_episode_steps={max_episode_steps}: the pooled vector plays the program's own "
            f"max_turns ({manifest.max_turns}); pass vectorization_mode='sync' to set another."
        )
    return SpadeVectorEnv(manifest.id, num_envs, **kwargs)
