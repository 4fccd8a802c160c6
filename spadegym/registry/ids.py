"""Environment ids: ``spade/<Name>-v<N>``, derived from the program's class name.

An id names a folder ``<Name>-v<N>`` in a registry root and a Gymnasium id in the ``spade``
namespace. Names are ASCII identifiers (letters, digits, underscores, starting with a letter),
so that every id is a valid Gymnasium id and a portable folder name.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from spadegym.registry.errors import RegistryError

NAMESPACE = "spade"
"""The Gymnasium namespace of every registered environment."""

MAKE_HINT = (
    'in gymnasium.make, write "spadegym:spade/<Name>-v<N>" so that Gymnasium imports spadegym, '
    "which registers the ids, first"
)
"""The reminder every message about an id carries: without ``import spadegym``, Gymnasium only
says "Namespace spade not found"."""

_FOLDER = re.compile(r"(?P<name>[A-Za-z][A-Za-z0-9_]*)-v(?P<version>0|[1-9][0-9]*)")
_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_]*")


class InvalidIdError(RegistryError, ValueError):
    """A string is not an environment id of the form ``[spade/]<Name>-v<N>``.

    A ``RegistryError``, so that every command that reports registry errors reports it.
    """


def base_name(class_name: str) -> str:
    """The environment name for a program class: ``LockPickEnv`` -> ``LockPick``.

    Characters outside ASCII letters, digits and ``_`` are dropped; a name that would be empty
    or start with a digit or underscore is prefixed with ``Env``.
    """
    stem = class_name[:-3] if class_name.endswith("Env") else class_name
    stem = re.sub(r"[^A-Za-z0-9_]", "", stem)
    if not stem or not stem[0].isalpha():
        stem = "Env" + stem
    return stem


def folder_name(name: str, version: int) -> str:
    """``<name>-v<version>``, the folder (and the id without namespace)."""
    if not _NAME.fullmatch(name) or version < 0:
        raise InvalidIdError(
            f"name={name!r}, version={version!r}: a name is an ASCII identifier "
            "starting with a letter and a version is an int >= 0."
        )
    return f"{name}-v{version}"


def gym_id(folder: str) -> str:
    """The Gymnasium id of a folder name: ``LockPick-v0`` -> ``spade/LockPick-v0``."""
    return f"{NAMESPACE}/{folder}"


def parse_folder(folder: str) -> tuple[str, int] | None:
    """``(name, version)`` of a folder name ``<Name>-v<N>``, or None if it is not one."""
    match = _FOLDER.fullmatch(folder)
    return (match["name"], int(match["version"])) if match else None


def parse_id(env_id: str) -> tuple[str, int | None]:
    """``(name, version)`` of ``spade/Name-vN``, ``Name-vN`` or ``Name`` (version None).

    Raises:
        InvalidIdError: the string is none of these forms.
    """
    text = env_id.strip()
    if text.startswith(NAMESPACE + "/"):
        text = text[len(NAMESPACE) + 1 :]
    parsed = parse_folder(text)
    if parsed is not None:
        return parsed
    if _NAME.fullmatch(text):
        return text, None
    raise InvalidIdError(
        f"{env_id!r} is not an environment id; write spade/<Name>-v<N>, "
        f"<Name>-v<N> or <Name> (an ASCII identifier, e.g. spade/LockPick-v0; {MAKE_HINT})."
    )


def free_name(base: str, taken: Iterable[str]) -> str:
    """``base`` if no environment has that name yet, else ``base2``, ``base3``, ...

    A different program never takes over a name in use: it gets a distinct one.
    """
    used = set(taken)
    if base not in used:
        return base
    k = 2
    while f"{base}{k}" in used:
        k += 1
    return f"{base}{k}"
