"""Predict where a rover ends after a list of relative commands."""

import random

from spadegym.program import extract_boxed

HEADINGS = [(-1, 0), (0, 1), (1, 0), (0, -1)]
NAMES = ["north", "east", "south", "west"]


def level_of(options, default):
    """The difficulty 1..5 in ``options``, else ``default``."""
    value = options.get("difficulty", default) if isinstance(options, dict) else default
    if isinstance(value, bool) or not isinstance(value, int):
        return default
    return min(5, max(1, value))


class RoverLogEnv:
    """Rover Log: read a rover's command log and say where it stopped.

    The rover starts at a row and column facing a direction (north is up, rows grow southward).
    It turns left or right by 90 degrees or drives forward n squares on an open plain. Answer
    its final row, column and heading, e.g. \\boxed{3 -2 east}. Two tries.
    """

    max_turns = 2
    skill = "Spatial_Reasoning"

    def reset(self, seed=None, options=None):
        self.rng = random.Random(seed)
        level = level_of(options, 2)
        self.start = (self.rng.randint(-5, 5), self.rng.randint(-5, 5), self.rng.randrange(4))
        self.log = []
        for _ in range(4 + 2 * level):
            kind = self.rng.choice(["left", "right", "forward"])
            self.log.append(kind if kind != "forward" else f"forward {self.rng.randint(1, 5)}")
        r, c, h = self.start
        for cmd in self.log:
            if cmd == "left":
                h = (h + 3) % 4
            elif cmd == "right":
                h = (h + 1) % 4
            else:
                n = int(cmd.split()[1])
                r, c = r + HEADINGS[h][0] * n, c + HEADINGS[h][1] * n
        self.end = (r, c, NAMES[h])
        self.tries = 0
        return self.render("A rover log."), {"tries": 0}

    def render(self, note):
        r, c, h = self.start
        return (f"{note}\nStart: row {r}, column {c}, facing {NAMES[h]}.\nCommands: {'; '.join(self.log)}.\n"
                f"Answer \\boxed{{row column heading}}. Tries used {self.tries} of 2.")

    def step(self, action):
        self.tries += 1
        words = (extract_boxed(action) or "").lower().replace(",", " ").split()
        if len(words) == 3 and words[0] == str(self.end[0]) and words[1] == str(self.end[1]) and words[2] == self.end[2]:
            return "Exactly where it stopped. You win!", 1.0, True, False, {"tries": self.tries}
        if self.tries >= 2:
            return "Out of tries.", 0.0, True, False, {"tries": self.tries}
        return self.render("Not where it stopped."), 0.0, False, False, {"tries": self.tries}

    def solution(self):
        return [f"\\boxed{{{self.end[0]} {self.end[1]} {self.end[2]}}}"]
