import random

from spadegym.program import extract_boxed


class ClockShiftEnv:
    """Clock shift: where does the hand of an odd clock stop?

    A clock face numbered 0 to M - 1 starts at a given hour, then the hand moves forward and
    back by the shifts listed. Give the hour it stops at as \\boxed{N}. You have one answer.
    """

    max_turns = 1
    skill = "Mathematical_Reasoning"

    def reset(self, seed=None, options=None):
        self.rng = random.Random(seed)
        difficulty = 2
        if isinstance(options, dict) and options.get("difficulty") in (1, 2, 3, 4, 5):
            difficulty = options["difficulty"]
        self.hours = self.rng.randint(7, 12 + 6 * difficulty)
        self.start = self.rng.randrange(self.hours)
        self.shifts = [
            self.rng.choice([-1, 1]) * self.rng.randint(1, 3 * self.hours)
            for _ in range(1 + difficulty)
        ]
        self.answer = (self.start + sum(self.shifts)) % self.hours
        moves = ", ".join(("+" if s > 0 else "-") + str(abs(s)) for s in self.shifts)
        observation = (
            f"A clock face is numbered 0 to {self.hours - 1}. The hand starts at "
            f"{self.start} and moves by {moves} hours, in that order (+ is forward). "
            "Where does it stop? Answer with \\boxed{N}; you have one answer."
        )
        return observation, {"hours": self.hours}

    def step(self, action):
        guess = extract_boxed(action)
        if guess is None or not guess.strip().lstrip("-").isdigit():
            return "No answer in \\boxed{N}. The game is over.", 0.0, True, False, {}
        if int(guess.strip()) == self.answer:
            return "Right: the hand stops there.", 1.0, True, False, {}
        return f"Wrong: the hand stops at {self.answer}.", 0.0, True, False, {}

    def solution(self):
        return ["\\boxed{" + str(self.answer) + "}"]

    def hint(self):
        return "Add the shifts up first, then reduce the total modulo the number of hours."
