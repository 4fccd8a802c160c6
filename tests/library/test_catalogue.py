"""``registry/README.md`` lists every environment of the library, as ``spadegym list
--markdown`` prints them, so the catalogue never goes stale."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from catalogue import LIBRARY, README, catalogue, table  # noqa: E402


def test_every_folder_has_a_manifest():
    missing = sorted(
        p.name
        for p in LIBRARY.iterdir()
        if (p / "env.py").is_file() and not (p / "manifest.json").is_file()
    )
    assert not missing, (
        f"{len(missing)} folders have no manifest.json ({', '.join(missing[:5])}"
        "...); run `spadegym verify --fix --root registry`."
    )


def test_the_table_lists_every_folder():
    listed = {line.split("`")[1] for line in table().splitlines() if line.startswith("| `")}
    folders = {f"spade/{p.name}" for p in LIBRARY.iterdir() if (p / "env.py").is_file()}
    assert listed == folders


def test_the_catalogue_is_up_to_date():
    assert README.is_file(), "registry/README.md is missing; run python tests/library/catalogue.py"
    assert README.read_text(encoding="utf-8") == catalogue(), (
        "registry/README.md is stale; run python tests/library/catalogue.py"
    )
