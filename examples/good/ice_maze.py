import random
from collections import deque

from spadegym.program import extract_boxed, read_difficulty

MOVES = {"up": (-1, 0), "down": (1, 0), "left": (0, -1), "right": (0, 1)}
SHORT = {"u": "up", "d": "down", "l": "left", "r": "right"}


class IceMazeEnv:
    """Ice maze: slide across the ice into the hole.

    You stand on a frozen lake. A move slides you in one direction until a rock or the edge
    of the lake stops you, or until you slide onto the hole, which catches you. Move with
    \\boxed{up}, \\boxed{down}, \\boxed{left} or \\boxed{right}, one move per reply. You win
    when you stop in the hole.
    """

    max_turns = 30
    skill = "Spatial_Reasoning"

    def reset(self, seed=None, options=None):
        self.rng = random.Random(seed)
        difficulty = read_difficulty(options, default=1)
        self.size = 5 + difficulty
        shortest = 2 + difficulty // 2
        for _ in range(200):
            self.build(0.12 + 0.02 * difficulty)
            path = self.plan()
            if path is not None and shortest <= len(path) <= 20:
                break
        else:
            # Never reached in practice; an open lake with the hole in a corner is always solvable.
            self.rocks = set()
            self.start = (self.size // 2, self.size // 2)
            self.hole = (0, 0)
        self.position = self.start
        self.moves = 0
        return self.describe("You step onto the ice."), {"size": self.size}

    def build(self, density):
        cells = [(r, c) for r in range(self.size) for c in range(self.size)]
        self.rocks = {cell for cell in cells if self.rng.random() < density}
        free = [cell for cell in cells if cell not in self.rocks]
        self.start, self.hole = self.rng.sample(free, 2)

    def slide(self, position, move):
        dr, dc = MOVES[move]
        r, c = position
        while True:
            nr, nc = r + dr, c + dc
            if not (0 <= nr < self.size and 0 <= nc < self.size) or (nr, nc) in self.rocks:
                return (r, c)
            r, c = nr, nc
            if (r, c) == self.hole:
                return (r, c)

    def plan(self):
        """The shortest list of moves from the start (not the current cell) into the hole."""
        previous = {self.start: None}
        queue = deque([self.start])
        while queue:
            here = queue.popleft()
            if here == self.hole:
                path = []
                while previous[here] is not None:
                    here, move = previous[here]
                    path.append(move)
                return path[::-1]
            for move in MOVES:
                there = self.slide(here, move)
                if there not in previous:
                    previous[there] = (here, move)
                    queue.append(there)
        return None

    def describe(self, lead):
        rows = []
        for r in range(self.size):
            row = ""
            for c in range(self.size):
                if (r, c) == self.position:
                    row += "P"
                elif (r, c) == self.hole:
                    row += "O"
                elif (r, c) in self.rocks:
                    row += "#"
                else:
                    row += "."
            rows.append(row)
        grid = "\n".join(rows)
        return (
            f"{lead}\n{grid}\nP is you (row {self.position[0] + 1}, column "
            f"{self.position[1] + 1}), O the hole, # rocks, . ice; row 1 is the top. A move "
            "slides you until a rock or the edge stops you, or the hole catches you. Reply "
            "with one of \\boxed{up}, \\boxed{down}, \\boxed{left}, \\boxed{right}."
        )

    def step(self, action):
        self.moves += 1
        boxed = extract_boxed(action)
        move = None if boxed is None else boxed.strip().lower()
        move = SHORT.get(move, move)
        if move not in MOVES:
            return (
                self.describe("No move made: answer with one direction in \\boxed{}."),
                0.0,
                False,
                False,
                {"moves": self.moves},
            )
        self.position = self.slide(self.position, move)
        if self.position == self.hole:
            return "You slide into the hole. Solved!", 1.0, True, False, {"moves": self.moves}
        lead = f"You slide {move}."
        return self.describe(lead), 0.0, False, False, {"moves": self.moves}

    def solution(self):
        path = self.plan()
        return ["\\boxed{" + move + "}" for move in path]

    def hint(self):
        return (
            "Work backwards from the hole: find the cells from which one slide ends in it, "
            "then the cells that slide to those."
        )
