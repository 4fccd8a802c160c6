import random
from spadegym.program import extract_boxed


class NextTermEnv:
    """Continue the number pattern.

    The numbers are produced by a secret rule: a constant step, a ratio, or two steps taken in turn. Answer the
    next term with \\boxed{n}. Miss, and one more number is shown."""

    max_turns = 4
    skill = "Pattern_Recognition"

    def reset(self, seed=None, options=None):
        self.rng = random.Random(seed)
        start = self.rng.randint(1, 9)
        kind = self.rng.choice(["add", "mul", "alt"])
        a, b = self.rng.randint(2, 5), self.rng.randint(1, 4)
        self.terms = [start]
        for i in range(8):
            last = self.terms[-1]
            if kind == "add":
                self.terms.append(last + a)
            elif kind == "mul":
                self.terms.append(last * a)
            else:
                self.terms.append(last + a if i % 2 == 0 else last - b)
        self.shown = 5
        return f"Sequence: {self.terms[:self.shown]}. What comes next? Answer \\boxed{{n}}.", {}

    def step(self, action):
        text = (extract_boxed(action) or "").strip()
        if text.lstrip("-").isdigit() and int(text) == self.terms[self.shown]:
            return "Correct.", 1.0, True, False, {}
        self.shown += 1
        return f"No. Sequence: {self.terms[:self.shown]}. What comes next?", 0.0, False, False, {}

    def solution(self):
        return ["\\boxed{" + str(self.terms[self.shown]) + "}"]
