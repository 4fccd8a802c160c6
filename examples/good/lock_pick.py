# The contract's own example (docs/CONTRACT.md section 1), kept verbatim.
# ruff: noqa: I001, B905
# fmt: off
from spadegym.program import extract_boxed   # optional helpers, see section 5
import random

class LockPickEnv:
    """Pick a combination lock by listening to the clicks.

    A 3-digit lock: each guess tells you how many digits are in the right place.
    Answer with \\boxed{ddd}. You win when the lock opens."""

    max_turns = 8            # the episode is truncated after this many steps (1..100)
    skill = "Logical_Deduction"   # optional free-text tag

    def reset(self, seed=None, options=None):
        self.rng = random.Random(seed)
        self.code = "".join(str(self.rng.randrange(10)) for _ in range(3))
        self.turn = 0
        return "A 3-digit lock. Guess with \\boxed{ddd}.", {}

    def step(self, action):
        self.turn = self.turn + 1
        guess = extract_boxed(action)
        if guess is None or len(guess) != 3 or not guess.isdigit():
            return "Answer with three digits in \\boxed{}.", 0.0, False, False, {}
        if guess == self.code:
            return "Click. The lock opens.", 1.0, True, False, {}
        right = sum(1 for a, b in zip(guess, self.code) if a == b)
        return f"{right} digit(s) in the right place.", 0.0, False, False, {}

    def solution(self):
        return ["\\boxed{" + self.code + "}"]

    def hint(self):
        return "Change one digit at a time and watch the count."
