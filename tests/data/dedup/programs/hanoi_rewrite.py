import random

from spadegym.program import extract_boxed


class HanoiRingsEnv:
    """Tower of Hanoi: carry every ring from its rod to the named target rod.

    Rods are called A, B, C. Move one top ring per turn with \\boxed{A C} (from, to).
    A ring may only be placed on an empty rod or on a larger ring."""

    max_turns = 40

    def reset(self, seed=None, options=None):
        rng = random.Random(seed)
        self.n = rng.randint(3, 5)
        first = rng.choice("ABC")
        self.target = rng.choice([r for r in "ABC" if r != first])
        self.rods = [[], [], []]
        self.rods["ABC".index(first)] = list(range(self.n, 0, -1))
        self.first = first
        return self.view() + f"\nMove all rings to rod {self.target}.", {}

    def view(self):
        return "\n".join("ABC"[i] + ": " + str(rod) for i, rod in enumerate(self.rods))

    def step(self, action):
        text = extract_boxed(action) or ""
        letters = [ch for ch in text.upper() if ch in "ABC"]
        if len(letters) != 2:
            return "Write two rod names, e.g. \\boxed{A C}.", 0.0, False, False, {}
        src = self.rods["ABC".index(letters[0])]
        dst = self.rods["ABC".index(letters[1])]
        if not src or (dst and dst[-1] < src[-1]):
            return "Illegal move.\n" + self.view(), 0.0, False, False, {}
        dst.append(src.pop())
        if len(self.rods["ABC".index(self.target)]) == self.n:
            return f"Every ring is on rod {self.target}. Solved.", 1.0, True, False, {}
        return self.view(), 0.0, False, False, {}

    def solution(self):
        moves = []
        spare = [r for r in "ABC" if r not in (self.first, self.target)][0]
        stack = [(self.n, self.first, self.target, spare, False)]
        while stack:
            n, a, c, b, ready = stack.pop()
            if n == 0:
                continue
            if ready:
                moves.append("\\boxed{" + a + " " + c + "}")
                continue
            stack.append((n - 1, b, c, a, False))
            stack.append((n, a, c, b, True))
            stack.append((n - 1, a, b, c, False))
        return moves
