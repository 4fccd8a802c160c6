import random

from spadegym.program import extract_boxed


class TowerDiscsEnv:
    """Solve the Tower of Hanoi.

    Rings sit on one rod; the other two are empty. Move the top disc of one peg to
    another with \\boxed{A C}. Never stack a big ring on a small one."""

    max_turns = 50

    def reset(self, seed=None, options=None):
        self.rng = random.Random(seed)
        self.discs = self.rng.randint(3, 5)
        self.start = self.rng.choice("ABC")
        self.goal = self.rng.choice([p for p in "ABC" if p != self.start])
        self.pegs = {p: [] for p in "ABC"}
        self.pegs[self.start] = list(range(self.discs, 0, -1))
        self.moves = 0
        return self.picture(f"Shift every ring from rod {self.start} to rod {self.goal}."), {}

    def picture(self, note):
        lines = [f"{name}: {' '.join(str(d) for d in stack) or '-'}" for name, stack in self.pegs.items()]
        return note + "\n" + "\n".join(lines) + "\nMove with \\boxed{FROM TO}."

    def step(self, action):
        parts = (extract_boxed(action) or "").upper().split()
        if len(parts) != 2 or parts[0] not in self.pegs or parts[1] not in self.pegs:
            return self.picture("Name two pegs."), 0.0, False, False, {}
        src, dst = self.pegs[parts[0]], self.pegs[parts[1]]
        if not src:
            return self.picture("That peg is empty."), 0.0, False, False, {}
        if dst and dst[-1] < src[-1]:
            return self.picture("A larger disc cannot go on a smaller one."), 0.0, False, False, {}
        dst.append(src.pop())
        self.moves += 1
        if len(self.pegs[self.goal]) == self.discs:
            return f"All rings moved after {self.moves} moves.", 1.0, True, False, {}
        return self.picture("Moved."), 0.0, False, False, {}

    def solution(self):
        out = []

        def solve(n, a, b, c):
            if n == 0:
                return
            solve(n - 1, a, c, b)
            out.append("\\boxed{" + a + " " + c + "}")
            solve(n - 1, b, a, c)

        spare = next(p for p in "ABC" if p not in (self.start, self.goal))
        solve(self.discs, self.start, spare, self.goal)
        return out
