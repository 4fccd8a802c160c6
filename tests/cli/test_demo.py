"""``spadegym demo``: offline, self-contained, and it produces what it announces."""

from __future__ import annotations

import html.parser
import re
import time
from pathlib import Path

import pytest
from gymnasium.envs.registration import registry as gym_registry

from spadegym.cli import main
from spadegym.cli.demo import REPLAYS, design_reply_count
from spadegym.registry import Registry

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "good"
ACCEPTED = (
    "IceMaze",
    "SequenceStreak",
    "BankSettlement",
    "Nim",
    "CircuitProbe",
    "ChangeMaker",
    "LightsOut",
    "BalanceScale",
)


@pytest.fixture(autouse=True)
def isolated(tmp_path, monkeypatch):
    monkeypatch.setenv("SPADEGYM_HOME", str(tmp_path / "home"))
    monkeypatch.delenv("SPADEGYM_REGISTRY_PATH", raising=False)
    saved = {k: v for k, v in gym_registry.items() if k.startswith("spade/")}
    for key in saved:
        del gym_registry[key]
    yield
    for key in [k for k in gym_registry if k.startswith("spade/")]:
        del gym_registry[key]
    gym_registry.update(saved)


def test_the_bundled_replies_ship_inside_the_package_and_match_the_test_recordings():
    assert REPLAYS.is_relative_to(ROOT / "spadegym")
    recorded = ROOT / "tests" / "data" / "replays" / "designer.jsonl"
    assert REPLAYS.read_bytes() == recorded.read_bytes(), (
        "spadegym/demo_data/designer.jsonl differs from tests/data/replays/designer.jsonl; "
        "copy the recordings over after running make_replays.py"
    )
    assert design_reply_count() == 15


class Cards(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.ids: list[str] = []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "article" and "card" in (attrs.get("class") or ""):
            self.ids.append(attrs["data-env-id"])


def test_the_demo_generates_plays_tabulates_and_reports_offline(tmp_path, monkeypatch, capsys):
    pytest.importorskip("faiss")
    pytest.importorskip("matplotlib")
    # A small stand-in for the shipped library, so the test does not wait for all of it.
    library = Registry(tmp_path / "library")
    for name in ("lock_pick", "budget_allocation"):
        library.add((EXAMPLES / f"{name}.py").read_text(encoding="utf-8"))
    monkeypatch.setenv("SPADEGYM_SHIPPED_REGISTRY", str(library.root))
    workdir = tmp_path / "demo"

    started = time.perf_counter()
    code = main(["demo", "--workdir", str(workdir), "--embedder", "hashing"])
    seconds = time.perf_counter() - started
    captured = capsys.readouterr()
    out = captured.out
    assert code == 0, captured.err
    assert "Designer: recorded replies. No model runs" in out
    assert "memory: 2 environments (2 added from the shipped library)" in out
    assert "8 accepted, 5 rejected, 2 duplicate" in out
    assert "generate 15/15" in captured.err  # progress while it validates
    for name in ACCEPTED:
        row = next(line for line in out.splitlines() if line.startswith(f"spade/{name}-v0 "))
        if name == "Nim":
            assert "(game)" in row and row.split()[-1] == "-1.00"
        else:
            assert "3/3 won" in row and row.split()[-1] == "0.00", row
    page = Path(re.search(r"report:\s+(\S+)", out).group(1))
    assert page == workdir / "report" / "index.html" and page.is_file()
    cards = Cards()
    cards.feed(page.read_text(encoding="utf-8"))
    assert sorted(cards.ids) == sorted(f"spade/{n}-v0" for n in ACCEPTED)
    assert "recorded replies (replayed offline; no model ran)" in page.read_text()
    assert {p.name for p in (page.parent / "img").iterdir()} == {
        "skills.png",
        "funnel.png",
        "check_times.png",
    }
    assert sorted(e.id for e in Registry(workdir / "registry").list()) == sorted(
        f"spade/{n}-v0" for n in ACCEPTED
    )
    assert seconds < 120


def test_a_missing_model_is_a_clear_error(tmp_path, capsys):
    code = main(
        [
            "demo",
            "--workdir",
            str(tmp_path / "w"),
            "--llm",
            "hf:" + str(tmp_path / "no"),
            "--embedder",
            "hashing",
        ]
    )
    err = capsys.readouterr().err
    assert code == 2
    assert "cannot load a model" in err or "TransformersChat needs torch" in err


def test_the_users_own_registry_stays_out_of_the_demo(tmp_path, monkeypatch, capsys):
    import os
    import warnings

    # The user keeps copies of games the demo writes again, under the same ids.
    user = Registry(tmp_path / "home" / "registry")
    for name in ("ice_maze", "sequence_streak"):
        user.add((EXAMPLES / f"{name}.py").read_text(encoding="utf-8"))
    library = Registry(tmp_path / "library")
    library.add((EXAMPLES / "lock_pick.py").read_text(encoding="utf-8"))
    monkeypatch.setenv("SPADEGYM_SHIPPED_REGISTRY", str(library.root))
    workdir = tmp_path / "demo"
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        code = main(
            ["demo", "--workdir", str(workdir), "-n", "2", "--embedder", "hashing", "--no-report"]
        )
    out, err = capsys.readouterr()
    assert code == 0, err
    assert [str(w.message) for w in caught if "registry roots" in str(w.message)] == []
    assert "ShadowedEnvironmentWarning" not in err
    assert sorted(e.id for e in Registry(workdir / "registry").list()) == [
        "spade/IceMaze-v0",
        "spade/SequenceStreak-v0",
    ]
    assert os.environ["SPADEGYM_HOME"] == str(tmp_path / "home")  # restored
