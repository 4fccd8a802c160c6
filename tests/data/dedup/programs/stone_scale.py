import random
from spadegym.program import extract_boxed


class StoneScaleEnv:
    """Find the one heavy stone among twelve with as few weighings as possible.

    Put stones on a balance with \\boxed{weigh 1,2,3 vs 4,5,6}; it tells you which side is
    heavier. When you know, answer \\boxed{heavy 7}. You have three weighings."""

    max_turns = 4
    skill = "Logical_Deduction"

    def reset(self, seed=None, options=None):
        self.rng = random.Random(seed)
        self.heavy = self.rng.randint(1, 12)
        self.weighings = 0
        return "Twelve stones, one heavier than the rest. Weigh or answer.", {}

    def step(self, action):
        text = (extract_boxed(action) or "").strip()
        if text.startswith("heavy"):
            guess = text[5:].strip()
            if guess.isdigit() and int(guess) == self.heavy:
                return "Correct: that is the heavy stone.", 1.0, True, False, {}
            return "Wrong stone.", 0.0, True, False, {}
        if not text.startswith("weigh") or " vs " not in text:
            return "Write \\boxed{weigh a,b vs c,d} or \\boxed{heavy n}.", 0.0, False, False, {}
        left, right = text[5:].split(" vs ")
        try:
            lhs = {int(x) for x in left.split(",")}
            rhs = {int(x) for x in right.split(",")}
        except ValueError:
            return "Stones are numbered 1 to 12.", 0.0, False, False, {}
        if self.weighings >= 3:
            return "No weighings left: answer now.", 0.0, False, False, {}
        self.weighings += 1
        if self.heavy in lhs:
            result = "The left side goes down."
        elif self.heavy in rhs:
            result = "The right side goes down."
        else:
            result = "The scale balances."
        return f"{result} Weighings left: {3 - self.weighings}.", 0.0, False, False, {}

    def solution(self):
        return ["\\boxed{heavy " + str(self.heavy) + "}"]
