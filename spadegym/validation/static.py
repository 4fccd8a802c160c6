"""Checks that read the program without running it: size, syntax, policy, structure."""

from __future__ import annotations

import ast

from spadegym import contract
from spadegym.util import compat


def check_size(code: str) -> str | None:
    """The program must be at most the contract's size."""
    size = len(code.encode("utf-8", "surrogatepass"))
    if size > contract.MAX_PROGRAM_BYTES:
        return (
            f"The program is {size} bytes; the limit is {contract.MAX_PROGRAM_BYTES}. "
            "Write a smaller program."
        )
    if not code.strip():
        return "The program is empty."
    return None


def check_syntax(code: str) -> tuple[ast.Module | None, str | None]:
    """Parse the program; a failure names the line."""
    try:
        return compat.parse(code), None
    except SyntaxError as exc:
        return None, f"Line {exc.lineno}: SyntaxError: {exc.msg}."
    except ValueError as exc:  # null bytes
        return None, f"The program cannot be parsed: {exc}."


def _accepts(func: ast.FunctionDef, names: tuple[str, ...]) -> bool:
    """Whether ``func(self, *names)`` can be called positionally."""
    args = func.args
    if args.vararg is not None:
        return True
    positional = [a.arg for a in args.posonlyargs + args.args]
    return len(positional) >= 1 + len(names)


def check_structure(tree: ast.Module) -> tuple[ast.ClassDef | None, list[str]]:
    """One ``*Env`` class with a docstring, and methods with callable signatures."""
    try:
        cls = contract.environment_class_def(tree)
    except ValueError as exc:
        return None, [f"{str(exc)[0].upper()}{str(exc)[1:]}."]
    problems = []
    doc = ast.get_docstring(cls)
    if not doc or not doc.strip().splitlines()[0].strip():
        problems.append(
            f"Line {cls.lineno}: {cls.name} needs a docstring: a title line, then "
            "what the player must do and how answers are written."
        )
    methods = {n.name: n for n in cls.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)}
    for name, node in methods.items():
        if isinstance(node, ast.AsyncFunctionDef) and name in (
            "reset",
            "step",
            "solution",
            "hint",
            "check",
        ):
            problems.append(f"Line {node.lineno}: {name} must be a plain method, not async.")
    signatures = {"reset": ("seed", "options"), "step": ("action",), "solution": (), "hint": ()}
    for name, params in signatures.items():
        method = methods.get(name)
        if isinstance(method, ast.FunctionDef) and not _accepts(method, params):
            wanted = ", ".join(
                ("self",) + tuple(f"{p}=None" if name == "reset" else p for p in params)
            )
            problems.append(f"Line {method.lineno}: {name} must accept ({wanted}).")
    init = methods.get("__init__")
    if isinstance(init, ast.FunctionDef):
        required = len(init.args.args) - 1 - len(init.args.defaults)
        if required > 0 or any(d is None for d in init.args.kw_defaults):
            problems.append(
                f"Line {init.lineno}: __init__ must work with no arguments "
                "(give every parameter a default)."
            )
    return cls, problems


def docstring_parts(cls: ast.ClassDef | None, doc: str | None = None) -> tuple[str, str]:
    """Title (first docstring line) and description (the rest), from the AST or a docstring."""
    text = doc if doc is not None else (ast.get_docstring(cls) if cls is not None else None)
    if not text:
        return "", ""
    lines = text.strip().splitlines()
    return lines[0].strip(), "\n".join(line.strip() for line in lines[1:]).strip()


def defined_names(tree: ast.Module, cls: ast.ClassDef) -> set[str]:
    """Names ``cls`` defines in its body or inherits from classes of the same module."""
    classes = {node.name: node for node in tree.body if isinstance(node, ast.ClassDef)}
    names: set[str] = set()
    todo, seen = [cls], set()
    while todo:
        node = todo.pop()
        if node.name in seen:
            continue
        seen.add(node.name)
        for item in node.body:
            if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef):
                names.add(item.name)
            elif isinstance(item, ast.Assign):
                names.update(t.id for t in item.targets if isinstance(t, ast.Name))
            elif isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
                names.add(item.target.id)
        todo += [classes[b.id] for b in node.bases if isinstance(b, ast.Name) and b.id in classes]
    return names
