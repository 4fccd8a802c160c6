"""Solve a linear congruence to open a lock."""

import random

from spadegym.program import extract_boxed

PRIMES = [11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47, 53, 59, 61, 67, 71, 73, 79, 83, 89, 97]


def level_of(options, default):
    """The difficulty 1..5 in ``options``, else ``default``."""
    value = options.get("difficulty", default) if isinstance(options, dict) else default
    if isinstance(value, bool) or not isinstance(value, int):
        return default
    return min(5, max(1, value))


class CongruenceLockEnv:
    """Congruence Lock: the lock opens at the x with a * x + b = c (mod p).

    The lock shows a, b, c and the prime p. Find the residue x in 0..p-1 and answer it, e.g.
    \\boxed{12}. Three tries.
    """

    max_turns = 3
    skill = "Mathematical_Reasoning"

    def reset(self, seed=None, options=None):
        self.rng = random.Random(seed)
        level = level_of(options, 2)
        self.p = self.rng.choice(PRIMES[: 6 + 3 * level])
        self.a = self.rng.randrange(2, self.p)
        self.b = self.rng.randrange(0, self.p)
        self.x = self.rng.randrange(0, self.p)
        self.c = (self.a * self.x + self.b) % self.p
        self.tries = 0
        return self.render("The lock glows."), {"tries": 0}

    def render(self, note):
        return (f"{note}\nFind x with {self.a} * x + {self.b} = {self.c} (mod {self.p}), 0 <= x < {self.p}.\n"
                f"Answer \\boxed{{x}}. Tries used {self.tries} of 3.")

    def step(self, action):
        self.tries += 1
        said = (extract_boxed(action) or "").strip()
        if said == str(self.x):
            return "Click: open. You win!", 1.0, True, False, {"tries": self.tries}
        if self.tries >= 3:
            return "Locked for good.", 0.0, True, False, {"tries": self.tries}
        return self.render("Wrong residue."), 0.0, False, False, {"tries": self.tries}

    def solution(self):
        return ["\\boxed{" + str(self.x) + "}"]
