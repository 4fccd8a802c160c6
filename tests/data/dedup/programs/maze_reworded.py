import random
from spadegym.program import extract_boxed


class MazeWalkEnv:
    """Escape the labyrinth.

    The map marks you with @, the way out with E and stone walls with #. Move with \\boxed{N}, \\boxed{S},
    \\boxed{E} or \\boxed{W}. Get out before your moves run out."""

    max_turns = 36
    skill = "Spatial_Reasoning"

    def reset(self, seed=None, options=None):
        self.rng = random.Random(seed)
        self.size = 6
        while True:
            self.pos = (self.rng.randrange(6), 0)
            self.goal = (self.rng.randrange(6), 5)
            self.walls = set()
            for _ in range(12):
                self.walls.add((self.rng.randrange(6), self.rng.randrange(1, 5)))
            if self.solution():
                break
        return self.render("You wake up in a labyrinth."), {}

    def render(self, note):
        rows = []
        for r in range(self.size):
            row = ""
            for c in range(self.size):
                if (r, c) == self.pos:
                    row += "@"
                elif (r, c) == self.goal:
                    row += "E"
                else:
                    row += "#" if (r, c) in self.walls else "."
            rows.append(row)
        return note + "\n" + "\n".join(rows) + "\nMove with \\boxed{N/S/E/W}."

    def step(self, action):
        moves = {"N": (-1, 0), "S": (1, 0), "E": (0, 1), "W": (0, -1)}
        move = (extract_boxed(action) or "").strip().upper()
        if move not in moves:
            return self.render("Unknown move."), 0.0, False, False, {}
        dr, dc = moves[move]
        nxt = (self.pos[0] + dr, self.pos[1] + dc)
        if not (0 <= nxt[0] < self.size and 0 <= nxt[1] < self.size) or nxt in self.walls:
            return self.render("You bump into stone."), 0.0, False, False, {}
        self.pos = nxt
        if self.pos == self.goal:
            return "Daylight: you escaped.", 1.0, True, False, {}
        return self.render("You move."), 0.0, False, False, {}

    def solution(self):
        from collections import deque
        moves = {"N": (-1, 0), "S": (1, 0), "E": (0, 1), "W": (0, -1)}
        queue = deque([(self.pos, [])])
        seen = {self.pos}
        while queue:
            cell, path = queue.popleft()
            if cell == self.goal:
                return ["\\boxed{" + m + "}" for m in path]
            for name, (dr, dc) in moves.items():
                nxt = (cell[0] + dr, cell[1] + dc)
                if 0 <= nxt[0] < self.size and 0 <= nxt[1] < self.size and nxt not in self.walls and nxt not in seen:
                    seen.add(nxt)
                    queue.append((nxt, path + [name]))
        return []
