"""Compile a program under the policy: parse, check, transform, compile.

``check_source`` returns the "Line N: ..." sentences; ``compile_program`` returns the code.
"""

from __future__ import annotations

import ast
import types

from spadegym.errors import PolicyError
from spadegym.policy.static import TooDeep, _StaticChecker, nesting_message
from spadegym.policy.transform import _PolicyTransformer
from spadegym.util import compat


def _line_of(message: str) -> int:
    head = message.split(":", 1)[0]
    number = head[5:] if head.startswith("Line ") else ""
    return int(number) if number.isdigit() else 0


def _compile(source: object, filename: str) -> tuple[list[str], types.CodeType | None, list[str]]:
    """Parse, check, transform and compile.

    Returns:
        The sentences, the code when there are none, and the names of the top-level classes.
    """
    if not isinstance(source, str):
        return [f"Line 1: the program must be text (str), not {type(source).__name__}."], None, []
    if "\0" in source:  # Python versions disagree on how to report it
        line = source.count("\n", 0, source.find("\0")) + 1
        return [f"Line {line}: SyntaxError: the program contains a null character."], None, []
    try:
        tree = compat.parse(source, filename)
    except SyntaxError as exc:
        return [f"Line {exc.lineno or 1}: SyntaxError: {exc.msg}."], None, []
    classes = [node.name for node in tree.body if isinstance(node, ast.ClassDef)]
    static = _StaticChecker(tree)
    try:
        static.visit(tree)
    except TooDeep as exc:
        return [nesting_message(exc.line)], None, classes
    try:
        transformer = _PolicyTransformer(static.bound)
        tree = transformer.visit(tree)
    except RecursionError:  # not expected below MAX_NESTING; kept as a last line of defence
        return [nesting_message(static.line)], None, classes
    sentences = (e if e.endswith(".") else e + "." for e in static.errors + transformer.errors)
    errors = list(dict.fromkeys(sentences))
    errors.sort(key=_line_of)
    if errors:
        return errors, None, classes
    try:
        code = compat.compile_ast(tree, filename)
    except SyntaxError as exc:
        return [f"Line {exc.lineno or 1}: SyntaxError: {exc.msg}."], None, classes
    except (RecursionError, MemoryError):
        return [nesting_message(static.line)], None, classes
    return [], code, classes


def check_source(source: str) -> list[str]:
    """Check a program against the policy without running it.

    Args:
        source: the program text.

    Returns:
        The "Line N: ..." sentences, sorted by line; ``[]`` when the program is acceptable.
        Never raises: a syntax error becomes "Line N: SyntaxError: ...".
    """
    return _compile(source, "<program>")[0]


def compile_module(source: str, filename: str = "<program>") -> tuple[types.CodeType, list[str]]:
    """``compile_program``, also returning the names of the classes defined at top level."""
    errors, code, classes = _compile(source, filename)
    if code is None:
        raise PolicyError(errors)
    return code, classes


def compile_program(source: str, filename: str = "<program>") -> types.CodeType:
    """Compile a program under the policy.

    Args:
        source: the program text.
        filename: the name tracebacks show for the program.

    Returns:
        The code object, to run with ``exec(code, new_globals())``.

    Raises:
        PolicyError: the program breaks the policy; ``errors`` holds the sentences.
    """
    return compile_module(source, filename)[0]
