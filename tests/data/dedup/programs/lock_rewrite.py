import random
import re


class ComboLockEnv:
    """Open a lock with a secret three-digit code.

    Every wrong code tells you how many digits are in the right position.
    Write your attempt as \\boxed{ddd}; the lock opens on the right code."""

    max_turns = 8
    skill = "Logical_Deduction"

    def reset(self, seed=None, options=None):
        rng = random.Random(seed)
        self.secret = [rng.randint(0, 9) for _ in range(3)]
        self.tries = 0
        return "Three-digit combination lock. Enter a code as \\boxed{ddd}.", {}

    def step(self, action):
        self.tries += 1
        found = re.findall(r"\\boxed\{(\d{3})\}", action)
        if not found:
            return "The code must be three digits inside \\boxed{}.", 0.0, False, False, {}
        digits = [int(ch) for ch in found[-1]]
        if digits == self.secret:
            return "The lock clicks open!", 1.0, True, False, {}
        hits = 0
        for mine, theirs in zip(digits, self.secret):
            if mine == theirs:
                hits += 1
        return f"{hits} of your digits are in the correct position.", 0.0, False, False, {}

    def solution(self):
        return ["\\boxed{" + "".join(map(str, self.secret)) + "}"]

    def hint(self):
        return "Vary a single digit per attempt and compare the counts."
