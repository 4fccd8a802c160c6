import random
from spadegym.program import extract_boxed


class AltPackTheBagEnv:
    """Pack a bag with the most valuable items that fit under its weight limit.

    Items are listed with weight and value. Add an item with \\boxed{add n}, remove it with
    \\boxed{drop n}, and finish with \\boxed{done}. You win with the best possible value; an
    item that does not fit tears the bag and ends the game."""

    max_turns = 12
    skill = "Optimization"

    def reset(self, seed=None, options=None):
        self.qRng = random.Random(seed)
        self.qItems = [(self.qRng.randint(1, 9), self.qRng.randint(1, 20)) for q in range(6)]
        self.qLimit = self.qRng.randint(10, 20)
        self.qBag = set()
        return self.qStatus("Pack the bag."), {}

    def qStatus(self, qNote):
        qListing = "; ".join(f"{qI}: weight {qW}, value {qV}" for qI, (qW, qV) in enumerate(self.qItems))
        qWeight = sum(self.qItems[qI][0] for qI in self.qBag)
        return f"{qNote} Items: {qListing}. Limit {self.qLimit}. In bag: {sorted(self.qBag)} (weight {qWeight})."

    def qBest(self):
        qTop = 0
        for qMask in range(1 << len(self.qItems)):
            qW = sum(self.qItems[qI][0] for qI in range(len(self.qItems)) if qMask >> qI & 1)
            qV = sum(self.qItems[qI][1] for qI in range(len(self.qItems)) if qMask >> qI & 1)
            if qW <= self.qLimit and qV > qTop:
                qTop = qV
        return qTop

    def step(self, action):
        qWords = (extract_boxed(action) or "").split()
        if qWords == ["done"]:
            qValue = sum(self.qItems[qI][1] for qI in self.qBag)
            qBest = self.qBest()
            return f"Your value {qValue}, best {qBest}.", 1.0 if qValue == qBest else qValue / qBest / 2, True, False, {}
        if len(qWords) != 2 or qWords[0] not in ("add", "drop") or not qWords[1].isdigit():
            return self.qStatus("Use add n, drop n or done."), 0.0, False, False, {}
        qN = int(qWords[1])
        if qN >= len(self.qItems):
            return self.qStatus("No such item."), 0.0, False, False, {}
        if qWords[0] == "add":
            if sum(self.qItems[qI][0] for qI in self.qBag) + self.qItems[qN][0] > self.qLimit:
                return "Too heavy: the bag tears.", 0.0, True, False, {}
            self.qBag.add(qN)
        else:
            self.qBag.discard(qN)
        return self.qStatus("Updated."), 0.0, False, False, {}

    def solution(self):
        qBest, qPick = -1, 0
        for qMask in range(1 << len(self.qItems)):
            qW = sum(self.qItems[qI][0] for qI in range(len(self.qItems)) if qMask >> qI & 1)
            qV = sum(self.qItems[qI][1] for qI in range(len(self.qItems)) if qMask >> qI & 1)
            if qW <= self.qLimit and qV > qBest:
                qBest, qPick = qV, qMask
        return ["\\boxed{add " + str(qI) + "}" for qI in range(len(self.qItems)) if qPick >> qI & 1] + ["\\boxed{done}"]
