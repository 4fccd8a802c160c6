"""The restricted transform, extended with the rewrites the contract promises.

The rewrites are listed in the ``spadegym.policy`` docstring (its first list).
"""

from __future__ import annotations

import ast
import copy
import re
from typing import TypeVar

from RestrictedPython.transformer import (
    IOPERATOR_TO_STR,
    RestrictingNodeTransformer,
    copy_locations,
)

from spadegym.policy.names import SPECIAL_METHODS, UNDERSCORE_READS
from spadegym.policy.static import _is_main_guard

_ALLOWED_METHODS_TEXT = ", ".join(sorted(SPECIAL_METHODS))
_DOTTED_NAME = re.compile(r"\s*([A-Za-z]\w*(?:\s*\.\s*[A-Za-z]\w*)*)")

_ASYNC = "async code is not allowed; write plain functions"
_NOT_ALLOWED = {
    "TryStar": "'except*' is not allowed; catch exceptions with a plain 'except'.",
    "Match": "'match' statements are not allowed; use if/elif.",
    "Nonlocal": "'nonlocal' is not allowed; keep shared state on self or in a dict.",
    "AsyncFunctionDef": _ASYNC + ".",
    "Await": _ASYNC + ".",
    "AsyncFor": _ASYNC + ".",
    "AsyncWith": _ASYNC + ".",
}
"""Clearer sentences for the statements RestrictedPython refuses wholesale."""


_Node = TypeVar("_Node", ast.stmt, ast.expr)


def _located(new: _Node, old: ast.stmt | ast.expr | ast.excepthandler) -> _Node:
    copy_locations(new, old)
    return new


def _annotation_head(node: ast.expr) -> str:
    """What a class body keeps of a field's annotation: the dotted name at its head.

    ``List[int]`` keeps ``"List"``, ``typing.ClassVar[int]`` and ``"ClassVar[int]"`` keep the
    ClassVar name that dataclasses look for; anything else keeps ``"object"``. The expression
    itself is dropped, so no annotation text can ever be evaluated.
    """
    if isinstance(node, ast.Subscript):
        node = node.value
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        match = _DOTTED_NAME.match(node.value)
        text = re.sub(r"\s+", "", match.group(1)) if match else ""
    else:
        parts = []
        while isinstance(node, ast.Attribute):
            parts.append(node.attr)
            node = node.value
        parts.append(node.id if isinstance(node, ast.Name) else "")
        text = ".".join(reversed(parts))
    if not text or any(not part or part.startswith("_") for part in text.split(".")):
        return "object"
    return text


