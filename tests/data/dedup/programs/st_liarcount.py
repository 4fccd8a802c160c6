"""Islanders each claim how many liars live among them; how many are there?"""

import random

from spadegym.program import extract_boxed

NAMES = ["Ada", "Bram", "Cleo", "Dov", "Esme", "Finn", "Gus", "Hana", "Ivo", "Juno"]


def level_of(options, default):
    """The difficulty 1..5 in ``options``, else ``default``."""
    value = options.get("difficulty", default) if isinstance(options, dict) else default
    if isinstance(value, bool) or not isinstance(value, int):
        return default
    return min(5, max(1, value))


class LiarTallyEnv:
    """Liar Tally: each islander states a number of liars; deduce the true number.

    Knights tell the truth, knaves lie. Every islander says "exactly k of us are knaves". Only
    one count of knaves is consistent with all statements. Answer that count, e.g. \\boxed{3}.
    One try.
    """

    max_turns = 1
    skill = "Logical_Deduction"

    def reset(self, seed=None, options=None):
        self.rng = random.Random(seed)
        level = level_of(options, 2)
        n = 4 + level
        self.people = self.rng.sample(NAMES, n)
        while True:
            claims = [self.rng.randint(0, n) for _ in range(n)]
            fits = [k for k in range(n + 1) if sum(1 for c in claims if c != k) == k]
            if len(fits) == 1:
                break
        self.claims = claims
        self.answer = fits[0]
        return self.render(), {}

    def render(self):
        lines = [f"{p} says: exactly {c} of us are knaves." for p, c in zip(self.people, self.claims)]
        return ("Knights always tell the truth; knaves always lie.\n" + "\n".join(lines)
                + "\nHow many knaves are there? Answer \\boxed{k}.")

    def step(self, action):
        said = (extract_boxed(action) or "").strip()
        if said == str(self.answer):
            return "Correct. You win!", 1.0, True, False, {}
        return "Wrong count.", 0.0, True, False, {}

    def solution(self):
        return ["\\boxed{" + str(self.answer) + "}"]
