"""The hint-leak check: the answer as whole tokens of the hint, however it is written."""

from __future__ import annotations

import pytest
from sample_programs import LOCK_PICK

from spadegym import ValidationConfig, validate
from spadegym.validation.leak import contains_answer, final_answer, hint_leak, normalise, tokens


@pytest.mark.parametrize(
    "hint, answer",
    [
        ("The code is 47.", "47"),  # two-digit answers are checked
        ("It is ４７.", "47"),  # full-width digits
        ("Try 4 7 next.", "47"),  # spaced out
        ("Try 4-7.", "47"),
        ("Try 4, 7.", "47"),
        ("The word is ZEBRA.", "zebra"),  # case
        ("The word is ＺＥＢＲＡ.", "zebra"),  # full-width letters
        ("Go North first.", "north"),  # short words too
        ("It is 7.", "7"),  # one character
        ("Answer b.", "B"),
        ("x = −3", "-3"),  # a minus sign
        ("Use 3.14 here", "3.14"),
        ("The cell is B-2.", "b2"),
        ("٤٧ is it", "47"),  # any script's digits
        ("Propose 2, 0, 1 now", "propose 2 0 1"),
    ],
)
def test_leaks_are_found(hint, answer):
    assert contains_answer(hint, answer), (hint, answer)


@pytest.mark.parametrize(
    "hint, answer",
    [
        ("There are 17 doors.", "7"),  # part of a number
        ("Think about seventy.", "7"),
        ("It is -3 now", "3"),  # another number
        ("Go northwest.", "north"),  # part of a word
        ("Row 4 has 7 stones in a long line", "47"),  # too far apart
        ("Halve the range each time.", "47"),
        ("", "47"),
        ("anything", "!!"),  # nothing to find
    ],
)
def test_non_leaks_are_not_flagged(hint, answer):
    assert not contains_answer(hint, answer), (hint, answer)


def test_normalise_and_tokens():
    assert normalise("ＡＢ１２—x") == "ab12-x"
    assert [t for t, _, _ in tokens("a1-2 -3 x-4")] == ["a1", "2", "-3", "x", "4"]


def test_final_answer_reads_boxed_and_answer_blocks():
    assert final_answer(["\\boxed{1}", "\\boxed{2} then \\boxed{3}"]) == "3"
    assert final_answer(['<tool_call>{"name": "a"}</tool_call>', "<answer> 12 </answer>"]) == "12"
    assert final_answer(["no answer"]) == ""


def test_hint_leak_names_what_leaked():
    solution = ["\\boxed{flip 1}", "\\boxed{answer 3 1 2 2}"]
    assert (
        hint_leak("Try \\boxed{FLIP 1} first.", solution)
        == "the solution reply '\\\\boxed{flip 1}'"
    )
    assert hint_leak("End with 3 1 2 2.", solution) is None  # the token 'answer' is missing
    assert hint_leak("Answer 3, 1, 2, 2.", solution) == "the final answer 'answer 3 1 2 2'"
    assert hint_leak("Flip one switch at a time.", solution) is None
    assert hint_leak("anything", None) is None


def test_a_two_digit_answer_in_a_hint_fails_validation():
    source = (
        LOCK_PICK.replace(
            'self.code = "".join(str(self.rng.randrange(10)) for _ in range(3))',
            'self.code = "".join(str(self.rng.randrange(10)) for _ in range(2))',
        )
        .replace("len(guess) != 3", "len(guess) != 2")
        .replace(
            'return "Change one digit at a time and watch the count."',
            'return "Start near " + " ".join(self.code) + "."',
        )
    )
    report = validate(source, ValidationConfig(fuzz_examples=5, check_env=False))
    assert [c.name for c in report.failures] == ["hint"], report.feedback()
    assert report.failures[0].message.startswith("Seed 0: hint() contains the final answer '")
