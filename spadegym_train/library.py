"""Where environments come from and go to: registry folders, read and written.

Reading: every ``<root>/<Name>-v<N>/env.py``, straight from the folders (the shipped library
is trusted and needs no manifest). Writing is the designer's (``spadegym.designer.rounds``):
accepted programs go to the run's own registry through ``Registry.admit``.
The held-out evaluation slice is chosen by a hash of the id, so it never depends on the order
of the folder listing or on which other environments exist.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from spadegym.errors import ConfigError, ProgramError

if TYPE_CHECKING:
    from spadegym.sandbox.pool import SandboxPool
    from spadegym.vector.ray import RaySandboxPool
    from spadegym_train.config import TrainConfig


@dataclass
class PoolEnv:
    """An environment in the current pool.

    Attributes:
        key: its id (registry folder name).
        source: the program.
        skill: its skill tag.
        num_players: 1 or 2.
        max_turns: the program's limit.
        has_hint: whether the program defines ``hint()``.
        candidate: index of the designer candidate that wrote it (spade mode).
        floor: its chance floor (``spadegym.validation.floor``): from its validation report
            for a designed program, from its manifest for a library one; ``None`` when not
            measured (and for two-player games).
        difficulty: its ``reset`` difficulty in this pool (curriculum mode); ``None``: the
            run's ``play.solver_difficulty``.
        plays: plain plays this iteration (curriculum mode); ``None``: ``play.plays_per_env``.
    """

    key: str
    source: str
    skill: str
    num_players: int
    max_turns: int
    has_hint: bool = False
    candidate: int | None = None
    floor: float | None = None
    difficulty: int | None = None
    plays: int | None = None


@dataclass(frozen=True)
class LibraryEnv:
    """A registry environment: its id, program and chance floor (``None``: not recorded)."""

    env_id: str
    source: str
    floor: float | None = None


def manifest_floor(folder: Path) -> float | None:
    """The chance floor a registry folder's ``manifest.json`` records, or ``None``.

    Read tolerantly: manifests written before floors were measured, or unreadable ones, have
    none (rates are then read as they are).
    """
    import json

    try:
        data = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
        value = data["validation"]["properties"].get("floor")
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value) if 0.0 <= value <= 1.0 else None


def read_library(root: str | Path | None) -> list[LibraryEnv]:
    """Every environment in a registry folder (``None``: the shipped library), sorted by id."""
    from spadegym.registry.roots import shipped_root

    root = Path(root) if root is not None else shipped_root()
    if root is None:
        return []
    found = []
    for program in sorted(root.glob("*/env.py")):
        found.append(
            LibraryEnv(
                program.parent.name,
                program.read_text(encoding="utf-8"),
                manifest_floor(program.parent),
            )
        )
    return found


def held_out(env_id: str, fraction: float) -> bool:
    """Whether ``env_id`` belongs to the evaluation slice (stable across runs and machines)."""
    digest = hashlib.sha256(env_id.encode("utf-8")).digest()
    return int.from_bytes(digest[:4], "big") / 2**32 < fraction


def split_library(
    envs: list[LibraryEnv], fraction: float
) -> tuple[list[LibraryEnv], list[LibraryEnv]]:
    """``(train, eval)``: the held-out slice by ``held_out``, the rest for training."""
    train = [e for e in envs if not held_out(e.env_id, fraction)]
    evaluation = [e for e in envs if held_out(e.env_id, fraction)]
    return train, evaluation


def select_library(config: TrainConfig) -> tuple[list[LibraryEnv], list[LibraryEnv]]:
    """``(train, eval)`` registry environments: ``pool.env_ids``, split by ``evaluation.split``."""
    envs = read_library(config.pool.registry)
    if config.pool.env_ids is not None:
        wanted = {i.rsplit("/", 1)[-1] for i in config.pool.env_ids}
        missing = sorted(wanted - {e.env_id for e in envs})
        if missing:
            where = config.pool.registry or "the shipped library"
            raise ConfigError(
                f"env_ids names {', '.join(missing)}, which {where} does not hold; "
                "give folder names like ColorPick-v0 (see `spadegym list`)."
            )
        envs = [e for e in envs if e.env_id in wanted]
    if config.evaluation.split == "seeds":
        return envs, envs
    return split_library(envs, config.evaluation.fraction)


def describe(sandbox: SandboxPool | RaySandboxPool, envs: list[LibraryEnv]) -> list[PoolEnv]:
    """Registry environments as pool entries (those that no longer load are left out)."""
    pool = []
    for env in envs:
        try:
            info = sandbox.describe(env.source, env.env_id)
        except ProgramError:
            continue
        pool.append(
            PoolEnv(
                env.env_id,
                env.source,
                info.skill or "",
                info.num_players or 1,
                info.max_turns or 1,
                has_hint=info.has_hint,
                floor=env.floor if (info.num_players or 1) == 1 else None,
            )
        )
    return pool
