import random
from spadegym.program import extract_boxed


class AltStoneNimEnv:
    """Take the last stone in a game of Nim against a careful opponent.

    There are several piles of stones. On your turn take one or more stones from a single pile
    with \\boxed{pile count}. The opponent answers each move. Whoever takes the last stone wins."""

    max_turns = 20
    skill = "Mathematical_Reasoning"

    def reset(self, seed=None, options=None):
        self.qRng = random.Random(seed)
        while True:
            self.qPiles = [self.qRng.randint(1, 7) for q in range(3)]
            if self.qPiles[0] ^ self.qPiles[1] ^ self.qPiles[2]:
                break
        return self.qDescribe("Your move."), {}

    def qDescribe(self, qNote):
        qShown = ", ".join(f"pile {qI + 1}: {qN}" for qI, qN in enumerate(self.qPiles))
        return f"{qNote} Piles: {qShown}. Move with \\boxed{{pile count}}."

    def qOpponent(self):
        qTotal = 0
        for qN in self.qPiles:
            qTotal ^= qN
        for qI, qN in enumerate(self.qPiles):
            if qTotal and (qN ^ qTotal) < qN:
                self.qPiles[qI] = qN ^ qTotal
                return
        qI = max(range(len(self.qPiles)), key=lambda qJ: self.qPiles[qJ])
        self.qPiles[qI] -= 1

    def step(self, action):
        qParts = (extract_boxed(action) or "").split()
        if len(qParts) != 2 or not all(qP.isdigit() for qP in qParts):
            return self.qDescribe("Give a pile number and a count."), 0.0, False, False, {}
        qPile, qCount = int(qParts[0]) - 1, int(qParts[1])
        if not 0 <= qPile < len(self.qPiles) or not 1 <= qCount <= self.qPiles[qPile]:
            return self.qDescribe("That move is not possible."), 0.0, False, False, {}
        self.qPiles[qPile] -= qCount
        if sum(self.qPiles) == 0:
            return "You took the last stone. You win.", 1.0, True, False, {}
        self.qOpponent()
        if sum(self.qPiles) == 0:
            return "The opponent took the last stone. You lose.", 0.0, True, False, {}
        return self.qDescribe("The opponent moved."), 0.0, False, False, {}

    def solution(self):
        qSaved = list(self.qPiles)
        qMoves = []
        while sum(self.qPiles):
            qTotal = self.qPiles[0] ^ self.qPiles[1] ^ self.qPiles[2]
            qI = next(qK for qK, qN in enumerate(self.qPiles) if (qN ^ qTotal) < qN)
            qCount = self.qPiles[qI] - (self.qPiles[qI] ^ qTotal)
            qMoves.append("\\boxed{" + f"{qI + 1} {qCount}" + "}")
            self.qPiles[qI] -= qCount
            if sum(self.qPiles):
                self.qOpponent()
        self.qPiles = qSaved
        return qMoves
