"""Rewrite the shipped programs to use ``spadegym.program.read_difficulty`` (issue 17, item 4).

The library and the good examples each carried a copy of the difficulty reader, in four
variants (three ``read_difficulty`` functions and one inline ``if``). This script removes each
copy, imports the shared one and passes the copy's own default, so every game behaves
identically at the valid difficulties 1..5, and with no difficulty at all. It proves that
before writing: for every difficulty, with no options, and several seeds, the old and the new
program give the same first observation, info and solution. Out of range values (0, 9, True,
2.5) now give the default instead of being clamped or let through.

Run it, then refresh what is derived from the programs::

    python tests/library/use_read_difficulty.py        # --check: only report
    spadegym verify --fix --root registry              # sha256 and validation summaries
    python tests/library/catalogue.py                  # registry/README.md
"""

from __future__ import annotations

import argparse
import ast
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PROGRAMS = sorted((ROOT / "registry").glob("*/env.py")) + sorted(
    (ROOT / "examples" / "good").glob("*.py")
)
SEEDS = (0, 1, 2, 7)


def _default_of_function(node: ast.FunctionDef) -> int:
    """The default of a copied reader: the second argument of ``options.get("difficulty", K)``."""
    for call in ast.walk(node):
        if (
            isinstance(call, ast.Call)
            and isinstance(call.func, ast.Attribute)
            and call.func.attr == "get"
            and len(call.args) == 2
            and isinstance(call.args[0], ast.Constant)
            and call.args[0].value == "difficulty"
            and isinstance(call.args[1], ast.Constant)
        ):
            return call.args[1].value
    raise ValueError(f"line {node.lineno}: no options.get('difficulty', K) in {node.name}")


def _inline_reader(body: list[ast.stmt]) -> tuple[int, int, int, str, int] | None:
    """Find ``d = K`` followed by ``if ... options.get("difficulty") in (1..5): d = options[...]``.

    Returns:
        (first line, last line, indentation, variable, K), or None.
    """
    for first, second in zip(body, body[1:]):
        if not (
            isinstance(first, ast.Assign)
            and len(first.targets) == 1
            and isinstance(first.targets[0], ast.Name)
            and isinstance(first.value, ast.Constant)
            and isinstance(second, ast.If)
            and not second.orelse
            and "options.get('difficulty')" in ast.unparse(second.test)
        ):
            continue
        name = first.targets[0].id
        if [ast.unparse(s) for s in second.body] == [f"{name} = options['difficulty']"]:
            return first.lineno, second.end_lineno, first.col_offset, name, first.value.value
    return None


def rewrite(source: str) -> str:
    """The program using the shared ``read_difficulty``; the source itself if it has no copy."""
    tree = ast.parse(source)
    lines = source.splitlines(keepends=True)
    copies = [
        n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "read_difficulty"
    ]
    edits: list[tuple[int, int, list[str]]] = []  # (first line, last line, replacement), 1-based
    if copies:
        (function,) = copies
        default = _default_of_function(function)
        end = function.end_lineno
        while end < len(lines) and not lines[end].strip():
            end += 1  # the blank lines after it go too
        edits.append((function.lineno, end, []))
        for call in ast.walk(tree):
            if (
                isinstance(call, ast.Call)
                and isinstance(call.func, ast.Name)
                and call.func.id == "read_difficulty"
            ):
                if len(call.args) != 1 or call.keywords or call.lineno != call.end_lineno:
                    raise ValueError(f"line {call.lineno}: an unexpected read_difficulty call")
                line = lines[call.lineno - 1]
                text = line[call.col_offset : call.end_col_offset]
                new = f"read_difficulty({ast.unparse(call.args[0])}, default={default})"
                edits.append((call.lineno, call.lineno, [line.replace(text, new, 1)]))
    else:
        found = None
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef) and node.name == "reset":
                found = _inline_reader(node.body)
                if found:
                    break
        if found is None:
            return source
        first, last, indent, name, default = found
        line = " " * indent + f"{name} = read_difficulty(options, default={default})\n"
        edits.append((first, last, [line]))
    edits.append(_import_edit(tree, lines))
    for first, last, replacement in sorted(edits, key=lambda e: e[0], reverse=True):
        lines[first - 1 : last] = replacement
    return "".join(lines)


def _import_edit(tree: ast.Module, lines: list[str]) -> tuple[int, int, list[str]]:
    """Add read_difficulty to ``from spadegym.program import ...``, or add that import."""
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.module == "spadegym.program":
            names = sorted({a.name for a in node.names} | {"read_difficulty"})
            text = f"from spadegym.program import {', '.join(names)}\n"
            if len(text) > 100:
                text = (
                    "from spadegym.program import (\n"
                    + "".join(f"    {n},\n" for n in names)
                    + ")\n"
                )
            return node.lineno, node.end_lineno, [text]
    imports = [n for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom))]
    if not imports:
        raise ValueError("the program imports nothing; place the import by hand")
    last = imports[-1]
    block = lines[last.lineno - 1 : last.end_lineno]
    added = "from spadegym.program import read_difficulty\n"
    return last.lineno, last.end_lineno, [*block, "\n", added]


def _behaviour(source: str) -> list:
    """First observation, info and solution for every difficulty, no options, and seeds."""
    from spadegym.policy import load_program

    env_class = load_program(source).env_class
    seen = []
    for options in [None, *({"difficulty": d} for d in range(1, 6))]:
        for seed in SEEDS:
            env = env_class()
            observation, info = env.reset(seed=seed, options=options)
            solution = env.solution() if callable(getattr(env, "solution", None)) else None
            seen.append((options, seed, observation, info, solution))
    return seen


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--check", action="store_true", help="report, write nothing")
    args = parser.parse_args(argv)
    changed = 0
    for path in PROGRAMS:
        old = path.read_text(encoding="utf-8")
        new = rewrite(old)
        if new == old:
            continue
        if _behaviour(new) != _behaviour(old):
            print(f"{path.relative_to(ROOT)}: the rewrite changes behaviour; left alone")
            return 1
        changed += 1
        print(f"{'would rewrite' if args.check else 'rewrote'} {path.relative_to(ROOT)}")
        if not args.check:
            path.write_text(new, encoding="utf-8")
    print(f"{changed} programs {'to rewrite' if args.check else 'rewritten'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
