import random
from spadegym.program import extract_boxed


class AltNumberTargetEnv:
    """Reach the target number by combining the numbers you are given.

    Each turn pick two of the available numbers and an operation with \\boxed{a op b}
    (op is +, -, * or /, division only when exact). The result replaces the two numbers.
    You win when the target appears."""

    max_turns = 5
    skill = "Mathematical_Reasoning"

    def reset(self, seed=None, options=None):
        self.qRng = random.Random(seed)
        self.qNumbers = [self.qRng.randint(1, 10) for q in range(4)]
        qA, qB, qC, qD = self.qNumbers
        self.qPlan = [f"{qA} + {qB}", f"{qA + qB} * {qC}", f"{(qA + qB) * qC} - {qD}"]
        self.qTarget = (qA + qB) * qC - qD
        return self.qShow("Start."), {}

    def qShow(self, qNote):
        return f"{qNote} Numbers: {self.qNumbers}. Target: {self.qTarget}. Combine with \\boxed{{a op b}}."

    def step(self, action):
        qParts = (extract_boxed(action) or "").split()
        if len(qParts) != 3 or not qParts[0].lstrip("-").isdigit() or not qParts[2].lstrip("-").isdigit():
            return self.qShow("Write two numbers and an operation."), 0.0, False, False, {}
        qA, qOp, qB = int(qParts[0]), qParts[1], int(qParts[2])
        qPool = list(self.qNumbers)
        if qA not in qPool:
            return self.qShow(f"{qA} is not available."), 0.0, False, False, {}
        qPool.remove(qA)
        if qB not in qPool:
            return self.qShow(f"{qB} is not available."), 0.0, False, False, {}
        qPool.remove(qB)
        if qOp == "+":
            qValue = qA + qB
        elif qOp == "-":
            qValue = qA - qB
        elif qOp == "*":
            qValue = qA * qB
        elif qOp == "/" and qB != 0 and qA % qB == 0:
            qValue = qA // qB
        else:
            return self.qShow("That operation is not allowed."), 0.0, False, False, {}
        self.qNumbers = qPool + [qValue]
        if qValue == self.qTarget:
            return f"{qValue}: target reached.", 1.0, True, False, {}
        return self.qShow(f"You made {qValue}."), 0.0, False, False, {}

    def solution(self):
        return ["\\boxed{" + step + "}" for step in self.qPlan]
