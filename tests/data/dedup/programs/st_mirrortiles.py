"""Complete a tile picture that is mirror-symmetric."""

import random

from spadegym.program import extract_boxed


def level_of(options, default):
    """The difficulty 1..5 in ``options``, else ``default``."""
    value = options.get("difficulty", default) if isinstance(options, dict) else default
    if isinstance(value, bool) or not isinstance(value, int):
        return default
    return min(5, max(1, value))


class MirrorTilesEnv:
    """Mirror Tiles: fill the blank tiles of a picture that mirrors itself.

    The picture is symmetric left-to-right (and at higher levels also top-to-bottom). Some
    tiles are blank (?). Fill each blank with its letter using the symmetry: \\boxed{fill R C X}
    puts letter X at row R, column C (from 1). Two wrong fills lose; fill all blanks to win.
    """

    max_turns = 14
    skill = "Pattern_Recognition"

    def reset(self, seed=None, options=None):
        self.rng = random.Random(seed)
        level = level_of(options, 2)
        self.rows = 4 + level // 2
        self.cols = 6
        both = level >= 4
        half = [[self.rng.choice("ABCD") for _ in range(3)] for _ in range(self.rows)]
        if both:
            for r in range(self.rows // 2):
                half[self.rows - 1 - r] = list(half[r])
        self.grid = [row + row[::-1] for row in half]
        cells = [(r, c) for r in range(self.rows) for c in range(3)]
        picks = self.rng.sample(cells, 3 + level)
        self.blanks = sorted((r, c if self.rng.random() < 0.5 else 5 - c) for r, c in picks)
        self.filled = set()
        self.misses = 0
        self.turn = 0
        self.done = False
        return self.render("A damaged picture."), {"turn": 0}

    def render(self, note):
        lines = [note, f"Turn {self.turn} of {self.max_turns}; wrong fills {self.misses} of 2."]
        for r in range(self.rows):
            row = ["?" if (r, c) in self.blanks and (r, c) not in self.filled else self.grid[r][c]
                   for c in range(self.cols)]
            lines.append(f"  {r + 1}: " + " ".join(row))
        lines.append("Action: \\boxed{fill R C X}.")
        return "\n".join(lines)

    def step(self, action):
        if self.done:
            return "Over.", 0.0, True, False, {"turn": self.turn}
        self.turn += 1
        words = (extract_boxed(action) or "").split()
        note = "Unreadable; use \\boxed{fill R C X}."
        if len(words) == 4 and words[0].lower() == "fill" and words[1].isdigit() and words[2].isdigit():
            r, c, x = int(words[1]) - 1, int(words[2]) - 1, words[3].upper()
            if (r, c) not in self.blanks or (r, c) in self.filled:
                note = "That tile is not blank."
            elif x == self.grid[r][c]:
                self.filled.add((r, c))
                note = "Right."
                if len(self.filled) == len(self.blanks):
                    self.done = True
                    return "Picture complete. You win!", 1.0, True, False, {"turn": self.turn}
            else:
                self.misses += 1
                note = "Wrong letter."
                if self.misses >= 2:
                    self.done = True
                    return "Two wrong fills. You lose.", 0.0, True, False, {"turn": self.turn}
        if self.turn >= self.max_turns:
            self.done = True
            return self.render(note + " Out of turns."), 0.0, True, False, {"turn": self.turn}
        return self.render(note), 0.0, False, False, {"turn": self.turn}

    def solution(self):
        return [f"\\boxed{{fill {r + 1} {c + 1} {self.grid[r][c]}}}" for r, c in self.blanks]
