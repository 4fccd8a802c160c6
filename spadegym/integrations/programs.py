"""Registered environments as the adapters see them: id, program text, kind, and the prompt.

Every adapter takes environment ids (``spade/LockPick-v0``, ``LockPick-v0``, ``LockPick`` for
the latest version, or ``spadegym:spade/LockPick-v0`` as written for ``gymnasium.make``),
resolves them here against the ids ``import spadegym`` registered with Gymnasium, and reads
each program once, checked against its manifest's sha256.
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from dataclasses import dataclass

from spadegym.errors import SpadegymError
from spadegym.play import solver_system_prompt, with_hint

__all__ = ["Program", "resolve", "seed_for", "solver_system_prompt", "with_hint"]

_PREFIX = "spadegym:"


@dataclass(frozen=True)
class Program:
    """One registered environment.

    Attributes:
        env_id: its Gymnasium id, ``spade/<Name>-v<N>``.
        source: the program text (checked against the manifest's sha256).
        sha256: the program's hash, as its manifest records it.
        kind: ``puzzle``, ``tool`` or ``two_player``.
        title: the first line of the program's docstring.
        max_turns: the episode's turn limit.
    """

    env_id: str
    source: str
    sha256: str
    kind: str
    title: str
    max_turns: int

    @property
    def system_prompt(self) -> str:
        """The solver's system prompt for this kind (the one ``spadegym eval`` uses)."""
        return solver_system_prompt(self.kind)


def _registered() -> dict[str, dict]:
    """Every spadegym id registered with Gymnasium, and its spec's kwargs."""
    from gymnasium.envs.registration import registry

    from spadegym.registry import ENTRY_POINT

    return {
        env_id: dict(spec.kwargs or {})
        for env_id, spec in registry.items()
        if spec.entry_point == ENTRY_POINT
    }


def _canonical(item: str, known: dict[str, dict]) -> str:
    """The registered id an item names (the latest version for a bare name)."""
    from spadegym.registry.ids import InvalidIdError, gym_id, parse_folder, parse_id

    text = item.strip()
    if text.startswith(_PREFIX):
        text = text[len(_PREFIX) :]
    try:
        name, version = parse_id(text)
    except InvalidIdError as exc:
        raise SpadegymError(str(exc)) from None
    if version is not None:
        env_id = gym_id(f"{name}-v{version}")
        if env_id in known:
            return env_id
    else:
        versions = [
            parsed[1]
            for env_id in known
            if (parsed := parse_folder(env_id.split("/", 1)[1])) and parsed[0] == name
        ]
        if versions:
            return gym_id(f"{name}-v{max(versions)}")
    folders = [env_id.split("/", 1)[1] for env_id in known]
    close = difflib.get_close_matches(name, folders, n=3, cutoff=0.6)
    hint = f" Did you mean {', '.join('spade/' + c for c in close)}?" if close else ""
    from spadegym.registry.ids import MAKE_HINT

    raise SpadegymError(
        f"{item!r} is not a registered spadegym environment.{hint} `spadegym list` shows every "
        f"id ({MAKE_HINT})."
    )


def resolve(ids: str | Sequence[str], *, one_player: str | None = None) -> list[Program]:
    """The registered environments named by ``ids``, each once, in order.

    Args:
        ids: one id or several.
        one_player: when given, two-player games are refused, and this names who refuses
            them (e.g. ``"the TRL adapter"``).

    Raises:
        SpadegymError: an id is unknown or malformed, no id was given, or a game was refused.
    """
    from pathlib import Path

    from spadegym.registry.entry import load_program

    items = [ids] if isinstance(ids, str) else list(ids)
    if not items:
        raise SpadegymError(
            "no environment ids were given; pass ids such as ['spade/LockPick-v0'] "
            "(`spadegym list` shows every id)."
        )
    known = _registered()
    programs: list[Program] = []
    seen: set[str] = set()
    for item in items:
        if not isinstance(item, str):
            raise SpadegymError(
                f"ids must be strings such as 'spade/LockPick-v0'; got {type(item).__name__}."
            )
        env_id = _canonical(item, known)
        if env_id in seen:
            continue
        seen.add(env_id)
        source, manifest = load_program(Path(known[env_id]["folder"]))
        if one_player and manifest.kind == "two_player":
            raise SpadegymError(
                f"{env_id} is a two-player game, and {one_player} plays one-player "
                "environments (the model alone acts every turn). Leave it out, or play it "
                "through `spadegym serve` or spadegym.EnvBatch, where each seat can be "
                "played separately."
            )
        programs.append(
            Program(
                env_id=env_id,
                source=source,
                sha256=manifest.sha256,
                kind=manifest.kind,
                title=manifest.title,
                max_turns=manifest.max_turns,
            )
        )
    return programs


def seed_for(seed: int, index: int) -> int:
    """The instance seed of item ``index`` of a collection seeded with ``seed``.

    Stable across processes and Python versions (no ``hash()``), so the same call always names
    the same instances.
    """
    import random

    return random.Random(f"spadegym/{seed}/{index}").randrange(2**31 - 1)
