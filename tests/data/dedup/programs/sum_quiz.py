import random
from spadegym.program import extract_boxed


class MentalSumsEnv:
    """Answer a run of arithmetic questions without a mistake.

    Each turn shows one question like 17 + 25 or 9 * 7. Answer with \\boxed{n}. Five correct
    answers in a row win; a wrong answer ends the game."""

    max_turns = 5
    skill = "Mathematical_Reasoning"

    def reset(self, seed=None, options=None):
        self.rng = random.Random(seed)
        self.streak = 0
        self.questions = [self.draw() for _ in range(5)]
        self.ask()
        return f"Question 1: {self.question} = ?  Answer with \\boxed{{n}}.", {}

    def draw(self):
        a, b = self.rng.randint(2, 30), self.rng.randint(2, 30)
        op = self.rng.choice(["+", "-", "*"])
        return f"{a} {op} {b}", a + b if op == "+" else (a - b if op == "-" else a * b)

    def ask(self):
        self.question, self.answer = self.questions[self.streak]

    def step(self, action):
        reply = (extract_boxed(action) or "").strip()
        if not reply.lstrip("-").isdigit() or int(reply) != self.answer:
            return f"Wrong: {self.question} = {self.answer}.", 0.0, True, False, {}
        self.streak += 1
        if self.streak == 5:
            return "Five in a row. You win.", 1.0, True, False, {}
        self.ask()
        return f"Correct. Question {self.streak + 1}: {self.question} = ?", 0.0, False, False, {}

    def solution(self):
        return ["\\boxed{" + str(answer) + "}" for _, answer in self.questions[self.streak:]]
