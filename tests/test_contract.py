"""Tests for spadegym.contract: each rule lives there once, and every place uses it."""

from __future__ import annotations

import ast
import re
import typing
from pathlib import Path

import pytest

from spadegym import contract
from spadegym.errors import ConfigError

PACKAGES = [Path(contract.__file__).parent, Path(contract.__file__).parents[1] / "spadegym_train"]
SOURCES = sorted(p for root in PACKAGES for p in root.rglob("*.py") if "demo_data" not in p.parts)


# --- difficulty -----------------------------------------------------------------------------


def test_difficulty_constants():
    assert contract.DIFFICULTIES == (1, 2, 3, 4, 5)
    assert (contract.MIN_DIFFICULTY, contract.MAX_DIFFICULTY) == (1, 5)
    assert contract.DEFAULT_DIFFICULTY in contract.DIFFICULTIES


@pytest.mark.parametrize("value", [1, 3, 5])
def test_check_difficulty_accepts_ints_in_range(value):
    assert contract.is_difficulty(value)
    assert contract.check_difficulty(value) == value


@pytest.mark.parametrize("value", [0, 6, -1, True, False, 2.0, "2", None, [2]])
def test_check_difficulty_refuses_everything_else(value):
    assert not contract.is_difficulty(value)
    with pytest.raises(ConfigError) as caught:
        contract.check_difficulty(value, "difficulties")
    assert str(caught.value) == f"difficulties={value!r}: difficulties are ints in 1..5."


def test_the_difficulty_range_is_written_down_only_in_the_contract():
    # A range check or a literal list of the five difficulties outside contract.py is a second
    # copy of the rule.
    copies = re.compile(r"1 <= \w+ <= 5|\(1, 2, 3, 4, 5\)|randint\(1, 5\)")
    found = [
        f"{path.name}:{number}"
        for path in SOURCES
        if path.name != "contract.py"
        for number, line in enumerate(path.read_text().splitlines(), 1)
        if copies.search(line)
    ]
    assert found == []


def test_designer_levels_cover_every_difficulty():
    from spadegym.designer.prompts import DIFFICULTY_LEVELS

    assert tuple(DIFFICULTY_LEVELS) == contract.DIFFICULTIES


# --- the environment class ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("names", "expected"),
    [
        (["Helper", "GameEnv"], "GameEnv"),
        (["GameEnv", "GameEnv"], "GameEnv"),
        (["Env", "Board"], "Env"),
        (["_HiddenEnv", "GameEnv", "Environment"], "GameEnv"),
    ],
)
def test_environment_class(names, expected):
    assert contract.environment_class(names) == expected


def test_environment_class_needs_exactly_one():
    with pytest.raises(ValueError) as caught:
        contract.environment_class(["Board", "EnvHelper"])
    assert str(caught.value) == (
        "the program defines no public class whose name ends in 'Env'; define exactly one "
        "(for example class LockPickEnv:)"
    )
    with pytest.raises(ValueError) as caught:
        contract.environment_class(["BaseEnv", "GameEnv"])
    assert str(caught.value) == (
        "the program defines 2 classes whose names end in 'Env' (BaseEnv, GameEnv); keep "
        "exactly one and give helper classes other names"
    )


def test_environment_class_def_reads_top_level_classes_only():
    tree = ast.parse("class Board:\n    class InnerEnv:\n        pass\nclass GameEnv:\n    pass\n")
    assert contract.environment_class_def(tree).name == "GameEnv"


def test_every_place_decides_with_the_contract_rule():
    """The loader, validation, the registry and the memory agree on the same programs."""
    from spadegym.errors import PolicyError, ProgramError
    from spadegym.memory.fingerprint import summarize
    from spadegym.policy import load_program
    from spadegym.registry.admission import _class_name
    from spadegym.registry.errors import RegistryError
    from spadegym.validation.static import check_structure

    body = (
        '    """T.\n\n    Do it."""\n    max_turns = 1\n'
        "    def reset(self, seed=None, options=None):\n"
        '        return "o", {}\n'
        "    def step(self, action):\n"
        '        return "o", 0.0, True, False, {}\n'
    )
    one = "class GameEnv:\n" + body
    two = "class BaseEnv:\n" + body + "class GameEnv(BaseEnv):\n" + body
    assert load_program(one).class_name == "GameEnv"
    assert check_structure(ast.parse(one))[0].name == "GameEnv"
    assert _class_name(one) == "GameEnv"
    assert summarize(one).class_name == "GameEnv"
    message = (
        "the program defines 2 classes whose names end in 'Env' (BaseEnv, GameEnv); keep "
        "exactly one and give helper classes other names"
    )
    with pytest.raises(PolicyError) as caught:
        load_program(two)
    assert caught.value.errors == [message]
    assert check_structure(ast.parse(two))[1] == [message[0].upper() + message[1:] + "."]
    with pytest.raises(RegistryError, match=re.escape(message)):
        _class_name(two)
    with pytest.raises(ProgramError, match=re.escape(message)):
        summarize(two)


# --- ProgramError kinds ---------------------------------------------------------------------


def test_every_kind_is_documented():
    assert set(typing.get_args(contract.ProgramErrorKind)) == set(contract.PROGRAM_ERROR_KINDS)


def test_every_kind_the_code_uses_is_a_documented_kind():
    used = set()
    patterns = [
        re.compile(
            r"ProgramError\([^()]*?(?:\([^()]*\)[^()]*?)*?,\s*(?:kind=)?\"(\w+)\"\s*,?\s*\)"
        ),
        re.compile(r"(?:_fail|error_answer)\(\s*\"(\w+)\""),
        re.compile(r"_Failure\([^)]*,\s*\"(\w+)\"\)"),
    ]
    for path in SOURCES:
        text = path.read_text()
        for pattern in patterns:
            if pattern is patterns[1] and path.parent.name != "sandbox":
                continue  # the worker's answers; the command line has a _fail of its own
            used.update(pattern.findall(text))
    used.discard("protocol")  # the worker's refusals of malformed requests: a SandboxError
    assert used, "the scan found no kinds: the patterns no longer match the code"
    assert used <= set(contract.PROGRAM_ERROR_KINDS), used - set(contract.PROGRAM_ERROR_KINDS)
    assert {"exception", "timeout", "crash", "lost", "sandbox", "broken", "missing"} <= used
