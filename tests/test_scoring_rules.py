"""The scoring rules live in one place: ``spadegym.contract``.

The outcome of an episode, "solved", regret, the win-rate scale, the chance-adjusted win rate
and an environment's kind were once written in several modules, in different words; a change
to one copy left the others behind. These tests keep them in one home.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from spadegym import contract

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = [ROOT / "spadegym", ROOT / "spadegym_train"]
RULES = {
    "episode_outcome",
    "is_solved",
    "as_win_rate",
    "regret",
    "chance_adjusted",
    "environment_kind",
}


def _modules():
    for package in PACKAGES:
        yield from sorted(package.rglob("*.py"))


def test_each_scoring_rule_is_defined_only_in_the_contract():
    elsewhere = []
    for path in _modules():
        if path == ROOT / "spadegym" / "contract.py":
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in tree.body:  # module-level functions (a property may carry a rule's name)
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name in RULES:
                elsewhere.append(f"{path.relative_to(ROOT)}:{node.lineno} def {node.name}")
    assert elsewhere == [], "scoring rules defined outside spadegym/contract.py"


SOLVED_BY_HAND = re.compile(
    r"1\.0\s*-\s*1e-9|(?:outcome|episode_outcome|win|o)\b[\"')\]]*\s*(?:>=|==)\s*1(?:\.0)?\b"
)


def test_nobody_decides_solved_by_hand():
    found = []
    for path in _modules():
        if path.name == "contract.py":
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if SOLVED_BY_HAND.search(line):
                found.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    assert found == [], "use contract.is_solved"


@pytest.mark.parametrize(
    ("reward", "terminated", "info", "players", "mover", "expected"),
    [
        (1.0, True, {}, 1, 0, 1.0),
        (1.0, False, {}, 1, 0, 0.0),
        (7.0, True, {}, 1, 0, 1.0),
        (float("nan"), True, {}, 1, 0, 0.0),
        (1.0, True, {"outcome": [1, -1]}, 2, 0, [1.0, -1.0]),
        (1.0, True, {}, 2, 1, [-1.0, 1.0]),
        (1.0, False, {"outcome": [1, -1]}, 2, 0, [0.0, 0.0]),
    ],
)
def test_the_episode_outcome(reward, terminated, info, players, mover, expected):
    assert contract.episode_outcome(reward, terminated, info, players, mover) == expected


def test_solved_regret_and_the_chance_adjusted_rate():
    assert contract.is_solved(1.0) and contract.is_solved(1.0 - 1e-12)
    assert not contract.is_solved(0.99) and not contract.is_solved(None)
    assert contract.regret(0.7, 0.5) == pytest.approx(0.2) and contract.regret(0.4, 0.5) == 0.0
    assert contract.chance_adjusted(0.75, 0.5) == pytest.approx(0.5)
    assert contract.chance_adjusted(0.5, 0.5) == 0.0
    assert contract.chance_adjusted(0.25, 0.5) == pytest.approx(-0.5)
    assert contract.chance_adjusted(0.6, None) == 0.6
    assert contract.chance_adjusted(1.0, 1.0) == 0.0
    assert contract.as_win_rate(-1.0, 2) == 0.0 and contract.as_win_rate(0.5, 1) == 0.5
    assert contract.environment_kind(2, True) == "two_player"
    assert contract.environment_kind(1, True) == "tool"
    assert contract.environment_kind(None, False) == "puzzle"
