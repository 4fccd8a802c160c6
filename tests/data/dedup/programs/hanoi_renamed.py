import random

from spadegym.program import extract_boxed


class AltTowerDiscsEnv:
    """Move the tower of discs to the target peg, never putting a disc on a smaller one.

    Three pegs A, B and C; all discs start on one of them. Move the top disc of one peg to
    another with \\boxed{A C}. A larger disc may never rest on a smaller disc."""

    max_turns = 40

    def reset(self, seed=None, options=None):
        self.qRng = random.Random(seed)
        self.qDiscs = self.qRng.randint(3, 5)
        self.qStart = self.qRng.choice("ABC")
        self.qGoal = self.qRng.choice([qP for qP in "ABC" if qP != self.qStart])
        self.qPegs = {qP: [] for qP in "ABC"}
        self.qPegs[self.qStart] = list(range(self.qDiscs, 0, -1))
        self.qMoves = 0
        return self.qPicture(f"Move the tower from {self.qStart} to {self.qGoal}."), {}

    def qPicture(self, qNote):
        qLines = [f"{qName}: {' '.join(str(qD) for qD in qStack) or '-'}" for qName, qStack in self.qPegs.items()]
        return qNote + "\n" + "\n".join(qLines) + "\nMove with \\boxed{FROM TO}."

    def step(self, action):
        qParts = (extract_boxed(action) or "").upper().split()
        if len(qParts) != 2 or qParts[0] not in self.qPegs or qParts[1] not in self.qPegs:
            return self.qPicture("Name two pegs."), 0.0, False, False, {}
        qSrc, qDst = self.qPegs[qParts[0]], self.qPegs[qParts[1]]
        if not qSrc:
            return self.qPicture("That peg is empty."), 0.0, False, False, {}
        if qDst and qDst[-1] < qSrc[-1]:
            return self.qPicture("A larger disc cannot go on a smaller one."), 0.0, False, False, {}
        qDst.append(qSrc.pop())
        self.qMoves += 1
        if len(self.qPegs[self.qGoal]) == self.qDiscs:
            return f"Tower moved in {self.qMoves} moves.", 1.0, True, False, {}
        return self.qPicture("Moved."), 0.0, False, False, {}

    def solution(self):
        qOut = []

        def qSolve(qN, qA, qB, qC):
            if qN == 0:
                return
            qSolve(qN - 1, qA, qC, qB)
            qOut.append("\\boxed{" + qA + " " + qC + "}")
            qSolve(qN - 1, qB, qA, qC)

        qSpare = next(qP for qP in "ABC" if qP not in (self.qStart, self.qGoal))
        qSolve(self.qDiscs, self.qStart, qSpare, self.qGoal)
        return qOut
