"""Workarounds for the Python versions spadegym runs on.

CPython 3.11 keeps the recursion counter of its AST conversion in shared module state, so two
threads building or compiling ASTs at once can fail with "AST constructor recursion depth
mismatch" (fixed in 3.12). ``generate`` and ``validate_many`` run candidates on threads, so
every AST the host builds goes through ``parse`` and ``compile_ast`` under one lock.

``warnings.catch_warnings`` saves and restores the process-wide filter list, so two threads
inside it at once can restore each other's filters and leave every warning silenced for good
(context-local warnings arrive in 3.14): ``ignore_warnings`` lets one thread in at a time.
"""

from __future__ import annotations

import ast
import contextlib
import threading
import types
import warnings
from collections.abc import Iterator

AST_LOCK = threading.RLock()
"""Held while an AST is built or compiled (re-entrant: validation nests the steps)."""


def parse(source: str, filename: str = "<unknown>") -> ast.Module:
    """``ast.parse`` under ``AST_LOCK``."""
    with AST_LOCK:
        return ast.parse(source, filename)


def compile_ast(tree: ast.Module, filename: str) -> types.CodeType:
    """``compile(tree, filename, "exec")`` under ``AST_LOCK``."""
    with AST_LOCK:
        return compile(tree, filename, "exec", dont_inherit=True)


_WARNINGS_LOCK = threading.Lock()


@contextlib.contextmanager
def ignore_warnings() -> Iterator[None]:
    """Ignore warnings for the block, one thread at a time (see the module docstring)."""
    with _WARNINGS_LOCK, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield
