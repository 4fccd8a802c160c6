"""Validation round three: a valid environment cannot be won without playing it.

One program per way a designer could make a game that a cheap policy wins, each rejected with
its reason named; and the games of chance that must stay valid, with their floor recorded.
"""

from __future__ import annotations

import textwrap

import pytest

from spadegym import ValidationConfig, validate
from spadegym.validation.floor import SEED_RANGES, shortcut_seeds
from spadegym.validation.shortcuts import (
    BARE,
    ListedOption,
    Play,
    RandomOption,
    by_name,
    listed_options,
    numbers,
    reply_template,
    shortcut_family,
)

FAST = ValidationConfig(fuzz_examples=10, check_env=False)

# A game of three hidden choices: the target is one of the listed words, and the clue (a
# letter count) names it. {ANSWER_LINE} and {CHECK} are where the variants differ.
CHOICE_GAME = '''
import random
from spadegym.program import extract_boxed

WORDS = ["amber", "basil", "cobalt", "dune", "ember", "fjord", "garnet", "heath", "iris",
         "juniper", "kelp", "lilac", "maple", "nectar", "onyx", "pebble"]

class ClueEnv:
    """Clue pick: choose the word the clue describes.

    Three words are listed; the clue gives the length of the right one (all lengths differ).
    Answer with the word in \\\\boxed{word}."""

    max_turns = 2

    def reset(self, seed=None, options=None):
        self.rng = random.Random(seed)
        while True:
            self.words = self.rng.sample(WORDS, 3)
            if len({len(w) for w in self.words}) == 3:
                break
        self.answer = self.rng.choice(self.words)
        self.ticket = TICKET
        shown = ORDER
        return (f"Ticket {self.ticket}. Words: {', '.join(shown)}. The right word has "
                f"{len(self.answer)} letters. Answer in \\\\boxed{{word}}."), {}

    def step(self, action):
        guess = extract_boxed(action)
        CHECK
        if guess == self.answer:
            return "Right.", 1.0, True, False, {}
        return "Wrong.", 0.0, True, False, {}

    def solution(self):
        return ["\\\\boxed{" + self.answer + "}"]

    def hint(self):
        return HINT
'''

PLAIN = {
    "TICKET": "self.rng.randrange(1000, 9999)",
    "ORDER": "list(self.words)",
    "CHECK": "pass",
    "HINT": '"Count the letters of each word."',
}


def variant(**changes: str) -> str:
    """The choice game with some of its parts replaced."""
    source = CHOICE_GAME
    for key, value in {**PLAIN, **changes}.items():
        source = source.replace(key, value, 1)
    return textwrap.dedent(source)


def rejected_by(source: str, check: str, config: ValidationConfig = FAST) -> str:
    report = validate(source, config)
    assert not report.ok, "the program passed validation"
    failed = {c.name: c.message for c in report.failures}
    assert check in failed, report.feedback()
    return failed[check]


def test_the_honest_choice_game_is_valid_with_a_floor_near_chance():
    report = validate(variant(), FAST)
    assert report.ok, report.feedback()
    # One try among three listed words: a guesser solves about a third.
    assert 0.1 <= report.properties.floor <= 0.6
    assert report.properties.floor_shortcut


def test_the_answer_hidden_in_a_ticket_number_is_a_shortcut():
    source = variant(
        TICKET="self.words.index(self.answer) + 1",
        CHECK="if guess == str(self.ticket):\n            guess = self.answer",
    )
    message = rejected_by(source, "shortcuts")
    assert "number" in message and "read off the observation" in message


def test_a_fixed_bare_word_that_wins_is_a_shortcut():
    source = variant(CHECK='if action.strip() == "yes":\n            guess = self.answer')
    message = rejected_by(source, "shortcuts")
    assert "the fixed reply" in message and "'yes'" in message


def test_the_first_listed_option_always_right_is_a_shortcut():
    source = variant(ORDER="[self.answer] + [w for w in self.words if w != self.answer]")
    message = rejected_by(source, "shortcuts")
    assert "the first listed option" in message and "Shuffle the options" in message


