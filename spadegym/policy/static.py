"""Static checks: what RestrictedPython does not say, or does not say helpfully.

They read the untouched syntax tree and collect "Line N: ..." sentences for the designer model.
"""

from __future__ import annotations

import ast
import builtins
import collections

from RestrictedPython.transformer import INSPECT_ATTRIBUTES

from spadegym.contract import ALLOWED_IMPORTS
from spadegym.policy.names import (
    _DENIED_ATTRIBUTES,
    _FORMAT_ATTRIBUTES,
    BUILTIN_NAMES,
    MODULE_NAMES,
    _attribute_message,
    _builtin_message,
    _import_message,
    _module_name_message,
    offered_names,
)

MAX_NESTING = 100
"""How deeply a program's syntax tree may nest. The deepest shipped program nests 22 levels;
the checks, the rewrite and the compiler each recurse once per level, and a program nested
thousands of levels deep (3,500 unary minus signs) would exhaust Python's recursion limit."""


class TooDeep(Exception):
    """The syntax tree nests deeper than ``MAX_NESTING``; ``line`` is where it does."""

    def __init__(self, line: int):
        super().__init__(line)
        self.line = line


def nesting_message(line: int) -> str:
    """The sentence for a program that nests too deeply at ``line``."""
    return (
        f"Line {line}: the code nests more than {MAX_NESTING} levels deep; split deep "
        "expressions (and long if/elif chains) into smaller steps."
    )


def _binding_counts(tree: ast.AST) -> collections.Counter[str]:
    """How often the program binds each name, anywhere, ignoring scopes."""
    counts: collections.Counter[str] = collections.Counter()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            counts[node.id] += 1
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            counts[node.name] += 1
        elif isinstance(node, ast.arg):
            counts[node.arg] += 1
        elif isinstance(node, ast.alias):
            counts[(node.asname or node.name).split(".")[0]] += 1
        elif isinstance(node, ast.ExceptHandler) and node.name:
            counts[node.name] += 1
    return counts


def _is_main_guard(node: ast.If) -> bool:
    test = node.test
    return (
        isinstance(test, ast.Compare)
        and isinstance(test.left, ast.Name)
        and test.left.id == "__name__"
        and len(test.comparators) == 1
        and isinstance(test.comparators[0], ast.Constant)
        and test.comparators[0].value == "__main__"
    )


