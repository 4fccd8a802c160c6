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
"""

from __future__ import annotations

from spadegym.integrations.programs import Program, resolve

__all__ = ["Program", "resolve"]
