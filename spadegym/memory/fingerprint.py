"""What a program *is*, read with ``ast`` and never executed.

Its title, its kind, and two structural signatures: an exact fingerprint and a token set for
near-copy similarity.

Both signatures come from one normalised tree. Normalising removes what a copy can change
without changing the game: identifiers the program chose (renamed to placeholders), docstrings,
the wording of every string (each literal becomes ``"S"``), the order of methods and helper
definitions, and formatting. What is kept: the control flow, the operators, the numbers, the
names of the contract (``reset``, ``step``, ``max_turns`` ...), of builtins and of imported
modules. Two programs with the same fingerprint are therefore the same game up to a rename,
a rewording and a reformat; a word list swapped for another counts as the same game too.
"""

from __future__ import annotations

import ast
import builtins
import copy
import hashlib
import inspect
import re
from dataclasses import dataclass

from spadegym import compat
from spadegym.errors import ProgramError

CONTRACT_NAMES: frozenset[str] = frozenset(
    {
        "reset",
        "step",
        "solution",
        "hint",
        "check",
        "tools",
        "max_turns",
        "skill",
        "num_players",
        "seed",
        "options",
        "self",
        "action",
        "answer",
    }
)
"""Names the contract fixes: they carry meaning, so renaming them would hide real changes."""

_BUILTINS: frozenset[str] = frozenset(dir(builtins))
_TOKEN = re.compile(r"[A-Za-z_][A-Za-z0-9_]*|\d+(?:\.\d+)?|\S")
SHINGLE_SIZE = 5
"""Tokens per shingle in the near-copy similarity: long enough to be specific, short enough
that a changed line only disturbs its neighbourhood."""


@dataclass(frozen=True)
class ProgramSummary:
    """What the memory stores about a program's source.

    Attributes:
        class_name: the public ``...Env`` class.
        title: first line of its docstring.
        description: the rest of the docstring, dedented.
        skill: the ``skill`` class attribute when it is a literal string, else ``""``.
        kind: ``"puzzle"``, ``"tool"`` (subclasses ``ToolEnv``) or ``"two-player"``.
        source_sha256: hash of the exact source text.
        fingerprint: hash of the normalised tree with numbered placeholders.
        shape: the normalised code with every chosen name as ``v``, for near-copy similarity.
    """

    class_name: str
    title: str
    description: str
    skill: str
    kind: str
    source_sha256: str
    fingerprint: str
    shape: str


def summarize(source: str) -> ProgramSummary:
    """Parse ``source`` and summarise it without running it.

    Args:
        source: the text of an environment program.

    Returns:
        The program's summary.

    Raises:
        ProgramError: (kind ``"contract"``) the source does not parse or defines no public
            class whose name ends in ``Env``.
    """
    try:
        tree = compat.parse(source)
    except SyntaxError as exc:
        raise ProgramError(
            f"Line {exc.lineno}: the program does not parse ({exc.msg}); the memory only "
            "stores programs that pass validation, so validate it first",
            kind="contract",
        ) from exc
    env_class = _env_class(tree)
    doc = inspect.cleandoc(ast.get_docstring(env_class, clean=False) or "")
    title, _, description = doc.partition("\n")
    return ProgramSummary(
        class_name=env_class.name,
        title=title.strip(),
        description=description.strip(),
        skill=_class_constant(env_class, "skill") or "",
        kind=_kind(env_class),
        source_sha256=hashlib.sha256(source.encode("utf-8")).hexdigest(),
        fingerprint=hashlib.sha256(_normalise(tree, numbered=True).encode()).hexdigest(),
        shape=_normalise(tree, numbered=False),
    )


def shingles(shape: str) -> frozenset[str]:
    """Return the set of token shingles of a normalised program (its ``shape``)."""
    tokens = _TOKEN.findall(shape)
    if len(tokens) <= SHINGLE_SIZE:
        return frozenset({" ".join(tokens)})
    return frozenset(
        " ".join(tokens[i : i + SHINGLE_SIZE]) for i in range(len(tokens) - SHINGLE_SIZE + 1)
    )


def code_similarity(a: frozenset[str], b: frozenset[str]) -> float:
    """Jaccard similarity of two shingle sets, in ``[0, 1]``."""
    if not a or not b:
        return 0.0
    return len(a & b) / len(a | b)


def _env_class(tree: ast.Module) -> ast.ClassDef:
    classes = [
        node
        for node in tree.body
        if isinstance(node, ast.ClassDef)
        and node.name.endswith("Env")
        and not node.name.startswith("_")
    ]
    if not classes:
        raise ProgramError(
            "the program defines no public class whose name ends in 'Env' (CONTRACT.md "
            "section 1); define exactly one, e.g. 'class LockPickEnv:'",
            kind="contract",
        )
    # A helper base class may also end in Env; the one that defines reset is the environment.
    for node in reversed(classes):
        if any(isinstance(s, ast.FunctionDef) and s.name == "reset" for s in node.body):
            return node
    return classes[-1]


