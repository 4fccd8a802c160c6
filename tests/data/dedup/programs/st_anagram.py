"""Unscramble the letters of several words from a list."""

import random

from spadegym.program import extract_boxed

WORDS = ("APPLE BANANA CHERRY LEMON MANGO PEACH GRAPE MELON RIVER OCEAN STORM CLOUD CASTLE "
         "BRIDGE TOWER GARDEN FOREST VALLEY PENCIL LETTER PAPER MARKET RABBIT KITTEN TIGER ZEBRA").split()


def level_of(options, default):
    """The difficulty 1..5 in ``options``, else ``default``."""
    value = options.get("difficulty", default) if isinstance(options, dict) else default
    if isinstance(value, bool) or not isinstance(value, int):
        return default
    return min(5, max(1, value))


class ScrambleBoardEnv:
    """Scramble Board: each line is a word with its letters shuffled; restore the words.

    Answer one line per turn with \\boxed{solve I WORD}. A wrong word costs one of two lives.
    Restore every line to win.
    """

    max_turns = 10
    skill = "Pattern_Recognition"

    def reset(self, seed=None, options=None):
        self.rng = random.Random(seed)
        level = level_of(options, 2)
        self.words = self.rng.sample(WORDS, 2 + level)
        self.scrambled = []
        for word in self.words:
            letters = list(word)
            while "".join(letters) == word:
                self.rng.shuffle(letters)
            self.scrambled.append("".join(letters))
        self.solved = set()
        self.lives = 2
        self.turn = 0
        self.done = False
        return self.render("Unscramble the board."), {"turn": 0}

    def render(self, note):
        lines = [note, f"Lives {self.lives}. Turn {self.turn} of {self.max_turns}."]
        for i, s in enumerate(self.scrambled):
            lines.append(f"  {i + 1}. {s}" + (f" = {self.words[i]}" if i in self.solved else ""))
        lines.append("Answer \\boxed{solve I WORD}.")
        return "\n".join(lines)

    def step(self, action):
        if self.done:
            return "Over.", 0.0, True, False, {"turn": self.turn}
        self.turn += 1
        words = (extract_boxed(action) or "").split()
        note = "Unreadable; use \\boxed{solve I WORD}."
        if len(words) == 3 and words[0].lower() == "solve" and words[1].isdigit() and len(words[1]) < 3:
            i = int(words[1]) - 1
            if 0 <= i < len(self.words) and i not in self.solved:
                if words[2].upper() == self.words[i]:
                    self.solved.add(i)
                    note = "Right."
                    if len(self.solved) == len(self.words):
                        self.done = True
                        return "Board cleared. You win!", 1.0, True, False, {"turn": self.turn}
                else:
                    self.lives -= 1
                    note = "Wrong word."
                    if self.lives == 0:
                        self.done = True
                        return "No lives left. You lose.", 0.0, True, False, {"turn": self.turn}
        if self.turn >= self.max_turns:
            self.done = True
            return self.render(note + " Out of turns."), 0.0, True, False, {"turn": self.turn}
        return self.render(note), 0.0, False, False, {"turn": self.turn}

    def solution(self):
        return [f"\\boxed{{solve {i + 1} {w}}}" for i, w in enumerate(self.words) if i not in self.solved]
