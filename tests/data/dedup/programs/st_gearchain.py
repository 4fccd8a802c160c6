"""Work out how far the last gear of a gear train turns."""

import random

from spadegym.program import extract_boxed


def level_of(options, default):
    """The difficulty 1..5 in ``options``, else ``default``."""
    value = options.get("difficulty", default) if isinstance(options, dict) else default
    if isinstance(value, bool) or not isinstance(value, int):
        return default
    return min(5, max(1, value))


class GearTrainQuizEnv:
    """Gear Train Quiz: how many turns does the last gear make?

    A chain of meshed gears is listed with their tooth counts. The first gear turns a given
    number of times; meshed gears turn in opposite directions and the turns scale by the ratio
    of teeth. Answer the signed number of turns of the last gear as a fraction or integer
    (clockwise positive), e.g. \\boxed{-9/2}. You have three tries.
    """

    max_turns = 3
    skill = "Mathematical_Reasoning"

    def reset(self, seed=None, options=None):
        self.rng = random.Random(seed)
        level = level_of(options, 2)
        self.teeth = [self.rng.choice([8, 10, 12, 15, 16, 20, 24, 30, 36]) for _ in range(2 + level)]
        self.turns = self.rng.randint(2, 12)
        self.tries = 0
        self.done = False
        return self.render("A gear train."), {"tries": 0}

    def answer(self):
        sign = 1 if len(self.teeth) % 2 == 1 else -1
        num, den = self.turns * self.teeth[0], self.teeth[-1]
        a, b = num, den
        while b:
            a, b = b, a % b
        num, den = num // a, den // a
        return f"{sign * num}" if den == 1 else f"{sign * num}/{den}"

    def render(self, note):
        chain = " -> ".join(f"{t} teeth" for t in self.teeth)
        return (f"{note}\nGears in mesh: {chain}.\nThe first gear turns {self.turns} times clockwise.\n"
                "How many turns does the last gear make (clockwise positive)? Answer \\boxed{p/q} "
                f"in lowest terms or \\boxed{{n}}. Tries used {self.tries} of 3.")

    def step(self, action):
        if self.done:
            return "Over.", 0.0, True, False, {"tries": self.tries}
        self.tries += 1
        said = (extract_boxed(action) or "").replace(" ", "")
        if said == self.answer():
            self.done = True
            return "Correct. You win!", 1.0, True, False, {"tries": self.tries}
        if self.tries >= 3:
            self.done = True
            return "Wrong again. Out of tries.", 0.0, True, False, {"tries": self.tries}
        return self.render(f"'{said[:20]}' is not right."), 0.0, False, False, {"tries": self.tries}

    def solution(self):
        return ["\\boxed{" + self.answer() + "}"]