class _StaticChecker(ast.NodeVisitor):
    """Collects the policy's own "Line N: ..." sentences from the untouched syntax tree."""

    def __init__(self, tree: ast.Module):
        self.errors: list[str] = []
        counts = _binding_counts(tree)
        self.bound = set(counts)
        # Module-level "import x [as y]" names that nothing else rebinds: their attributes can
        # be checked against the module's vetted names.
        self.module_aliases: dict[str, str] = {}
        for stmt in tree.body:
            if isinstance(stmt, ast.Import):
                for alias in stmt.names:
                    local = alias.asname or alias.name
                    if alias.name in MODULE_NAMES and "." not in local and counts[local] == 1:
                        self.module_aliases[local] = alias.name
        # Inside a finally block, return leaves it silently; so do break and continue unless
        # a loop inside the block is what they leave.
        self.finally_return = 0
        self.finally_break = 0
        self.depth = 0
        self.line = 1

    def error(self, node: ast.AST, message: str) -> None:
        self.errors.append(f"Line {getattr(node, 'lineno', 1)}: {message}.")

    def visit(self, node: ast.AST) -> None:
        # Every other pass recurses through the tree the same way: stop here, by rule, before
        # any of them can exhaust the recursion limit.
        self.line = getattr(node, "lineno", self.line)
        self.depth += 1
        try:
            if self.depth > MAX_NESTING:
                raise TooDeep(self.line)
            super().visit(node)
        finally:
            self.depth -= 1

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            if alias.name not in ALLOWED_IMPORTS:
                self.error(node, _import_message(alias.name))

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        if node.level:
            self.error(node, "relative imports are not allowed; a program is a single module")
            return
        module = node.module or ""
        if module == "__future__":
            if any(alias.name != "annotations" for alias in node.names):
                self.error(node, "only 'from __future__ import annotations' is allowed")
            return
        if module not in ALLOWED_IMPORTS:
            self.error(node, _import_message(module))
            return
        for alias in node.names:
            # "*" and "_" names get RestrictedPython's own sentences.
            if alias.name != "*" and not alias.name.startswith("_"):
                if alias.name not in offered_names(module):
                    self.error(node, _module_name_message(module, alias.name))

    def visit_Name(self, node: ast.Name) -> None:
        name = node.id
        if (
            isinstance(node.ctx, ast.Load)
            and name not in BUILTIN_NAMES
            and name not in self.bound
            and not name.startswith("_")
            and name not in ("print", "printed", "exec", "eval")
            and hasattr(builtins, name)
        ):
            self.error(node, _builtin_message(name))

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        self._check_annotation(node.annotation)
        self.generic_visit(node)

    def visit_arg(self, node: ast.arg) -> None:
        if node.annotation is not None:
            self._check_annotation(node.annotation)
        self.generic_visit(node)

    def _check_annotation(self, annotation: ast.expr) -> None:
        """Annotations are dropped unevaluated, but they are code: the rules of code hold."""
        for part in ast.walk(annotation):
            if isinstance(part, (ast.Call, ast.Lambda, ast.NamedExpr, ast.Await, ast.Yield)):
                self.error(
                    part,
                    "an annotation is a type (int, str, List[int], 'Board'), not a call or an "
                    "expression to run; write the type",
                )
                return
            name = part.id if isinstance(part, ast.Name) else getattr(part, "attr", None)
            if isinstance(name, str) and name.startswith("_"):
                self.error(
                    part,
                    f"the annotation uses {name!r}: names and attributes that begin with '_' "
                    "are refused in annotations as in code; write the type",
                )
                return

    def visit_Attribute(self, node: ast.Attribute) -> None:
        name = node.attr
        value = node.value
        if name in _FORMAT_ATTRIBUTES or (
            name in _DENIED_ATTRIBUTES and name not in INSPECT_ATTRIBUTES
        ):
            self.error(node, _attribute_message(name))
        elif (
            isinstance(value, ast.Name)
            and value.id in self.module_aliases
            and not name.startswith("_")
        ):
            module = self.module_aliases[value.id]
            if name not in offered_names(module):
                self.error(node, _module_name_message(module, name))
        self.generic_visit(node)

    def visit_Call(self, node: ast.Call) -> None:
        func = node.func
        if (
            isinstance(func, ast.Name)
            and func.id == "type"
            and "type" not in self.bound
            and len(node.args) + len(node.keywords) > 1
        ):
            self.error(
                node, "type() with three arguments is not allowed; define classes with 'class'"
            )
        self.generic_visit(node)

    def visit_If(self, node: ast.If) -> None:
        if _is_main_guard(node):
            self.error(
                node,
                "remove the 'if __name__ == \"__main__\":' block; a program only defines its "
                "classes and functions",
            )
            return
        self.generic_visit(node)

    def visit_Try(self, node: ast.Try) -> None:
        for child in node.body + node.handlers + node.orelse:
            self.visit(child)
        self.finally_return += 1
        self.finally_break += 1
        for child in node.finalbody:
            self.visit(child)
        self.finally_return -= 1
        self.finally_break -= 1

    def _check_finally_exit(self, node: ast.stmt, keyword: str, depth: int) -> None:
        if depth:
            self.error(
                node,
                f"'{keyword}' inside 'finally' is not allowed (it silences errors); move it "
                "after the try statement",
            )

    def visit_Return(self, node: ast.Return) -> None:
        self._check_finally_exit(node, "return", self.finally_return)
        self.generic_visit(node)

    def visit_Break(self, node: ast.Break) -> None:
        self._check_finally_exit(node, "break", self.finally_break)

    def visit_Continue(self, node: ast.Continue) -> None:
        self._check_finally_exit(node, "continue", self.finally_break)

    def _visit_loop(self, node: ast.For | ast.While) -> None:
        for field in ("target", "iter", "test"):
            if getattr(node, field, None) is not None:
                self.visit(getattr(node, field))
        depth, self.finally_break = self.finally_break, 0
        for child in node.body:
            self.visit(child)
        self.finally_break = depth
        for child in node.orelse:  # a break in "else" leaves the enclosing loop
            self.visit(child)

    visit_For = _visit_loop
    visit_While = _visit_loop

    def _visit_scope(self, node: ast.AST) -> None:
        # A return in a function defined inside a finally block leaves only that function.
        depths = self.finally_return, self.finally_break
        self.finally_return = self.finally_break = 0
        returns = getattr(node, "returns", None)
        if returns is not None:
            self._check_annotation(returns)
        self.generic_visit(node)
        self.finally_return, self.finally_break = depths

    visit_FunctionDef = _visit_scope
    visit_Lambda = _visit_scope
    visit_ClassDef = _visit_scope
