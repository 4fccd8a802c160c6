from spadegym.program import extract_boxed
import random

class AltLockPickEnv:
    """Pick a combination lock by listening to the clicks.

    A 3-digit lock: each guess tells you how many digits are in the right place.
    Answer with \\boxed{ddd}. You win when the lock opens."""

    max_turns = 8
    skill = "Logical_Deduction"

    def reset(self, seed=None, options=None):
        self.qRng = random.Random(seed)
        self.qCode = "".join(str(self.qRng.randrange(10)) for q in range(3))
        self.qTurn = 0
        return "A 3-digit lock. Guess with \\boxed{ddd}.", {}

    def step(self, action):
        self.qTurn = self.qTurn + 1
        qGuess = extract_boxed(action)
        if qGuess is None or len(qGuess) != 3 or not qGuess.isdigit():
            return "Answer with three digits in \\boxed{}.", 0.0, False, False, {}
        if qGuess == self.qCode:
            return "Click. The lock opens.", 1.0, True, False, {}
        qRight = sum(1 for qA, qB in zip(qGuess, self.qCode) if qA == qB)
        return f"{qRight} digit(s) in the right place.", 0.0, False, False, {}

    def solution(self):
        return ["\\boxed{" + self.qCode + "}"]

    def hint(self):
        return "Change one digit at a time and watch the count."