class _PolicyTransformer(RestrictingNodeTransformer):
    """RestrictedPython's transformer plus our rewrites (the spadegym.policy docstring)."""

    def __init__(self, bound_names: set[str]):
        super().__init__()
        self.bound_names = bound_names
        # One entry per enclosing scope: a dict collecting field annotations for a class body,
        # None for a function body.
        self.scopes: list[dict[str, str] | None] = []

    def check_name(self, node, name, allow_magic_methods=False):
        if allow_magic_methods and name and name.startswith("_") and name != "_":
            if name not in SPECIAL_METHODS or node.col_offset == 0:
                self.error(
                    node,
                    f"method '{name}' cannot be defined; programs may define only these "
                    f"special methods: {_ALLOWED_METHODS_TEXT}.",
                )
            return
        super().check_name(node, name, allow_magic_methods)

    def visit_Attribute(self, node: ast.Attribute):
        if node.attr in UNDERSCORE_READS and isinstance(node.ctx, ast.Load):
            # Read through the guard, which allows each name only where names.py says.
            call = ast.Call(
                func=ast.Name("_getattr_", ast.Load()),
                args=[self.visit(node.value), ast.Constant(node.attr)],
                keywords=[],
            )
            return _located(call, node)
        return super().visit_Attribute(node)

    def not_allowed(self, node: ast.AST) -> None:
        message = _NOT_ALLOWED.get(type(node).__name__)
        if message is None:
            super().not_allowed(node)
        else:
            self.error(node, message)

    def visit_ImportFrom(self, node: ast.ImportFrom):
        if node.module == "__future__":
            # Annotations are dropped anyway, so the future import changes nothing.
            return None
        return super().visit_ImportFrom(node)

    def visit_If(self, node: ast.If):
        if _is_main_guard(node):
            return node  # The static check has refused it with its own sentence.
        return super().visit_If(node)

    def visit_AugAssign(self, node: ast.AugAssign):
        if not isinstance(node.target, (ast.Attribute, ast.Subscript)):
            return super().visit_AugAssign(node)
        load = copy.deepcopy(node.target)
        load.ctx = ast.Load()
        load = self.visit(load)
        target = self.visit(node.target)
        value = self.visit(node.value)
        call = ast.Call(
            func=ast.Name("_inplacevar_", ast.Load()),
            args=[ast.Constant(IOPERATOR_TO_STR[type(node.op)]), load, value],
            keywords=[],
        )
        return _located(ast.Assign(targets=[target], value=call), node)

    def visit_AnnAssign(self, node: ast.AnnAssign):
        scope = self.scopes[-1] if self.scopes else None
        if scope is not None and node.simple and isinstance(node.target, ast.Name):
            scope[node.target.id] = _annotation_head(node.annotation)
        if node.value is None:
            self.check_name(node, getattr(node.target, "id", None))
            return _located(ast.Pass(), node)
        return self.visit(_located(ast.Assign(targets=[node.target], value=node.value), node))

    def visit_FunctionDef(self, node: ast.FunctionDef):
        arguments = node.args
        for arg in arguments.posonlyargs + arguments.args + arguments.kwonlyargs:
            arg.annotation = None
        for star in (arguments.vararg, arguments.kwarg):
            if star is not None:
                star.annotation = None
        node.returns = None
        self.scopes.append(None)
        try:
            return super().visit_FunctionDef(node)
        finally:
            self.scopes.pop()

    def visit_Lambda(self, node: ast.Lambda):
        self.scopes.append(None)
        try:
            return super().visit_Lambda(node)
        finally:
            self.scopes.pop()

    def visit_ClassDef(self, node: ast.ClassDef):
        annotations: dict[str, str] = {}
        self.scopes.append(annotations)
        try:
            new = super().visit_ClassDef(node)
            assert isinstance(new, ast.ClassDef)  # the restricting transform keeps the class
        finally:
            self.scopes.pop()
        if annotations:
            # Inserted after the transform: the program itself cannot name __annotations__.
            assign = ast.Assign(
                targets=[ast.Name("__annotations__", ast.Store())],
                value=ast.Dict(
                    keys=[ast.Constant(key) for key in annotations],
                    values=[ast.Constant(value) for value in annotations.values()],
                ),
            )
            body = new.body
            has_docstring = (
                body
                and isinstance(body[0], ast.Expr)
                and isinstance(body[0].value, ast.Constant)
                and isinstance(body[0].value.value, str)
            )
            body.insert(1 if has_docstring else 0, _located(assign, node))
        return new

    def visit_Call(self, node: ast.Call):
        func = node.func
        if (
            isinstance(func, ast.Attribute)
            and func.attr == "__init__"
            and isinstance(func.value, ast.Call)
            and isinstance(func.value.func, ast.Name)
            and func.value.func.id == "super"
            and not func.value.args
            and not func.value.keywords
            and "super" not in self.bound_names
            and not any(isinstance(arg, ast.Starred) for arg in node.args)
            and all(keyword.arg is not None for keyword in node.keywords)
        ):
            # super().__init__(...) exactly: zero-argument super() only reaches the MRO of the
            # program's own class. _super_init_ checks that it is bound to an instance: bound
            # to a class (in a classmethod) it would hand out a library's unbound __init__.
            node.func = _located(
                ast.Call(func=ast.Name("_super_init_", ast.Load()), args=[func.value], keywords=[]),
                func,
            )
            node.args = [self.visit(arg) for arg in node.args]
            node.keywords = [self.visit(keyword) for keyword in node.keywords]
            return node
        return super().visit_Call(node)

    def visit_ExceptHandler(self, node: ast.ExceptHandler):
        new = super().visit_ExceptHandler(node)
        assert isinstance(new, ast.ExceptHandler)  # the restricting transform keeps the handler
        if new.type is None:
            new.type = _located(ast.Name("Exception", ast.Load()), new)
        return new
