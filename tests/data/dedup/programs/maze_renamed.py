import random
from spadegym.program import extract_boxed


class AltMazeWalkEnv:
    """Walk out of a walled maze one step at a time.

    You are @ and the exit is E on a small grid with walls #. Move with \\boxed{N}, \\boxed{S},
    \\boxed{E} or \\boxed{W}. Reach the exit before you run out of steps."""

    max_turns = 30
    skill = "Spatial_Reasoning"

    def reset(self, seed=None, options=None):
        self.qRng = random.Random(seed)
        self.qSize = 6
        while True:
            self.qPos = (self.qRng.randrange(6), 0)
            self.qGoal = (self.qRng.randrange(6), 5)
            self.qWalls = set()
            for q in range(12):
                self.qWalls.add((self.qRng.randrange(6), self.qRng.randrange(1, 5)))
            if self.solution():
                break
        return self.qRender("Find the exit."), {}

    def qRender(self, qNote):
        qRows = []
        for qR in range(self.qSize):
            qRow = ""
            for qC in range(self.qSize):
                if (qR, qC) == self.qPos:
                    qRow += "@"
                elif (qR, qC) == self.qGoal:
                    qRow += "E"
                else:
                    qRow += "#" if (qR, qC) in self.qWalls else "."
            qRows.append(qRow)
        return qNote + "\n" + "\n".join(qRows) + "\nMove with \\boxed{N/S/E/W}."

    def step(self, action):
        qMoves = {"N": (-1, 0), "S": (1, 0), "E": (0, 1), "W": (0, -1)}
        qMove = (extract_boxed(action) or "").strip().upper()
        if qMove not in qMoves:
            return self.qRender("Unknown move."), 0.0, False, False, {}
        qDr, qDc = qMoves[qMove]
        qNxt = (self.qPos[0] + qDr, self.qPos[1] + qDc)
        if not (0 <= qNxt[0] < self.qSize and 0 <= qNxt[1] < self.qSize) or qNxt in self.qWalls:
            return self.qRender("A wall blocks the way."), 0.0, False, False, {}
        self.qPos = qNxt
        if self.qPos == self.qGoal:
            return "You step through the exit.", 1.0, True, False, {}
        return self.qRender("You move."), 0.0, False, False, {}

    def solution(self):
        from collections import deque
        qMoves = {"N": (-1, 0), "S": (1, 0), "E": (0, 1), "W": (0, -1)}
        qQueue = deque([(self.qPos, [])])
        qSeen = {self.qPos}
        while qQueue:
            qCell, qPath = qQueue.popleft()
            if qCell == self.qGoal:
                return ["\\boxed{" + qM + "}" for qM in qPath]
            for qName, (qDr, qDc) in qMoves.items():
                qNxt = (qCell[0] + qDr, qCell[1] + qDc)
                if 0 <= qNxt[0] < self.qSize and 0 <= qNxt[1] < self.qSize and qNxt not in self.qWalls and qNxt not in qSeen:
                    qSeen.add(qNxt)
                    qQueue.append((qNxt, qPath + [qName]))
        return []
