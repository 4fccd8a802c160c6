"""Gymnasium's autoreset modes by name, and the seed rule of the episodes an autoreset starts.

A vector environment resets an instance whose episode ended in one of three ways
(``gymnasium.vector.AutoresetMode``): ``SAME_STEP`` (the ending step returns the next episode's
first observation, the final one in the info), ``NEXT_STEP`` (the ending step returns the final
observation; the next step resets, ignoring that instance's action) or ``DISABLED`` (the caller
resets). ``autoreset_mode_of`` reads a mode from the enum, its name or a bool, one rule for
``EnvBatch(autoreset=...)`` and ``make_vec(..., autoreset_mode=...)``.

The seeds are ``ProgramEnv``'s, which are Gymnasium's ``Env.np_random``'s: a seeded reset plays
its seed and seeds the instance's generator (``seed_generator``), and every unseeded reset,
autoresets included, plays the generator's next draw (``next_seed``). A batch and
``SyncVectorEnv`` over ``ProgramEnv`` instances therefore play the same episodes for the same
seeds and actions.
"""

from __future__ import annotations

import numpy as np
from gymnasium.utils import seeding
from gymnasium.vector import AutoresetMode

from spadegym.errors import SpadegymError

__all__ = ["autoreset_mode_of", "next_seed", "seed_generator"]


def autoreset_mode_of(value: bool | str | AutoresetMode) -> AutoresetMode:
    """The ``AutoresetMode`` that ``value`` names.

    The enum, its name or value in any case (``"next_step"``, ``"SameStep"``), or a bool
    (True: ``SAME_STEP``, False: ``DISABLED``).

    Raises:
        SpadegymError: a value that names no mode.
    """
    if isinstance(value, bool):
        return AutoresetMode.SAME_STEP if value else AutoresetMode.DISABLED
    if isinstance(value, AutoresetMode):
        return value
    if isinstance(value, str):
        key = value.replace("_", "").replace("-", "").lower()
        for mode in AutoresetMode:
            if key == mode.value.lower():
                return mode
    raise SpadegymError(
        f"autoreset_mode={value!r} is not a mode: write AutoresetMode.NEXT_STEP, "
        "AutoresetMode.SAME_STEP (the default) or AutoresetMode.DISABLED, or their names "
        "'next_step', 'same_step', 'disabled'."
    )


def seed_generator(seed: int | list[int] | None) -> np.random.Generator:
    """An instance's generator: ``Env.np_random`` after ``reset(seed=seed)`` for an int.

    A list seeds one from several ints (a batch's own seed and the instance), None at random.
    """
    if isinstance(seed, int):
        return seeding.np_random(seed)[0]
    return np.random.default_rng(seed)


def next_seed(generator: np.random.Generator) -> int:
    """The seed of an unseeded reset: ``ProgramEnv.reset``'s draw from its ``np_random``."""
    return int(generator.integers(0, 2**31 - 1))
