"""The contract checks added to the battery: one program per rule, breaking exactly that rule."""

from __future__ import annotations

import textwrap

import pytest
from sample_programs import LOCK_PICK

from spadegym import ValidationConfig, validate

FAST = ValidationConfig(fuzz_examples=10, check_env=False)

HINT = 'return "Change one digit at a time and watch the count."'

COUNT_TO_SEVEN = textwrap.dedent('''
    from spadegym.program import extract_boxed
    import random

    class CountToSevenEnv:
        """Count to seven: say 1 or 2; whoever brings the total to 7 or more wins.

        Two players take turns adding 1 or 2 to a running total, written \\\\boxed{1} or
        \\\\boxed{2}. Anything else loses at once."""

        max_turns = 10
        num_players = 2

        def reset(self, seed=None, options=None):
            self.rng = random.Random(seed)
            self.total = self.rng.randrange(3)
            self.player = self.rng.randrange(2)
            return self.show(), {"player": self.player}

        def show(self):
            return (f"Total {self.total}. Player {self.player} to move: add 1 or 2 with "
                    "\\\\boxed{1} or \\\\boxed{2}; reaching 7 wins.")

        def finish(self, winner, text):
            outcome = [1.0, -1.0] if winner == 0 else [-1.0, 1.0]
            reward = outcome[self.player]
            return text, reward, True, False, {"player": self.player, "outcome": outcome}

        def step(self, action):
            move = extract_boxed(action)
            if move not in ("1", "2"):
                return self.finish(1 - self.player, "Illegal move: you lose.")
            self.total += int(move)
            if self.total >= 7:
                return self.finish(self.player, "You reached 7 and win.")
            self.player = 1 - self.player
            return self.show(), 0.0, False, False, {"player": self.player}

        def hint(self):
            return "Think backwards from seven: which totals lose for the player to move?"
''')


def failures(report) -> list[str]:
    assert not report.ok, report.to_json()
    return [c.name for c in report.failures]


def the_failure(report, name: str) -> str:
    assert failures(report) == [name], report.feedback()
    return report.failures[0].message


def test_the_two_player_base_program_is_valid():
    report = validate(COUNT_TO_SEVEN, FAST)
    assert report.ok, report.feedback()
    assert report.check("ends").passed and report.check("values").passed


def test_two_player_outcome_must_be_zero_sum():
    source = COUNT_TO_SEVEN.replace(
        "outcome = [1.0, -1.0] if winner == 0 else [-1.0, 1.0]",
        "outcome = [1.0, 0.0] if winner == 0 else [0.0, 1.0]",
    ).replace("reward = outcome[self.player]", "reward = outcome[self.player] or -1.0")
    # An illegal move still loses zero-sum, so only the normal end breaks the rule.
    source = source.replace(
        'return self.finish(1 - self.player, "Illegal move: you lose.")',
        'return ("Illegal move: you lose.", -1.0, True, False, {"player": self.player, '
        '"outcome": [-1.0, 1.0] if self.player == 0 else [1.0, -1.0]})',
    )
    message = the_failure(validate(source, FAST), "values")
    assert "info['outcome'] = [" in message and "zero-sum" in message


def test_a_game_random_legal_play_keeps_going_fails():
    source = COUNT_TO_SEVEN.replace("if self.total >= 7:", "if self.total >= 7 and move == 'x':")
    message = the_failure(validate(source, FAST), "ends")
    assert "random legal moves kept the game going for max_turns=10 moves" in message
    assert "\\\\boxed{1}" in message or "\\\\boxed{2}" in message


