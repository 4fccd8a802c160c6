import random
from spadegym.program import extract_boxed


class AltNextTermEnv:
    """Find the next term of a number sequence.

    A sequence follows a hidden rule (adding, multiplying or alternating steps). Answer the
    next term with \\boxed{n}. After a wrong answer you get one more term as a clue."""

    max_turns = 3
    skill = "Pattern_Recognition"

    def reset(self, seed=None, options=None):
        self.qRng = random.Random(seed)
        qStart = self.qRng.randint(1, 9)
        qKind = self.qRng.choice(["add", "mul", "alt"])
        qA, qB = self.qRng.randint(2, 5), self.qRng.randint(1, 4)
        self.qTerms = [qStart]
        for qI in range(8):
            qLast = self.qTerms[-1]
            if qKind == "add":
                self.qTerms.append(qLast + qA)
            elif qKind == "mul":
                self.qTerms.append(qLast * qA)
            else:
                self.qTerms.append(qLast + qA if qI % 2 == 0 else qLast - qB)
        self.qShown = 5
        return f"Sequence: {self.qTerms[:self.qShown]}. Next term? Answer \\boxed{{n}}.", {}

    def step(self, action):
        qText = (extract_boxed(action) or "").strip()
        if qText.lstrip("-").isdigit() and int(qText) == self.qTerms[self.qShown]:
            return "Correct.", 1.0, True, False, {}
        self.qShown += 1
        return f"No. Sequence: {self.qTerms[:self.qShown]}. Next term?", 0.0, False, False, {}

    def solution(self):
        return ["\\boxed{" + str(self.qTerms[self.qShown]) + "}"]
