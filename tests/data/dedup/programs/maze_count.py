import random
from collections import deque
from spadegym.program import extract_boxed


class MazeDistanceEnv:
    """Count the length of the shortest route through a maze.

    A grid maze is drawn with walls #, start S and goal G. Work out the fewest steps (up, down,
    left, right) from S to G and answer \\boxed{n}. You have three tries."""

    max_turns = 3
    skill = "Spatial_Reasoning"

    def reset(self, seed=None, options=None):
        self.rng = random.Random(seed)
        self.grid = [["." for _ in range(7)] for _ in range(7)]
        for _ in range(12):
            self.grid[self.rng.randrange(7)][self.rng.randrange(7)] = "#"
        self.start = (self.rng.randrange(7), self.rng.randrange(3))
        self.goal = (self.rng.randrange(7), self.rng.randrange(4, 7))
        self.grid[self.start[0]][self.start[1]] = "S"
        self.grid[self.goal[0]][self.goal[1]] = "G"
        self.answer = self.distance()
        picture = "\n".join("".join(row) for row in self.grid)
        return f"Shortest route from S to G?\n{picture}\nAnswer \\boxed{{n}} (or -1 if none).", {}

    def distance(self):
        queue = deque([(self.start, 0)])
        seen = {self.start}
        while queue:
            (r, c), d = queue.popleft()
            if (r, c) == self.goal:
                return d
            for dr, dc in ((1, 0), (-1, 0), (0, 1), (0, -1)):
                nr, nc = r + dr, c + dc
                if 0 <= nr < 7 and 0 <= nc < 7 and self.grid[nr][nc] != "#" and (nr, nc) not in seen:
                    seen.add((nr, nc))
                    queue.append(((nr, nc), d + 1))
        return -1

    def step(self, action):
        guess = (extract_boxed(action) or "").strip()
        if not guess.lstrip("-").isdigit():
            return "Answer with a whole number in \\boxed{}.", 0.0, False, False, {}
        if int(guess) == self.answer:
            return "Correct.", 1.0, True, False, {}
        return "Not the shortest distance. Try again.", 0.0, False, False, {}

    def solution(self):
        return ["\\boxed{" + str(self.answer) + "}"]