TOOL_ENV = textwrap.dedent('''
    from spadegym.program import ToolEnv
    import random

    class LockerEnv(ToolEnv):
        """Locker: find which locker holds the key.

        Use the tools, then answer <answer>N</answer>."""

        max_turns = 6
        tools = [
            {"name": "peek", "description": "Look into a locker.",
             "parameters": {"type": "object", "properties": {"n": {"type": "integer"}}}},
            {"name": "count", "description": "How many lockers there are.",
             "parameters": {"type": "object", "properties": {}}},
        ]

        def reset(self, seed=None, options=None):
            self.rng = random.Random(seed)
            self.key = self.rng.randrange(1, 10)
            return "Nine lockers. Tools: " + self.describe_tools(), {}

        def tool_peek(self, n=0):
            return "key" if n == self.key else "empty"

        def check(self, answer):
            return 1.0 if answer.strip() == str(self.key) else 0.0

        def solution(self):
            return [f"<answer>{self.key}</answer>"]
''')


def test_a_declared_tool_needs_its_method():
    message = the_failure(validate(TOOL_ENV, FAST), "load")
    assert message == (
        "tools declares 'count' but LockerEnv has no tool_count(self, **arguments) method; "
        "write one method per declared tool, or drop the spec."
    )
    fixed = TOOL_ENV.replace(
        "    def check(self, answer):",
        "    def tool_count(self):\n        return 9\n\n    def check(self, answer):",
    )
    assert validate(fixed, FAST).ok


def test_class_level_state_shared_by_instances_fails_isolation():
    # The record is read at reset and written at a win: runs that start together agree, so
    # only a game played after others in the same worker shows it.
    source = (
        LOCK_PICK.replace("    max_turns = 8\n", "    max_turns = 8\n    records = []\n")
        .replace(
            'return "A 3-digit lock. Guess with \\\\boxed{ddd}.", {}',
            'best = min(self.records) if self.records else "none"\n'
            '        return f"A 3-digit lock. Guess with boxed digits. Record: {best}.", {}',
        )
        .replace(
            'return "Click. The lock opens.", 1.0, True, False, {}',
            "self.records.append(self.turn)\n"
            '            return "Click. The lock opens.", 1.0, True, False, {}',
        )
    )
    message = the_failure(validate(source, FAST), "isolation")
    assert message.startswith("Seed 0: the same seed and replies gave a different game after")
    assert "the observation after reset() differs" in message


def test_reset_that_leaves_a_counter_alone_fails():
    source = (
        LOCK_PICK.replace(
            "    def reset(self, seed=None, options=None):",
            "    def __init__(self):\n        self.turn = 0\n\n"
            "    def reset(self, seed=None, options=None):",
        )
        .replace("        self.turn = 0\n        return", "        return")
        .replace(
            'return f"{right} digit(s) in the right place.", 0.0, False, False, {}',
            'return f"Guess {self.turn}: {right} digit(s) in place.", 0.0, False, False, {}',
        )
        .replace(
            'return "Click. The lock opens.", 1.0, True, False, {}',
            'return f"Click after {self.turn} guesses.", 1.0, True, False, {}',
        )
    )
    assert "self.turn = 0\n        return" not in source
    message = the_failure(validate(source, FAST), "reset")
    assert "reset() on an instance that had played seed" in message
    assert "the observation after step 1 differs" in message


@pytest.mark.parametrize(
    "method, change",
    [
        (
            "solution",
            (
                'return ["\\\\boxed{" + self.code + "}"]',
                'self.turn += 1\n        return ["\\\\boxed{" + self.code + "}"]',
            ),
        ),
        ("hint", (HINT, "self.turn += 5\n        " + HINT)),
    ],
)
def test_solution_and_hint_must_not_change_the_state(method, change):
    source = LOCK_PICK.replace(*change).replace(
        'return "Click. The lock opens.", 1.0, True, False, {}',
        'return f"Click after {self.turn} guesses.", 1.0, True, False, {}',
    )
    message = the_failure(validate(source, FAST), "privileged")
    assert "with solution() and hint() called right after reset(), the same replies" in message
    assert "the observation after step 1 differs" in message


