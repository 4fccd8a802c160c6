"""Undo a single alphabet shift to read a hidden word."""

import random
import string

from spadegym.program import extract_boxed

WORDS = ("APPLE RIVER STONE CLOUD TIGER CANDLE MARKET SILVER GARDEN PLANET ROCKET WIZARD "
         "HAMMER TUNNEL BASKET KETTLE").split()


def level_of(options, default):
    """The difficulty 1..5 in ``options``, else ``default``."""
    value = options.get("difficulty", default) if isinstance(options, dict) else default
    if isinstance(value, bool) or not isinstance(value, int):
        return default
    return min(5, max(1, value))


class ShiftedWordEnv:
    """Shifted Word: each letter of a word was moved the same number of places in the alphabet.

    You see the shifted word and, as a clue, one pair of plain and shifted letters (from
    difficulty 3, no clue). Answer the original word, e.g. \\boxed{APPLE}. Two tries.
    """

    max_turns = 2
    skill = "Pattern_Recognition"

    def reset(self, seed=None, options=None):
        self.rng = random.Random(seed)
        level = level_of(options, 2)
        self.word = self.rng.choice(WORDS)
        self.shift = self.rng.randint(1, 25)
        self.coded = "".join(string.ascii_uppercase[(ord(c) - 65 + self.shift) % 26] for c in self.word)
        self.clue = level <= 2
        self.tries = 0
        return self.render("A shifted word."), {"tries": 0}

    def render(self, note):
        clue = f" Clue: {self.word[0]} became {self.coded[0]}." if self.clue else ""
        return (f"{note}\nShifted word: {self.coded}.{clue}\nCandidate words: {' '.join(WORDS)}\n"
                f"Answer the original word. Tries used {self.tries} of 2.")

    def step(self, action):
        self.tries += 1
        said = (extract_boxed(action) or "").strip().upper()
        if said == self.word:
            return "Decoded. You win!", 1.0, True, False, {"tries": self.tries}
        if self.tries >= 2:
            return "Out of tries.", 0.0, True, False, {"tries": self.tries}
        return self.render("Not that word."), 0.0, False, False, {"tries": self.tries}

    def solution(self):
        return ["\\boxed{" + self.word + "}"]
