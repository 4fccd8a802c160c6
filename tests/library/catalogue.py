"""The catalogue of the shipped library, ``registry/README.md``, and the command that writes it.

The table is exactly what ``spadegym list --markdown --root registry`` prints; the text around
it is fixed here. Regenerate after changing the library (and its manifests, with
``spadegym verify --fix --root registry``)::

    python tests/library/catalogue.py
"""

from __future__ import annotations

import contextlib
import io
from pathlib import Path

LIBRARY = Path(__file__).resolve().parents[2] / "registry"
README = LIBRARY / "README.md"

HEADER = """# The shipped environment library

Every environment that ships with spadegym, one folder each: `env.py` (the program) and
`manifest.json` (its id, title, skill, validation summary and the program's sha256, written by
`spadegym verify --fix --root registry`). `import spadegym` registers them all, so
`gymnasium.make("spade/<Name>-v0")` plays any of them; `spadegym play <id>` plays one in the
terminal and `spadegym eval --llm SPEC` plays them with a model as the solver.

The table is the output of `spadegym list --markdown --root registry` (turns: `max_turns`).
Regenerate this file with `python tests/library/catalogue.py`; a test fails when it is stale.
"""


def table() -> str:
    """``spadegym list --markdown --root registry``, as it prints."""
    from spadegym.cli import main

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(["list", "--markdown", "--root", str(LIBRARY)])
    if code != 0:
        raise RuntimeError(f"spadegym list exited with {code}")
    return out.getvalue()


def catalogue() -> str:
    """The whole README: header, table, and the counts per kind."""
    rows = [line for line in table().splitlines() if line.startswith("| `")]
    kinds = [line.split(" | ")[2] for line in rows]
    counts = ", ".join(
        f"{kinds.count(k)} {name}"
        for k, name in (
            ("puzzle", "puzzles"),
            ("tool", "tool-use"),
            ("two_player", "two-player games"),
        )
    )
    return f"{HEADER}\n{table()}\n{len(rows)} environments: {counts}.\n"


def main() -> None:
    README.write_text(catalogue(), encoding="utf-8")
    print(f"wrote {README}")


if __name__ == "__main__":
    main()
