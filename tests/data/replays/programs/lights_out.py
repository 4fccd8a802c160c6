import random

from spadegym.program import extract_boxed


class LightsOutEnv:
    """Lights out: switch off every light on the board.

    Pressing a light toggles it and its neighbours above, below, left and right. Press with
    \\boxed{R C} (row, column, from 1). You win when every light is off.
    """

    max_turns = 12
    skill = "Spatial_Reasoning"

    def reset(self, seed=None, options=None):
        self.rng = random.Random(seed)
        difficulty = 1
        if isinstance(options, dict) and options.get("difficulty") in (1, 2, 3, 4, 5):
            difficulty = options["difficulty"]
        self.size = 3 if difficulty < 3 else 4
        cells = [(r, c) for r in range(self.size) for c in range(self.size)]
        self.presses = sorted(self.rng.sample(cells, 3 + difficulty // 2))
        self.on = set()
        for cell in self.presses:
            self.toggle(cell)
        self.moves = 0
        return self.describe("The board lights up."), {"lit": len(self.on)}

    def toggle(self, cell):
        r, c = cell
        for dr, dc in ((0, 0), (1, 0), (-1, 0), (0, 1), (0, -1)):
            spot = (r + dr, c + dc)
            if 0 <= spot[0] < self.size and 0 <= spot[1] < self.size:
                if spot in self.on:
                    self.on.remove(spot)
                else:
                    self.on.add(spot)

    def describe(self, lead):
        rows = []
        for r in range(self.size):
            rows.append(" ".join("#" if (r, c) in self.on else "." for c in range(self.size)))
        board = "\n".join(rows)
        return (
            f"{lead}\n{board}\n# is on, . is off; rows and columns count from 1 at the top "
            f"left. Moves used: {self.moves} of {self.max_turns}. Press with \\boxed{{R C}}."
        )

    def step(self, action):
        text = extract_boxed(action)
        parts = [] if text is None else text.replace(",", " ").split()
        if len(parts) != 2 or not all(p.isdigit() for p in parts):
            return self.describe("Press one light: \\boxed{R C}."), 0.0, False, False, {}
        r, c = int(parts[0]) - 1, int(parts[1]) - 1
        if not (0 <= r < self.size and 0 <= c < self.size):
            return self.describe("That light is off the board."), 0.0, False, False, {}
        self.moves += 1
        self.toggle((r, c))
        if not self.on:
            return "Every light is off. You win!", 1.0, True, False, {"lit": 0}
        lead = f"You press row {r + 1}, column {c + 1}."
        return self.describe(lead), 0.0, False, False, {"lit": len(self.on)}

    def solution(self):
        return [f"\\boxed{{{r + 1} {c + 1}}}" for r, c in self.presses]

    def hint(self):
        return "Pressing the same light twice undoes it, so the order of presses never matters."
