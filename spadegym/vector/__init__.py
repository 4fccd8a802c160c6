"""Many environments at once: one batch over a shared pool of sandbox workers, and its faces.

The modules, in the order they build on each other:

- ``autoreset``: Gymnasium's autoreset modes by name, and the seed rule of the episodes an
  autoreset starts; every batch below follows it, so a batch plays what ``ProgramEnv``
  instances reset with the same seeds play.
- ``batch``: ``EnvBatch``, a batch of *different* environments (registered ids or program
  texts) stepped in one exchange over a ``SandboxPool``. The next two are faces of it.
- ``gym``: ``SpadeVectorEnv`` and ``make_vector``, what ``gymnasium.make_vec("spade/X-v0", n)``
  returns (every registered spec names ``spadegym.vector.gym:make_vector`` as its
  ``vector_entry_point``).
- ``ray``: ``RaySandboxPool`` and ``RayEnvBatch``, the same batch over Ray actors, one pool of
  workers per actor (``pip install 'spadegym[ray]'``; Ray is imported only when one is made).
- ``text_memory``: what Gymnasium's own ``AsyncVectorEnv`` needs instead, an environment's text
  observations in shared memory as code points (``import spadegym`` registers it for
  ``PrintableText``, the spaces of ``ProgramEnv``).

Validation's fan-out over threads or Ray actors is not here: many programs validated at once
is ``spadegym.validation.executors``, whose ``init_ray`` the Ray batch shares.
"""

from __future__ import annotations

from spadegym.vector.batch import EnvBatch, resolve_program

__all__ = ["EnvBatch", "resolve_program"]
