"""Moved to ``spadegym.vector.ray``: this old name warns, and goes in the next release.

``docs/ray.md`` showed ``spadegym.vector_ray`` before the multi-environment modules became the
``spadegym.vector`` package, so code written against it keeps running for one release, with
a ``FutureWarning`` that names the new path.
"""

from __future__ import annotations

import warnings

from spadegym.vector.ray import RayEnvBatch, RaySandboxPool, RemoteEnvHandle

__all__ = ["RayEnvBatch", "RaySandboxPool", "RemoteEnvHandle"]

warnings.warn(
    "spadegym.vector_ray moved to spadegym.vector.ray: import RayEnvBatch and RaySandboxPool "
    "from there (the old name goes in the next release).",
    FutureWarning,
    stacklevel=2,
)