def _class_constant(node: ast.ClassDef, name: str) -> str | int | None:
    for stmt in node.body:
        targets = (
            stmt.targets
            if isinstance(stmt, ast.Assign)
            else ([stmt.target] if isinstance(stmt, ast.AnnAssign) else [])
        )
        value = getattr(stmt, "value", None)
        for target in targets:
            if isinstance(target, ast.Name) and target.id == name:
                if isinstance(value, ast.Constant) and isinstance(value.value, (str, int)):
                    return value.value
    return None


def _kind(node: ast.ClassDef) -> str:
    bases = {b.id if isinstance(b, ast.Name) else getattr(b, "attr", "") for b in node.bases}
    if "ToolEnv" in bases:
        return "tool"
    if _class_constant(node, "num_players") == 2:
        return "two-player"
    return "puzzle"


def _imported_names(tree: ast.Module) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update((a.asname or a.name).split(".")[0] for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            names.update(a.asname or a.name for a in node.names)
    return names


def _defined_attributes(tree: ast.Module) -> set[str]:
    """Attribute names the program itself defines: ``self.x = ...`` and methods."""
    attrs: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef):
            attrs.update(
                s.name for s in node.body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))
            )
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
            if isinstance(node.value, ast.Name) and node.value.id == "self":
                attrs.add(node.attr)
    return attrs - CONTRACT_NAMES


class _Renamer(ast.NodeTransformer):
    """Replace chosen names by placeholders and every string literal by ``"S"``."""

    def __init__(self, keep: set[str], attrs: set[str], numbered: bool):
        self.keep = keep
        self.attrs = attrs
        self.numbered = numbered
        self.mapping: dict[str, str] = {}

    def rename(self, name: str) -> str:
        if not self.numbered:
            return "v"
        return self.mapping.setdefault(name, f"v{len(self.mapping)}")

    def _name(self, name: str) -> str:
        return name if name in self.keep or name.startswith("__") else self.rename(name)

    def visit_Name(self, node: ast.Name) -> ast.AST:
        node.id = self._name(node.id)
        return node

    def visit_arg(self, node: ast.arg) -> ast.AST:
        node.arg = self._name(node.arg)
        self.generic_visit(node)
        return node

    def visit_keyword(self, node: ast.keyword) -> ast.AST:
        if node.arg is not None and node.arg in self.mapping:
            node.arg = self.mapping[node.arg]
        self.generic_visit(node)
        return node

    def visit_Attribute(self, node: ast.Attribute) -> ast.AST:
        if node.attr in self.attrs:
            node.attr = self.rename(node.attr)
        self.generic_visit(node)
        return node

    def visit_FunctionDef(self, node: ast.FunctionDef) -> ast.AST:
        node.name = self._name(node.name)
        self.generic_visit(node)
        return node

    visit_AsyncFunctionDef = visit_FunctionDef  # noqa: N815 - the ast visitor protocol

    def visit_ClassDef(self, node: ast.ClassDef) -> ast.AST:
        node.name = self.rename(node.name)
        self.generic_visit(node)
        return node

    def visit_Constant(self, node: ast.Constant) -> ast.AST:
        if isinstance(node.value, str):
            node.value = "S"
        return node


def _strip_docstrings(tree: ast.AST) -> None:
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                if isinstance(body[0].value.value, str):
                    node.body = body[1:] or [ast.Pass()]


def _sort_definitions(tree: ast.AST, keep: set[str], attrs: set[str]) -> None:
    """Put imports first and definitions in a canonical order.

    Other module-level statements keep their order (a later one may use an earlier one);
    class attributes are sorted.

    The sort key is a definition's anonymous dump, which does not depend on the names a copy
    chose, so a renamed and reordered copy sorts the same way.
    """
    for node in ast.walk(tree):
        if not isinstance(node, (ast.Module, ast.ClassDef)):
            continue
        imports = [s for s in node.body if isinstance(s, (ast.Import, ast.ImportFrom))]
        defs = [
            s
            for s in node.body
            if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
        ]
        rest = [s for s in node.body if s not in imports and s not in defs]
        if isinstance(node, ast.ClassDef):
            # Class attributes are constants of the game: their order carries no meaning.
            rest.sort(key=ast.dump)

        def key(stmt: ast.stmt) -> str:
            anonymous = _Renamer(keep, attrs, numbered=False).visit(copy.deepcopy(stmt))
            return ast.dump(anonymous)

        node.body = sorted(imports, key=ast.dump) + rest + sorted(defs, key=key)


def _normalise(tree: ast.Module, numbered: bool) -> str:
    tree = copy.deepcopy(tree)
    keep = _BUILTINS | CONTRACT_NAMES | _imported_names(tree)
    attrs = _defined_attributes(tree)
    _strip_docstrings(tree)
    _sort_definitions(tree, keep, attrs)
    renamed = _Renamer(keep, attrs, numbered=numbered).visit(tree)
    return ast.dump(renamed) if numbered else ast.unparse(renamed)
