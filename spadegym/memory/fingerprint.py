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
import functools
import hashlib
import inspect
import re
import sys
from collections import Counter
from collections.abc import Callable, Iterable
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from typing import Any, cast

from spadegym import contract
from spadegym.errors import ProgramError
from spadegym.util import compat

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

FINGERPRINT_FORMAT = 1
"""Bumped when normalising changes, so stored fingerprints are recomputed."""


def fingerprint_version() -> str:
    """What fingerprints and shapes depend on: the normalisation and this Python's ``ast``.

    ``ast.dump`` and ``ast.unparse`` change between Python minor versions (new node fields,
    3.13 leaves empty fields out of dumps), so the same program fingerprints differently under
    3.11 and 3.13. The memory records this value with each program and recomputes what was
    computed under another one.
    """
    return f"{FINGERPRINT_FORMAT}/py{sys.version_info[0]}.{sys.version_info[1]}"


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


@functools.lru_cache(maxsize=256)
def summarize(source: str) -> ProgramSummary:
    """Parse ``source`` and summarise it without running it.

    Cached by source text: one program is summarised by the exact-copy check, the novelty
    check and ``add`` in turn.

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
    class_name, skill, kind = env_class.name, _class_constant(env_class, "skill"), _kind(env_class)
    # Everything read from the tree is read by now: normalising rewrites it in place. The twin
    # is a second parse rather than a deep copy, which costs several times more.
    numbered, shape = _normalise(tree, compat.parse(source))
    return ProgramSummary(
        class_name=class_name,
        title=title.strip(),
        description=description.strip(),
        skill=str(skill) if skill else "",  # a stray number is stored as text anyway
        kind=kind,
        source_sha256=hashlib.sha256(source.encode("utf-8")).hexdigest(),
        fingerprint=hashlib.sha256(numbered.encode()).hexdigest(),
        shape=shape,
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
    try:
        return contract.environment_class_def(tree)
    except ValueError as exc:
        raise ProgramError(
            f"{exc} (CONTRACT.md section 1); the memory only stores programs that pass "
            "validation, so validate it first",
            kind="contract",
        ) from None


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


def _imported_names(tree: ast.AST | Iterable[ast.AST]) -> set[str]:
    """Names the program imports, from a tree or from its nodes already walked."""
    names: set[str] = set()
    for node in ast.walk(tree) if isinstance(tree, ast.AST) else tree:
        if isinstance(node, ast.Import):
            names.update((a.asname or a.name).split(".")[0] for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            names.update(a.asname or a.name for a in node.names)
    return names


def _defined_attributes(tree: ast.AST | Iterable[ast.AST]) -> set[str]:
    """Attribute names the program itself defines: ``self.x = ...`` and methods.

    Args:
        tree: the program, or its nodes already walked.
    """
    attrs: set[str] = set()
    for node in ast.walk(tree) if isinstance(tree, ast.AST) else tree:
        if isinstance(node, ast.ClassDef):
            attrs.update(
                s.name for s in node.body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))
            )
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
            if isinstance(node.value, ast.Name) and node.value.id == "self":
                attrs.add(node.attr)
    return attrs - CONTRACT_NAMES


class _Renamer:
    """Replace chosen names by placeholders and every string literal by ``"S"``.

    ``rename_node`` rewrites one node's own name and leaves its children alone. With
    ``numbered=False`` every chosen name becomes ``v`` and ``mapping`` stays empty, so the
    result does not depend on the order nodes are renamed in; numbered placeholders are handed
    out in order of first appearance, so ``rename_tree`` visits nodes in source order.
    """

    def __init__(self, keep: AbstractSet[str], attrs: AbstractSet[str], numbered: bool):
        self.keep = keep
        self.attrs = attrs
        self.numbered = numbered
        self.mapping: dict[str, str] = {}

    def rename(self, name: str) -> str:
        """The placeholder of a chosen name."""
        if not self.numbered:
            return "v"
        return self.mapping.setdefault(name, f"v{len(self.mapping)}")

    def _name(self, name: str) -> str:
        return name if name in self.keep or name.startswith("__") else self.rename(name)

    def rename_tree(self, tree: ast.AST) -> None:
        """Rename every node of ``tree`` in source order: pre-order, fields in their order."""
        stack = [tree]
        while stack:
            node = stack.pop()
            self.rename_node(node)
            stack.extend(reversed(_child_nodes(node)))

    def rename_node(self, node: ast.AST) -> None:
        """Rename what ``node`` itself names, not its children."""
        rename = _RENAME_BY_TYPE.get(type(node))
        if rename is not None:
            rename(self, node)

    def _rename_name(self, node: ast.Name) -> None:
        node.id = self._name(node.id)

    def _rename_arg(self, node: ast.arg) -> None:
        node.arg = self._name(node.arg)

    def _rename_keyword(self, node: ast.keyword) -> None:
        # Only a name already seen as a placeholder: ``f(key=...)`` may name a library's
        # parameter, which the program did not choose.
        if node.arg is not None and node.arg in self.mapping:
            node.arg = self.mapping[node.arg]

    def _rename_attribute(self, node: ast.Attribute) -> None:
        if node.attr in self.attrs:
            node.attr = self.rename(node.attr)

    def _rename_function(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        node.name = self._name(node.name)

    def _rename_class(self, node: ast.ClassDef) -> None:
        node.name = self.rename(node.name)

    def _rename_constant(self, node: ast.Constant) -> None:
        if isinstance(node.value, str):
            node.value = "S"


_RENAME_BY_TYPE: dict[type[ast.AST], Callable[[_Renamer, Any], None]] = {
    ast.Name: _Renamer._rename_name,
    ast.arg: _Renamer._rename_arg,
    ast.keyword: _Renamer._rename_keyword,
    ast.Attribute: _Renamer._rename_attribute,
    ast.FunctionDef: _Renamer._rename_function,
    ast.AsyncFunctionDef: _Renamer._rename_function,
    ast.ClassDef: _Renamer._rename_class,
    ast.Constant: _Renamer._rename_constant,
}
"""What ``_Renamer.rename_node`` does to each kind of node (keyed by exact type, which is
cheaper than a chain of ``isinstance`` over every node of the tree)."""


def _child_nodes(node: ast.AST) -> list[ast.AST]:
    """The children of ``node`` in field order: ``ast.iter_child_nodes`` as a list, faster."""
    children: list[ast.AST] = []
    for field in node._fields:
        value = getattr(node, field, None)
        if isinstance(value, list):
            children.extend([item for item in value if isinstance(item, ast.AST)])
        elif isinstance(value, ast.AST):
            children.append(value)
    return children


def _walk_stripping_docstrings(tree: ast.Module) -> list[ast.AST]:
    """Remove every docstring from ``tree`` and return its nodes, breadth-first.

    The order is ``ast.walk``'s over the stripped tree: parents before children, so a body
    comes before every body it contains.
    """
    nodes: list[ast.AST] = [tree]
    for node in nodes:  # grows as it goes: a breadth-first queue that keeps what it served
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                if isinstance(body[0].value.value, str):
                    node.body = body[1:] or [ast.Pass()]
        nodes.extend(_child_nodes(node))
    return nodes


def _sort_definitions(nodes: list[ast.AST], anonymous: list[ast.AST]) -> None:
    """Put imports first and definitions in a canonical order, in two copies of a program alike.

    Other module-level statements keep their order (a later one may use an earlier one);
    class attributes are sorted.

    The sort key of a definition is its anonymous dump, which does not depend on the names a
    copy chose, so a renamed and reordered copy sorts the same way. Imports and class
    attributes sort by their own dump.

    Args:
        nodes: the program's nodes breadth-first, docstrings stripped, names as written.
        anonymous: the nodes of a second copy of it, in the same order, with every chosen name
            already ``v`` (``_Renamer`` with ``numbered=False``); its dumps are the keys.
    """
    # Breadth-first, no body is reordered before the bodies that contain it, so every key is
    # the dump of a subtree not yet sorted.
    for node, twin in zip(nodes, anonymous):
        if isinstance(node, (ast.Module, ast.ClassDef)):
            same = cast(ast.Module | ast.ClassDef, twin)  # the twin parse has the same shape
            order = _canonical_order(node.body, same.body, isinstance(node, ast.ClassDef))
            node.body = [node.body[i] for i in order]
            same.body = [same.body[i] for i in order]


def _canonical_order(body: list[ast.stmt], anonymous: list[ast.stmt], in_class: bool) -> list[int]:
    """Positions of ``body`` in canonical order: imports, other statements, definitions.

    Args:
        body: the statements of a module or class.
        anonymous: the same statements with every chosen name ``v``.
        in_class: whether ``body`` is a class body, whose attributes are sorted too.

    Returns:
        The indices of ``body`` in their new order (the sorts are stable, ties keep their order).
    """
    imports: list[int] = []
    defs: list[int] = []
    rest: list[int] = []
    for i, stmt in enumerate(body):
        if isinstance(stmt, (ast.Import, ast.ImportFrom)):
            imports.append(i)
        elif isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            defs.append(i)
        else:
            rest.append(i)
    # A list of one is already sorted: skipping its key saves a dump of, often, the whole class.
    if len(imports) > 1:
        imports.sort(key=lambda i: ast.dump(body[i]))
    if in_class and len(rest) > 1:
        # Class attributes are constants of the game: their order carries no meaning.
        rest.sort(key=lambda i: ast.dump(body[i]))
    if len(defs) > 1:
        _sort_by_dump(defs, anonymous)
    return imports + rest + defs


_Def = ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef
"""A statement with a name: what ``_canonical_order`` sorts among its definitions."""


def _sort_by_dump(defs: list[int], body: list[ast.stmt]) -> None:
    """Sort ``defs``, indices of definitions in ``body``, by the definitions' ``ast.dump``.

    A definition's dump opens with its type and name, ``FunctionDef(name='reset'``, and no
    opening is a prefix of another (a name holds no quote), so two definitions whose openings
    differ compare as their openings do. Only those sharing one, typically helpers all renamed
    ``v``, need their full dump, which is most of what sorting costs.
    """
    openings = {i: f"{type(body[i]).__name__}(name={cast(_Def, body[i]).name!r}" for i in defs}
    shared = Counter(openings.values())

    def key(i: int) -> tuple[str, str]:
        opening = openings[i]
        return opening, ast.dump(body[i]) if shared[opening] > 1 else ""

    defs.sort(key=key)


def _normalise(tree: ast.Module, twin: ast.Module) -> tuple[str, str]:
    """Normalise a program: strip docstrings, sort definitions, replace chosen names.

    Both arguments are rewritten in place.

    Args:
        tree: the parsed program; becomes the normalised tree with numbered placeholders.
        twin: a second parse of the same source; becomes the normalised tree with every
            chosen name as ``v``.

    Returns:
        The dump of the numbered tree (hashed into the fingerprint) and the code of the
        anonymous one (the shape).
    """
    nodes = _walk_stripping_docstrings(tree)
    twin_nodes = _walk_stripping_docstrings(twin)
    keep = _BUILTINS | CONTRACT_NAMES | _imported_names(nodes)
    attrs = _defined_attributes(nodes)
    # Anonymous renaming keeps no state, so each subtree of the renamed twin is what renaming
    # that subtree alone would give: the sort keys need no copies.
    anonymous = _Renamer(keep, attrs, numbered=False)
    for node in twin_nodes:
        anonymous.rename_node(node)
    _sort_definitions(nodes, twin_nodes)
    _Renamer(keep, attrs, numbered=True).rename_tree(tree)
    return ast.dump(tree), ast.unparse(twin)
