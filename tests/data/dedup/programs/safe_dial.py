import random
from spadegym.program import extract_boxed


class SafeDialEnv:
    """Open a safe by turning its dial to each number of the combination.

    The dial shows 0-39. Turn it with \\boxed{L n} or \\boxed{R n} to rotate n ticks left or
    right. Stop on each of the three numbers in order; overshooting resets the sequence."""

    max_turns = 12
    skill = "Spatial_Reasoning"

    def reset(self, seed=None, options=None):
        self.rng = random.Random(seed)
        self.combo = [self.rng.randrange(40) for _ in range(3)]
        self.position = self.rng.randrange(40)
        self.found = 0
        return self.show("The safe is locked."), {}

    def show(self, message):
        return (f"{message} The dial points at {self.position}. Numbers entered: {self.found}/3. "
                f"Combination: {self.combo}. Turn with \\boxed{{L n}} or \\boxed{{R n}}.")

    def step(self, action):
        move = extract_boxed(action)
        parts = (move or "").split()
        if len(parts) != 2 or parts[0] not in ("L", "R") or not parts[1].isdigit():
            return self.show("Write a direction and a number of ticks."), 0.0, False, False, {}
        ticks = int(parts[1]) % 40
        self.position = (self.position + ticks) % 40 if parts[0] == "R" else (self.position - ticks) % 40
        if self.position == self.combo[self.found]:
            self.found += 1
            if self.found == 3:
                return "The bolt slides back. The safe is open.", 1.0, True, False, {}
            return self.show("Click."), 0.0, False, False, {}
        self.found = 0
        return self.show("Nothing. The sequence starts over."), 0.0, False, False, {}

    def solution(self):
        moves = []
        position = self.position
        for target in self.combo[self.found:]:
            moves.append("\\boxed{R " + str((target - position) % 40) + "}")
            position = target
        return moves
