from spadegym.program import extract_boxed


class HanoiRingsEnv:
    """Tower of Hanoi: carry every ring from the left rod to the right rod.

    Rods are called A, B, C. Move one top ring per turn with \\boxed{A C} (from, to).
    A ring may only be placed on an empty rod or on a larger ring."""

    max_turns = 40

    def reset(self, seed=None, options=None):
        self.n = 3 + (seed or 0) % 3
        self.rods = [list(range(self.n, 0, -1)), [], []]
        return self.view() + "\nMove all rings to rod C.", {}

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
        if len(self.rods[2]) == self.n:
            return "Every ring is on rod C. Solved.", 1.0, True, False, {}
        return self.view(), 0.0, False, False, {}

    def solution(self):
        moves = []
        stack = [(self.n, "A", "C", "B", False)]
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
