import random
from spadegym.program import extract_boxed


class NumberTargetEnv:
    """Reach the target number by combining the numbers you are given.

    Each turn pick two of the available numbers and an operation with \\boxed{a op b}
    (op is +, -, * or /, division only when exact). The result replaces the two numbers.
    You win when the target appears."""

    max_turns = 5
    skill = "Mathematical_Reasoning"

    def reset(self, seed=None, options=None):
        self.rng = random.Random(seed)
        self.numbers = [self.rng.randint(1, 10) for _ in range(4)]
        a, b, c, d = self.numbers
        self.plan = [f"{a} + {b}", f"{a + b} * {c}", f"{(a + b) * c} - {d}"]
        self.target = (a + b) * c - d
        return self.show("Start."), {}

    def show(self, note):
        return f"{note} Numbers: {self.numbers}. Target: {self.target}. Combine with \\boxed{{a op b}}."

    def step(self, action):
        parts = (extract_boxed(action) or "").split()
        if len(parts) != 3 or not parts[0].lstrip("-").isdigit() or not parts[2].lstrip("-").isdigit():
            return self.show("Write two numbers and an operation."), 0.0, False, False, {}
        a, op, b = int(parts[0]), parts[1], int(parts[2])
        pool = list(self.numbers)
        if a not in pool:
            return self.show(f"{a} is not available."), 0.0, False, False, {}
        pool.remove(a)
        if b not in pool:
            return self.show(f"{b} is not available."), 0.0, False, False, {}
        pool.remove(b)
        if op == "+":
            value = a + b
        elif op == "-":
            value = a - b
        elif op == "*":
            value = a * b
        elif op == "/" and b != 0 and a % b == 0:
            value = a // b
        else:
            return self.show("That operation is not allowed."), 0.0, False, False, {}
        self.numbers = pool + [value]
        if value == self.target:
            return f"{value}: target reached.", 1.0, True, False, {}
        return self.show(f"You made {value}."), 0.0, False, False, {}

    def solution(self):
        return ["\\boxed{" + step + "}" for step in self.plan]
