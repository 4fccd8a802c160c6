from __future__ import annotations

import pytest

from spadegym import contract
from spadegym.designer import (
    Example,
    clean_hint,
    contract_rules,
    design_messages,
    hint_messages,
    hint_problem,
    repair_messages,
)
from spadegym.designer.prompts import HINT_MARKER, SKILL_IDEAS
from spadegym.errors import ConfigError


def test_contract_rules_come_from_the_contract_module():
    rules = contract_rules()
    for module in contract.ALLOWED_IMPORTS:
        assert f"`{module}`" in rules
    assert f"{contract.MIN_TURNS}..{contract.MAX_TURNS}" in rules
    assert f"at most {contract.MAX_OBSERVATION_CHARS} characters" in rules
    assert f"[{contract.REWARD_MIN:g}, {contract.REWARD_MAX:g}]" in rules
    assert f"under {contract.MAX_HINT_CHARS}" in rules
    assert f"{contract.MAX_PROGRAM_BYTES // 1024} KiB" in rules


def test_design_prompt_holds_every_part():
    frontier = [
        Example("spade/A-v0", "Alpha game", "Optimization", 0.4, 0.3, "class AEnv:\n"),
        Example("spade/B-v0", "Beta game", "Optimization", 0.5, 0.2, None),
    ]
    negative = Example("spade/C-v0", "Gamma game", "Optimization", 0.97, 0.0, why="too easy")
    nearby = [Example("spade/D-v0", "Delta game")]
    system, user = design_messages(
        "Optimization", 4, "The doc text.", examples=frontier, negative=negative, nearby=nearby
    )
    text = user["content"]
    assert system["role"] == "system" and user["role"] == "user"
    assert "skill Optimization" in text and SKILL_IDEAS["Optimization"] in text
    assert "Difficulty 4 of 5" in text
    assert "<REFERENCE_DOCUMENT>\nThe doc text.\n</REFERENCE_DOCUMENT>" in text
    assert (
        "### Alpha game (spade/A-v0; skill Optimization, win rate 0.40, hint regret 0.30)" in text
        and "class AEnv:" in text
    )
    assert "because it was too easy" in text and "Gamma game" in text
    assert "- Delta game (spade/D-v0)" in text
    for idea in (
        "The state changes with every action",
        "at least two meaningfully different",
        "half to three quarters of max_turns",
        "random play loses",
        "the actions available",
    ):
        assert idea in text
    assert contract_rules() in text
    assert text.rstrip().endswith("in one ```python block, and nothing after it.")


def test_design_prompt_kinds_and_errors():
    tool = design_messages("Logical_Deduction", 1, "d", kind="tool")[1]["content"]
    assert "Subclass ToolEnv" in tool
    duel = design_messages("Logical_Deduction", 1, "d", kind="two_player")[1]["content"]
    assert 'info["outcome"] = [r0, r1]' in duel
    assert "Kind:" in design_messages("My_Own_Skill", 1, "d")[1]["content"]
    with pytest.raises(ConfigError, match="kind 'race' is not one of puzzle, tool, two_player"):
        design_messages("Optimization", 1, "d", kind="race")
    with pytest.raises(ConfigError, match="difficulty=7"):
        design_messages("Optimization", 7, "d")


def test_repair_prompt_keeps_the_last_attempt_without_reasoning():
    design = design_messages("Optimization", 2, "d")
    messages = repair_messages(
        design, "<think>long musing</think>\n```python\nx\n```", "- syntax: Line 1: bad."
    )
    assert messages[:2] == design
    assert messages[2] == {"role": "assistant", "content": "```python\nx\n```"}
    assert messages[3]["content"].startswith(
        "Your program was checked automatically and was not accepted:\n- syntax: Line 1: bad."
    )


def test_hint_prompt_and_cleaning():
    system, user = hint_messages("class AEnv:\n    pass\n")
    assert system["content"].startswith(HINT_MARKER)
    assert "class AEnv:" in user["content"] and "1-3 sentences" in user["content"]
    assert (
        clean_hint('<think>hmm</think>\n**Hint:** "Work backwards from the goal."')
        == "Work backwards from the goal."
    )


def test_hint_problems():
    solutions = [["\\boxed{flip 1}", "\\boxed{answer 3 1 2 2}"]]
    assert hint_problem("Flip one switch at a time.", solutions) is None
    assert "the solution reply" in hint_problem("Try \\boxed{flip 1} first.", solutions)
    assert "final answer" in hint_problem("End with answer 3 1 2 2 at once.", solutions)
    assert hint_problem("", solutions) == "the hint is empty"
    assert "more than 3 sentences" in hint_problem("A. B. C. D.", solutions)
    assert "characters" in hint_problem("x" * 600, solutions)
    assert "the code" in hint_problem("Read self.code carefully.", solutions)
    tool = [['<tool_call>{"name": "audit", "arguments": {}}</tool_call>', "<answer>1234</answer>"]]
    assert "final answer '1234'" in hint_problem("The total is 1234.", tool)
    assert "final answer '1234'" in hint_problem("The total is １２ ３４.", tool)
    assert "final answer '42'" in hint_problem("Say 42.", [["<answer>42</answer>"]])
    assert hint_problem("There are 142 ways.", [["<answer>42</answer>"]]) is None


def test_contract_rules_name_read_difficulty_and_the_allowed_special_names():
    from spadegym.policy.names import SPECIAL_METHODS

    rules = contract_rules()
    assert "read_difficulty(options)" in rules and "`spadegym.program`" in rules
    assert f"{contract.MIN_DIFFICULTY}..{contract.MAX_DIFFICULTY}" in rules
    for name in (*SPECIAL_METHODS, "_replace", "_asdict", "_fields", "type(self).__name__"):
        assert name in rules
    assert "`.format` and `.format_map` are refused on every object" in rules
    system, user = design_messages("Optimization", 2, "Doc.")
    assert "difficulty = read_difficulty(options)" in system["content"] + user["content"]
