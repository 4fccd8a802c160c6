import random
from spadegym.program import extract_boxed


class OddNumberOutEnv:
    """Spot the number that breaks the pattern shared by the others.

    You see a list of numbers; all but one share a property (even, multiple of three, square,
    prime). Answer the position of the odd one out with \\boxed{i}, counting from 1."""

    max_turns = 2
    skill = "Pattern_Recognition"

    def reset(self, seed=None, options=None):
        self.rng = random.Random(seed)
        rules = {
            "even": lambda n: n % 2 == 0,
            "three": lambda n: n % 3 == 0,
            "square": lambda n: int(n ** 0.5) ** 2 == n,
        }
        name = self.rng.choice(sorted(rules))
        test = rules[name]
        members = [n for n in range(2, 100) if test(n)]
        others = [n for n in range(2, 100) if not test(n)]
        self.numbers = self.rng.sample(members, 5)
        self.position = self.rng.randrange(6)
        self.numbers.insert(self.position, self.rng.choice(others))
        return f"Numbers: {self.numbers}. Which position is the odd one out? \\boxed{{i}}", {}

    def step(self, action):
        text = (extract_boxed(action) or "").strip()
        if text.isdigit() and int(text) == self.position + 1:
            return "Right, that one breaks the pattern.", 1.0, True, False, {}
        return "No, look again at what the others share.", 0.0, False, False, {}

    def solution(self):
        return ["\\boxed{" + str(self.position + 1) + "}"]
