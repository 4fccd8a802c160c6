"""Workarounds for the Python versions spadegym runs on, and for names an older release used.

CPython 3.11 keeps the recursion counter of its AST conversion in shared module state, so two
threads building or compiling ASTs at once can fail with "AST constructor recursion depth
mismatch" (fixed in 3.12). ``generate`` and ``validate_many`` run candidates on threads, so
every AST the host builds goes through ``parse`` and ``compile_ast`` under one lock.

``warnings.catch_warnings`` saves and restores the process-wide filter list, so two threads
inside it at once can restore each other's filters and leave every warning silenced for good
(context-local warnings arrive in 3.14). Validation threads quiet Gymnasium's checker with
``quiet_gymnasium`` instead, which counts the blocks in progress and never runs them one
after another.

A public name that was renamed stays importable for one release: the module's ``__getattr__``
hands the name to ``renamed``, which warns (``FutureWarning``, naming the new name) and
returns the new object.
"""

from __future__ import annotations

import ast
import contextlib
import threading
import types
import warnings
from collections.abc import Iterator, Mapping
from typing import Any

AST_LOCK = threading.RLock()
"""Held while an AST is built or compiled (re-entrant: validation nests the steps)."""


def parse(source: str, filename: str = "<unknown>") -> ast.Module:
    """``ast.parse`` under ``AST_LOCK``.

    Raises:
        SyntaxError: the source is not Python, or it nests so deeply that the parser gives up
            (CPython raises RecursionError or MemoryError then; every caller already handles
            SyntaxError). Its line is the longest line, where such nesting usually is.
    """
    with AST_LOCK:
        try:
            return ast.parse(source, filename)
        except (RecursionError, MemoryError):
            lines = source.splitlines() or [""]
            line = max(range(len(lines)), key=lambda i: len(lines[i])) + 1
            raise SyntaxError(
                "the code nests too deeply for Python's parser; split deep expressions into "
                "smaller steps",
                (filename, line, 1, None),
            ) from None


def compile_ast(tree: ast.Module, filename: str) -> types.CodeType:
    """``compile(tree, filename, "exec")`` under ``AST_LOCK``."""
    with AST_LOCK:
        return compile(tree, filename, "exec", dont_inherit=True)


_QUIET_LOCK = threading.Lock()
_quiet_blocks = 0
_quiet_saved_level = 0


@contextlib.contextmanager
def quiet_gymnasium() -> Iterator[None]:
    """Silence Gymnasium's own warnings (``gymnasium.logger``) while any such block runs.

    The first block to enter lowers the logger's level and the last to leave restores it, so
    blocks on several threads may overlap in any order.
    """
    from gymnasium import logger

    global _quiet_blocks, _quiet_saved_level
    with _QUIET_LOCK:
        if _quiet_blocks == 0:
            _quiet_saved_level = logger.min_level
            logger.min_level = logger.ERROR
        _quiet_blocks += 1
    try:
        yield
    finally:
        with _QUIET_LOCK:
            _quiet_blocks -= 1
            if _quiet_blocks == 0:
                logger.min_level = _quiet_saved_level


def renamed(module: str, name: str, moves: Mapping[str, tuple[str, Any]]) -> Any:
    """What a module's ``__getattr__`` returns for ``name``: a renamed object, with a warning.

    Args:
        module: the module's ``__name__``, for the messages.
        name: the attribute asked for.
        moves: old name -> (new name, the object).

    Returns:
        The object now called ``moves[name][0]``, after a ``FutureWarning`` saying to use that
        name (the old one goes in the next release).

    Raises:
        AttributeError: ``name`` is not an old name either.
    """
    if name not in moves:
        raise AttributeError(f"module {module!r} has no attribute {name!r}")
    new, value = moves[name]
    warnings.warn(
        f"{module}.{name} is renamed {new}; import {new} instead (the old name goes in the "
        "next release).",
        FutureWarning,
        stacklevel=3,  # the caller of the module's __getattr__
    )
    return value