def test_any_reply_longer_than_the_filler_is_a_shortcut():
    source = variant(CHECK="if len(action) > 2500:\n            guess = self.answer")
    message = rejected_by(source, "shortcuts")
    assert "character reply" in message and "never its length" in message


def test_echoing_the_observation_is_a_shortcut():
    source = variant(CHECK='if action.startswith("Ticket"):\n            guess = self.answer')
    message = rejected_by(source, "shortcuts")
    assert "echoed" in message


def test_every_reply_winning_on_the_seeds_training_draws_is_caught():
    source = variant(
        ORDER="list(self.words)\n        self.free = seed is not None and 10**4 <= seed < 2**30",
        CHECK="if self.free:\n            guess = self.answer",
    )
    message = rejected_by(source, "not_trivial")
    assert "repeated every turn, wins" in message


def test_randomness_that_starts_late_in_a_game_is_caught():
    # Unseeded from the third turn on: a short solution never gets there.
    source = textwrap.dedent('''
        import random
        from spadegym.program import extract_boxed

        class LateEnv:
            """Late: guess the number 0-9 in \\\\boxed{N}; you have many tries."""

            max_turns = 8

            def reset(self, seed=None, options=None):
                self.rng = random.Random(seed)
                self.secret = self.rng.randrange(10)
                self.turn = 0
                return "Guess a number 0-9 in \\\\boxed{N}.", {}

            def step(self, action):
                self.turn += 1
                if self.turn == 3:
                    self.rng = random.Random()
                guess = extract_boxed(action)
                if guess == str(self.secret):
                    return "Yes.", 1.0, True, False, {}
                return f"No. Noise {self.rng.randrange(1000)}.", 0.0, False, False, {}

            def solution(self):
                return ["\\\\boxed{" + str(self.secret) + "}"]
    ''')
    message = rejected_by(source, "determinism")
    assert "differ" in message


@pytest.mark.parametrize(
    "hint",
    [
        '"The code reads " + " | ".join(self.answer) + "."',
        '"Backwards it is " + self.answer[::-1] + "."',
        '"Spell it: " + "-".join(self.answer) + "."',
    ],
)
def test_hints_that_spell_the_answer_out_are_leaks(hint):
    message = rejected_by(variant(HINT=hint), "hint")
    assert "gives the answer away" in message


def test_a_hint_with_the_number_in_words_is_a_leak():
    source = textwrap.dedent('''
        import random
        from spadegym.program import extract_boxed

        WORDS = {66: "sixty-six", 42: "forty-two", 105: "one hundred and five", 17: "seventeen"}

        class SpokenEnv:
            """Spoken: name the hidden number in \\\\boxed{N}; the clue says if it is even."""

            max_turns = 2

            def reset(self, seed=None, options=None):
                self.rng = random.Random(seed)
                self.secret = self.rng.choice(sorted(WORDS))
                return "One of 17, 42, 66, 105. Answer in \\\\boxed{N}.", {}

            def step(self, action):
                if extract_boxed(action) == str(self.secret):
                    return "Yes.", 1.0, True, False, {}
                return "No.", 0.0, True, False, {}

            def solution(self):
                return ["\\\\boxed{" + str(self.secret) + "}"]

            def hint(self):
                return "Think of " + WORDS[self.secret] + "."
    ''')
    message = rejected_by(source, "hint")
    assert "gives the answer away" in message


def test_an_out_of_contract_reward_on_a_path_only_a_shortcut_reaches_is_caught():
    source = variant(CHECK='if guess == "0":\n            return "Odd.", 7.0, True, False, {}')
    message = rejected_by(source, "values")
    assert "never raise and must return values within the contract" in message


