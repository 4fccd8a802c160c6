"""Fill the missing term inside an integer sequence."""

import random

from spadegym.program import extract_boxed


def level_of(options, default):
    """The difficulty 1..5 in ``options``, else ``default``."""
    value = options.get("difficulty", default) if isinstance(options, dict) else default
    if isinstance(value, bool) or not isinstance(value, int):
        return default
    return min(5, max(1, value))


class SequenceGapEnv:
    """Sequence Gap: one term in the middle of a sequence is hidden; give it.

    The terms follow one rule (arithmetic, quadratic or a two-term recurrence). One term is
    shown as ?. Answer the missing value, e.g. \\boxed{42}. Two tries.
    """

    max_turns = 2
    skill = "Pattern_Recognition"

    def reset(self, seed=None, options=None):
        self.rng = random.Random(seed)
        level = level_of(options, 2)
        kind = self.rng.choice(["arithmetic", "quadratic", "recurrence"][: 1 + min(2, level)])
        n = 7
        if kind == "arithmetic":
            a, d = self.rng.randint(-10, 20), self.rng.choice([-7, -4, -3, 3, 5, 6, 9])
            self.terms = [a + d * k for k in range(n)]
        elif kind == "quadratic":
            a, b = self.rng.randint(1, 3), self.rng.randint(-5, 5)
            self.terms = [a * k * k + b * k for k in range(1, n + 1)]
        else:
            self.terms = [self.rng.randint(1, 4), self.rng.randint(2, 6)]
            while len(self.terms) < n:
                self.terms.append(self.terms[-1] + self.terms[-2])
        self.hole = self.rng.randint(2, n - 2)
        self.tries = 0
        return self.render("A sequence with a gap."), {"tries": 0}

    def render(self, note):
        shown = ", ".join("?" if k == self.hole else str(t) for k, t in enumerate(self.terms))
        return f"{note}\nSequence: {shown}\nAnswer the missing term. Tries used {self.tries} of 2."

    def step(self, action):
        self.tries += 1
        said = (extract_boxed(action) or "").strip()
        if said == str(self.terms[self.hole]):
            return "Correct. You win!", 1.0, True, False, {"tries": self.tries}
        if self.tries >= 2:
            return "Out of tries.", 0.0, True, False, {"tries": self.tries}
        return self.render("Not that value."), 0.0, False, False, {"tries": self.tries}

    def solution(self):
        return ["\\boxed{" + str(self.terms[self.hole]) + "}"]
