from spadegym.program import extract_boxed
import random

class LockPickEnv:
    """Crack a three-digit padlock.

    After every attempt you learn how many of your digits sit in the correct slot.
    Answer with \\boxed{ddd}. The padlock springs open when you hit the code."""

    max_turns = 10
    skill = "Logical_Deduction"

    def reset(self, seed=None, options=None):
        self.rng = random.Random(seed)
        self.code = "".join(str(self.rng.randrange(10)) for _ in range(3))
        self.turn = 0
        return "A padlock with three digits. Try a code with \\boxed{ddd}.", {}

    def step(self, action):
        self.turn = self.turn + 1
        guess = extract_boxed(action)
        if guess is None or len(guess) != 3 or not guess.isdigit():
            return "Answer with three digits in \\boxed{}.", 0.0, False, False, {}
        if guess == self.code:
            return "The shackle pops open.", 1.0, True, False, {}
        right = sum(1 for a, b in zip(guess, self.code) if a == b)
        return f"{right} digit(s) correctly placed.", 0.0, False, False, {}

    def solution(self):
        return ["\\boxed{" + self.code + "}"]

    def hint(self):
        return "Change one digit at a time and watch the count."