def test_a_pure_game_of_chance_stays_valid_with_its_floor_at_chance():
    # Three cups, nothing to see: every policy scores the same, so the floor is chance and
    # every chance-adjusted win rate (what the designer is paid on) is 0.
    source = textwrap.dedent('''
        import random
        from spadegym.program import extract_boxed

        class CupsEnv:
            """Cups: the ball is under cup 1, 2, 3 or 4. Answer \\\\boxed{N}; two tries."""

            max_turns = 2

            def reset(self, seed=None, options=None):
                self.rng = random.Random(seed)
                self.ball = self.rng.randrange(1, 5)
                self.table = self.rng.choice(["oak", "pine", "glass", "steel", "red", "blue"])
                self.tries = 0
                return (f"Cups 1, 2, 3, 4 on a {self.table} table. Where is the ball? "
                        "Answer \\\\boxed{N}."), {}

            def step(self, action):
                self.tries += 1
                if extract_boxed(action) == str(self.ball):
                    return "Found.", 1.0 if self.tries == 1 else 0.5, True, False, {}
                if self.tries >= 2:
                    return "Empty.", 0.0, True, False, {}
                return "Empty. Try again.", 0.0, False, False, {}

            def solution(self):
                return ["\\\\boxed{" + str(self.ball) + "}"]
    ''')
    report = validate(source, FAST)
    assert report.ok, report.feedback()
    assert 0.2 <= report.properties.floor <= 0.6  # a fair guesser: 1/4 + 3/4 * 1/3 * 0.5


def test_the_shortcut_check_can_be_turned_off():
    report = validate(
        variant(), ValidationConfig(fuzz_examples=5, check_env=False, shortcut_seeds=0)
    )
    assert report.ok and report.properties.floor is None


def test_fewer_than_eight_shortcut_seeds_are_refused():
    from spadegym.errors import ConfigError

    with pytest.raises(ConfigError, match="at least 8 seeds"):
        ValidationConfig(shortcut_seeds=4)


# -- the pieces --------------------------------------------------------------------------------


def test_listed_options_are_read_from_the_usual_layouts():
    assert listed_options("Which is the smallest: 80, 33, 95? Answer in \\boxed{N}.") == [
        "80",
        "33",
        "95",
    ]
    assert listed_options("What is 10 + 5? Choices: 17, 24, 25, 15. Answer.") == [
        "17",
        "24",
        "25",
        "15",
    ]
    assert listed_options("Pick one:\nA) red apple\nB) blue sky\nC) green") == [
        "red apple",
        "blue sky",
        "green",
    ]
    assert listed_options('Say "open" or "close".') == ["open", "close"]
    assert listed_options("Nothing to choose here.") == []


def test_numbers_keep_signs_and_decimals():
    assert numbers("Move -3 then 4.5 steps, not x2") == ["-3", "4.5"]


def test_the_reply_template_follows_the_solution():
    assert reply_template(["\\boxed{42}"]) == "\\boxed{{}}"
    assert reply_template(['<tool_call>{"name": "a"}</tool_call>', "<answer>7</answer>"]) == (
        "<answer>{}</answer>"
    )
    assert reply_template(["north"]) == BARE


def test_the_random_option_never_repeats_a_wrong_one():
    shortcut = RandomOption("random")
    play = Play("Pick: a, b, c.", template=BARE)
    seen = []
    for _ in range(3):
        reply = shortcut.reply(play)
        play.sent.append(reply)
        seen.append(reply)
    assert sorted(seen) == ["a", "b", "c"]


def test_each_option_in_turn_cycles():
    shortcut = ListedOption("cycle", which="in turn")
    play = Play("Pick: a, b, c.")
    replies = []
    for _ in range(4):
        replies.append(shortcut.reply(play))
        play.sent.append(replies[-1])
    assert replies == ["a", "b", "c", "a"]


def test_the_family_names_are_unique_and_findable():
    family = shortcut_family("\\boxed{{}}")
    names = [s.name for s in family]
    assert len(names) == len(set(names))
    assert by_name("a random listed option", "\\boxed{{}}").name == "a random listed option"
    with pytest.raises(KeyError, match="the shortcuts are"):
        by_name("nope")


def test_shortcut_seeds_cover_every_range_and_repeat_for_the_same_program():
    seeds = shortcut_seeds("code", 2 * len(SEED_RANGES))
    assert seeds == shortcut_seeds("code", 2 * len(SEED_RANGES))
    assert seeds != shortcut_seeds("other code", 2 * len(SEED_RANGES))
    for k, (_, low, high) in enumerate(SEED_RANGES):
        assert low <= seeds[k] < high
    assert max(seeds) >= 2**32  # a 63-bit seed is among them
