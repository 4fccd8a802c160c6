"""validate(): one test per check, on programs that fail exactly that check."""

from __future__ import annotations

import json
import re

import pytest
from sample_programs import LOCK_PICK, make_program

from spadegym import ValidationConfig, validate
from spadegym.validation import CHECK_ORDER

FAST = ValidationConfig(fuzz_examples=15, check_env=False)


def failed(report) -> str:
    assert not report.ok, report.to_json()
    return report.failures[0].name


def test_lock_pick_is_valid_and_described():
    report = validate(LOCK_PICK)
    assert report.ok, report.feedback()
    assert [c.name for c in report.checks] == [n for n in CHECK_ORDER if n != "novelty"]
    props = report.properties
    assert props.title == "Pick a combination lock by listening to the clicks."
    assert props.skill == "Logical_Deduction" and props.max_turns == 8
    assert props.kind == "puzzle" and props.multi_turn is False  # one guess wins
    assert props.solution_turns == (1,) * 5
    assert props.hint == "Change one digit at a time and watch the count."
    assert props.step_ms_max >= props.step_ms_median > 0 and props.peak_memory_mb > 0
    assert report.class_name == "LockPickEnv"
    json.loads(report.to_json())


def test_raw_reply_with_reasoning_and_fence_validates():
    reply = (
        "<think>let me write ```python\nclass BadEnv: pass\n```</think>\nHere it is:\n"
        f"```python\n{LOCK_PICK}\n```\nEnjoy."
    )
    assert validate(reply, FAST).ok


def test_prose_only_fails_extract():
    report = validate("I would build a maze game with keys and doors.", FAST)
    assert failed(report) == "extract"
    assert report.not_run[:2] == ["size", "syntax"]


def test_program_without_env_class_fails_extract():
    report = validate("class Helper:\n    pass\n", FAST)
    assert failed(report) == "extract" and "Env" in report.failures[0].message


def test_syntax_error_names_the_line():
    report = validate("```python\nclass XEnv:\n    def reset(self\n```", FAST)
    assert failed(report) == "syntax"
    message = report.failures[0].message
    assert message.startswith("Line 2:") or message.startswith("Line 3:")


def test_policy_refusal_is_a_line_sentence():
    report = validate("import os\n" + LOCK_PICK, FAST)
    assert failed(report) == "policy"
    assert report.failures[0].message.startswith("Line 1:")


@pytest.mark.parametrize(
    "source, fragment",
    [
        (LOCK_PICK + "\nclass OtherEnv:\n    'x'\n", "2 classes"),
        (re.sub(r'"""Pick.*?opens[.]"""', "", LOCK_PICK, flags=re.S), "needs a docstring"),
        (
            LOCK_PICK.replace(
                "def reset(self, seed=None, options=None)", "def reset(self, seed=None)"
            ),
            "reset must accept (self, seed=None, options=None)",
        ),
    ],
)
def test_structure(source, fragment):
    report = validate(source, FAST)
    assert failed(report) == "structure"
    assert fragment in report.failures[0].message


@pytest.mark.parametrize(
    "change, fragment",
    [
        (("max_turns = 8", "max_turns = 500"), "max_turns must be an int"),
        (("max_turns = 8", "max_turns = 'eight'"), "max_turns must be an int"),
        (("import random", "import random\nBOOM = 1 // 0"), "ZeroDivisionError"),
    ],
)
def test_load(change, fragment):
    report = validate(LOCK_PICK.replace(*change), FAST)
    assert failed(report) == "load"
    assert fragment in report.failures[0].message


def test_api_reset_must_return_text():
    report = validate(
        make_program("return 'x', 0.0, True, False, {}", reset_body="return 3, {}"), FAST
    )
    assert failed(report) == "api" and "must be a str" in report.failures[0].message


def test_solution_that_does_not_win():
    report = validate(
        LOCK_PICK.replace('return ["\\\\boxed{" + self.code + "}"]', 'return ["\\\\boxed{000}"]'),
        FAST,
    )
    assert failed(report) == "solvable"
    assert "does not win" in report.failures[0].message


def test_fixed_puzzle_is_not_procedural():
    source = LOCK_PICK.replace("self.rng = random.Random(seed)", "self.rng = random.Random(7)")
    report = validate(source, FAST)
    assert "procedural" in [c.name for c in report.failures]


