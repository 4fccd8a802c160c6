"""Spade environments in the trainers people already run: TRL, verifiers, OpenEnv, datasets.

Each adapter imports its framework only when used, so ``import spadegym.integrations`` needs
none of them (``pip install 'spadegym[integrations]'`` installs all four):

- ``spadegym.integrations.trl``: ``environment_factory(ids)`` for ``GRPOTrainer``'s
  multi-turn environments (the environment owns its state and its reward), and
  ``single_turn_dataset(ids)`` with its reward function for single-turn training.
- ``spadegym.integrations.verifiers``: ``SpadeEnv``, a multi-turn verifiers environment (the
  taskset id ``spadegym-verifiers``).
- ``spadegym.integrations.openenv``: the OpenEnv server behind ``spadegym serve``, one
  sandboxed instance per session, and ``SpadeEnvClient``.
- ``spadegym.integrations.dataset``: ``spadegym.dataset(ids, size, seed)``, single-turn items in
  reasoning-gym's shape, and ``score_answer``.

Every adapter plays registered environments (``spade/<Name>-v<N>``) in sandboxed workers and
shows the solver the same system prompt and hint convention as ``spadegym eval``.
``import spadegym`` imports ``reasoning_gym_plugin`` (the ``spadegym`` dataset of reasoning-gym,
registered when reasoning-gym is imported), so this package imports nothing else eagerly.
"""

from __future__ import annotations

from typing import Any

__all__ = ["Program", "resolve"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from spadegym.integrations import programs

        return getattr(programs, name)
    raise AttributeError(f"module 'spadegym.integrations' has no attribute {name!r}")
