"""The package docstring's map of memory/ names every module, so a new one gets a place in it."""

from __future__ import annotations

from pathlib import Path

import spadegym.memory as memory


def test_the_map_names_every_module_of_the_package():
    # Named as ``module`` or ``module.member`` in double backquotes.
    named = {part.split(".")[0] for part in (memory.__doc__ or "").split("``")[1::2]}
    modules = {p.stem for p in Path(memory.__file__).parent.glob("*.py")} - {"__init__"}
    assert not modules - named, (
        f"add to spadegym/memory/__init__.py's map: {sorted(modules - named)}"
    )