def test_state_shared_between_instances_breaks_determinism():
    source = LOCK_PICK.replace("class LockPickEnv:", "CALLS = [0]\n\nclass LockPickEnv:").replace(
        'return "A 3-digit lock. Guess with \\\\boxed{ddd}.", {}',
        'CALLS[0] += 1\n        return f"Lock number {CALLS[0]}. Guess with boxed digits.", {}',
    )
    report = validate(source, ValidationConfig(fuzz_examples=5, check_env=False))
    assert "determinism" in [c.name for c in report.failures]


def test_empty_reply_that_wins_is_trivial():
    source = LOCK_PICK.replace(
        "guess = extract_boxed(action)",
        "guess = extract_boxed(action)\n"
        "        if not action:\n"
        "            return 'Open.', 1.0, True, False, {}",
    )
    report = validate(source, FAST)
    assert [c.name for c in report.failures] == ["not_trivial"]
    assert "an empty reply" in report.failures[0].message


def test_step_that_raises_on_odd_input_is_not_robust():
    source = LOCK_PICK.replace(
        "guess = extract_boxed(action)",
        "guess = extract_boxed(action)\n"
        "        if guess == '':\n"
        "            raise ValueError('empty box')",
    )
    report = validate(source, ValidationConfig(check_env=False))
    assert [c.name for c in report.failures] == ["robust"]
    assert "ValueError" in report.failures[0].message


def test_slow_step_breaks_the_budget():
    source = LOCK_PICK.replace(
        "guess = extract_boxed(action)",
        "guess = extract_boxed(action)\n        total = sum(i * i for i in range(300000))",
    )
    report = validate(source, ValidationConfig(step_budget=0.005, fuzz_examples=5, check_env=False))
    assert [c.name for c in report.failures] == ["budget"]


@pytest.mark.parametrize(
    "hint, fragment",
    [
        ('return "The code is " + self.code + "."', "gives the answer away"),
        ('return "Think. " * 200', "under 500"),
        ('return ""', "empty string"),
    ],
)
def test_hint_rules(hint, fragment):
    source = LOCK_PICK.replace('return "Change one digit at a time and watch the count."', hint)
    report = validate(source, FAST)
    assert [c.name for c in report.failures] == ["hint"]
    assert fragment in report.failures[0].message


def test_report_round_trips_through_json():
    from spadegym.validation import ValidationReport

    report = validate(LOCK_PICK, FAST)
    again = ValidationReport.from_dict(json.loads(report.to_json()))
    assert again.ok == report.ok and again.checks == report.checks
    assert again.properties == report.properties and again.class_name == "LockPickEnv"
    assert json.loads(report.to_json())["properties"]["solution_turns"] == [1] * 5


def test_properties_are_typed_frozen_and_read_older_dicts():
    import dataclasses
    from pathlib import Path

    from spadegym.validation import NearestMatch, ProgramProperties

    props = ProgramProperties(title="T", max_turns=3, solution_turns=(2, 2))
    with pytest.raises(dataclasses.FrozenInstanceError):
        props.title = "U"
    assert props.to_dict() == {"title": "T", "max_turns": 3, "solution_turns": [2, 2]}
    old = {"multi_turn": True, "novelty": {"nearest_id": "spade/X-v0", "similarity": 0.5}}
    assert ProgramProperties.from_dict({**old, "retired_fact": 1}) == ProgramProperties(
        multi_turn=True, novelty=NearestMatch("spade/X-v0", 0.5)
    )
    manifests = sorted((Path(__file__).parents[2] / "registry").glob("*/manifest.json"))
    assert manifests
    for path in manifests:  # what the shipped manifests hold reads back unchanged
        stored = json.loads(path.read_text(encoding="utf-8"))["validation"]["properties"]
        assert ProgramProperties.from_dict(stored).to_dict() == stored, path


def test_a_report_saved_before_nearest_match_was_renamed_loads():
    from spadegym.validation import NearestMatch, ValidationReport

    # What ``ValidationReport.to_json`` wrote when the class was called Novelty: the class name
    # was never written, only its fields.
    saved = (
        '{"ok": true, "checks": [{"name": "novelty", "passed": true, "message": "", '
        '"seconds": 0.5}], "not_run": [], "class_name": "LockPick", "properties": '
        '{"max_turns": 4, "novelty": {"nearest_id": "spade/X-v0", "similarity": 0.25}}, '
        '"seconds": 1.0}'
    )
    report = ValidationReport.from_dict(json.loads(saved))
    assert report.properties.novelty == NearestMatch("spade/X-v0", 0.25)
    assert report.to_json() == saved


def test_validate_many_keeps_order():
    from spadegym.validation import validate_many

    reports = validate_many([LOCK_PICK, "not code", LOCK_PICK], FAST, workers=2)
    assert [r.ok for r in reports] == [True, False, True]