def test_solution_that_changes_what_it_returns_fails():
    source = LOCK_PICK.replace(
        "        self.turn = 0\n        return",
        "        self.turn = 0\n        self.asked = 0\n        return",
    ).replace(
        'return ["\\\\boxed{" + self.code + "}"]',
        "self.asked += 1\n        if self.asked > 1:\n"
        '            return ["\\\\boxed{" + self.code + "}", "\\\\boxed{000}"]\n'
        '        return ["\\\\boxed{" + self.code + "}"]',
    )
    message = the_failure(validate(source, FAST), "privileged")
    assert (
        "solution() returned something else when called again after solution() and hint()"
        in message
    )


def test_large_seeds_must_give_different_instances():
    source = LOCK_PICK.replace(
        "self.rng = random.Random(seed)", "self.rng = random.Random(min(seed, 999))"
    )
    message = the_failure(validate(source, FAST), "procedural")
    assert "(large seeds) all gave the same instance" not in message
    assert "all gave the same instance: large seeds must give different instances too" in message


def test_solution_must_win_on_large_seeds():
    wrong = "str((int(self.code[0]) + 1) % 10) + self.code[1:]"
    source = LOCK_PICK.replace(
        'return ["\\\\boxed{" + self.code + "}"]',
        f'return ["\\\\boxed{{" + (self.code if self.seed < 10**6 else {wrong}) + "}}"]',
    ).replace(
        "self.rng = random.Random(seed)", "self.rng = random.Random(seed)\n        self.seed = seed"
    )
    message = the_failure(validate(source, FAST), "solvable")
    assert "(a large seed: the trainer draws seeds up to 2**31)" in message
    assert "does not win" in message


def test_observations_must_stay_in_the_observation_space():
    source = LOCK_PICK.replace(
        'return f"{right} digit(s) in the right place.", 0.0, False, False, {}',
        'return f"\\x1b[31m{right}\\x1b[0m digit(s) in the right place.", 0.0, False, False, {}',
    )
    message = the_failure(validate(source, FAST), "values")
    assert "returned an observation holding the character '\\x1b' (U+001B)" in message


def test_echoing_the_players_control_characters_is_not_held_against_the_program():
    source = LOCK_PICK.replace(
        'return "Answer with three digits in \\\\boxed{}.", 0.0, False, False, {}',
        'return "Not three digits: " + action[:20], 0.0, False, False, {}',
    )
    report = validate(source, ValidationConfig(fuzz_examples=50, check_env=False))
    assert report.ok, report.feedback()


@pytest.mark.parametrize("key", ["episode_outcome", "error", "final_info"])
def test_programs_must_not_write_the_wrappers_info_keys(key):
    source = LOCK_PICK.replace(
        'return "Click. The lock opens.", 1.0, True, False, {}',
        f'return "Click. The lock opens.", 1.0, True, False, {{"{key}": 1.0}}',
    )
    message = the_failure(validate(source, FAST), "values")
    assert f"put '{key}' in info; spadegym's wrappers write the keys" in message


def test_filler_text_must_earn_nothing():
    source = LOCK_PICK.replace(
        "        guess = extract_boxed(action)\n",
        "        guess = extract_boxed(action)\n"
        "        if len(action) > 1000 and guess is None:\n"
        '            return "What a thorough answer.", 0.25, False, False, {}\n',
    )
    message = the_failure(validate(source, FAST), "not_trivial")
    assert message == (
        "Seed 0: 2,000 characters of filler text with no answer earned reward 0.25. Reward only "
        "a correct answer, never the length or the words of a reply."
    )


def test_filler_text_may_not_win_a_two_player_game():
    source = COUNT_TO_SEVEN.replace(
        "        move = extract_boxed(action)\n",
        "        move = extract_boxed(action)\n"
        "        if len(action) > 1000:\n"
        '            return self.finish(self.player, "Well argued: you win.")\n',
    )
    message = the_failure(validate(source, FAST), "not_trivial")
    assert (
        "characters of filler text with no move in it earned the mover a positive reward" in message
    )
