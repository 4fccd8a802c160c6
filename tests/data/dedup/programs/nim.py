import random
from spadegym.program import extract_boxed


class StoneNimEnv:
    """Take the last stone in a game of Nim against a careful opponent.

    There are several piles of stones. On your turn take one or more stones from a single pile
    with \\boxed{pile count}. The opponent answers each move. Whoever takes the last stone wins."""

    max_turns = 20
    skill = "Mathematical_Reasoning"

    def reset(self, seed=None, options=None):
        self.rng = random.Random(seed)
        while True:
            self.piles = [self.rng.randint(1, 7) for _ in range(3)]
            if self.piles[0] ^ self.piles[1] ^ self.piles[2]:
                break
        return self.describe("Your move."), {}

    def describe(self, note):
        shown = ", ".join(f"pile {i + 1}: {n}" for i, n in enumerate(self.piles))
        return f"{note} Piles: {shown}. Move with \\boxed{{pile count}}."

    def opponent(self):
        total = 0
        for n in self.piles:
            total ^= n
        for i, n in enumerate(self.piles):
            if total and (n ^ total) < n:
                self.piles[i] = n ^ total
                return
        i = max(range(len(self.piles)), key=lambda j: self.piles[j])
        self.piles[i] -= 1

    def step(self, action):
        parts = (extract_boxed(action) or "").split()
        if len(parts) != 2 or not all(p.isdigit() for p in parts):
            return self.describe("Give a pile number and a count."), 0.0, False, False, {}
        pile, count = int(parts[0]) - 1, int(parts[1])
        if not 0 <= pile < len(self.piles) or not 1 <= count <= self.piles[pile]:
            return self.describe("That move is not possible."), 0.0, False, False, {}
        self.piles[pile] -= count
        if sum(self.piles) == 0:
            return "You took the last stone. You win.", 1.0, True, False, {}
        self.opponent()
        if sum(self.piles) == 0:
            return "The opponent took the last stone. You lose.", 0.0, True, False, {}
        return self.describe("The opponent moved."), 0.0, False, False, {}

    def solution(self):
        saved = list(self.piles)
        moves = []
        while sum(self.piles):
            total = self.piles[0] ^ self.piles[1] ^ self.piles[2]
            i = next(k for k, n in enumerate(self.piles) if (n ^ total) < n)
            count = self.piles[i] - (self.piles[i] ^ total)
            moves.append("\\boxed{" + f"{i + 1} {count}" + "}")
            self.piles[i] -= count
            if sum(self.piles):
                self.opponent()
        self.piles = saved
        return moves
