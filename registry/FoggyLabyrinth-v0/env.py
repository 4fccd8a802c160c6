"""FoggyLabyrinth: find the exit of a maze you only see near you (Spatial_Reasoning)."""

import random
from collections import deque

from spadegym.program import extract_boxed, read_difficulty

CELLS = {1: 4, 2: 5, 3: 6, 4: 7, 5: 8}
SIGHT = {1: 2, 2: 1, 3: 1, 4: 1, 5: 1}
LOOPS = {1: 2, 2: 2, 3: 3, 4: 4, 5: 5}
DIRS = {"up": (-1, 0), "down": (1, 0), "left": (0, -1), "right": (0, 1)}
ALIASES = {"u": "up", "d": "down", "l": "left", "r": "right", "n": "up", "s": "down", "w": "left",
           "e": "right", "north": "up", "south": "down", "west": "left", "east": "right"}


def carve(rng, k, loops):
    """A (2k+1)-square grid of '#' walls and '.' floor: a random maze with a few extra loops."""
    size = 2 * k + 1
    grid = [["#"] * size for i in range(size)]
    stack = [(0, 0)]
    seen = {(0, 0)}
    grid[1][1] = "."
    while stack:
        r, c = stack[-1]
        options = [(r + dr, c + dc) for dr, dc in DIRS.values()
                   if 0 <= r + dr < k and 0 <= c + dc < k and (r + dr, c + dc) not in seen]
        if not options:
            stack.pop()
            continue
        nr, nc = rng.choice(options)
        grid[2 * nr + 1][2 * nc + 1] = "."
        grid[r + nr + 1][c + nc + 1] = "."
        seen.add((nr, nc))
        stack.append((nr, nc))
    walls = [(r, c) for r in range(1, size - 1) for c in range(1, size - 1)
             if grid[r][c] == "#" and (r % 2) != (c % 2)]
    for r, c in rng.sample(walls, min(loops, len(walls))):
        grid[r][c] = "."
    return grid


def bfs_path(grid, start, goal):
    """Shortest list of cells from ``start`` to ``goal`` through floor cells."""
    prev = {start: None}
    queue = deque([start])
    while queue:
        cell = queue.popleft()
        if cell == goal:
            break
        for dr, dc in DIRS.values():
            nxt = (cell[0] + dr, cell[1] + dc)
            if grid[nxt[0]][nxt[1]] == "." and nxt not in prev:
                prev[nxt] = cell
                queue.append(nxt)
    path = []
    cell = goal
    while cell is not None:
        path.append(cell)
        cell = prev[cell]
    return path[::-1]


class FoggyLabyrinthEnv:
    """Foggy Labyrinth: walk out of a maze while the fog only shows the walls near you.

    You know where the exit is, but you only see the cells close to you; everything you have
    seen stays on your map. Each turn walk in one direction for up to n steps; you stop early
    at a wall. Reach the exit within the turn limit. Answer like \\boxed{right 3} or
    \\boxed{up} (one step).
    """

    max_turns = 40
    skill = "Spatial_Reasoning"

    def reset(self, seed=None, options=None):
        """Build a new maze from ``seed``; the difficulty in ``options`` sets its size."""
        self.rng = random.Random(seed)
        self.difficulty = read_difficulty(options, default=2)
        k = CELLS[self.difficulty]
        self.grid = carve(self.rng, k, LOOPS[self.difficulty])
        size = len(self.grid)
        corners = [(1, 1), (1, size - 2), (size - 2, 1), (size - 2, size - 2)]
        self.start = self.rng.choice(corners)
        far = bfs_path(self.grid, self.start, self.farthest(self.start))
        self.exit = far[-1]
        self.pos = self.start
        self.sight = SIGHT[self.difficulty]
        self.seen = set()
        self.look()
        self.limit = min(self.max_turns, 2 * len(self.plan()) + 4)
        self.turn = 0
        self.done = False
        return self.render("You step into the fog."), self.info()

    def farthest(self, start):
        """A floor cell at the greatest walking distance from ``start``."""
        dist = {start: 0}
        queue = deque([start])
        while queue:
            cell = queue.popleft()
            for dr, dc in DIRS.values():
                nxt = (cell[0] + dr, cell[1] + dc)
                if self.grid[nxt[0]][nxt[1]] == "." and nxt not in dist:
                    dist[nxt] = dist[cell] + 1
                    queue.append(nxt)
        return max(sorted(dist), key=lambda c: dist[c])

    def look(self):
        """Add the cells within sight to the map."""
        r0, c0 = self.pos
        size = len(self.grid)
        for r in range(max(0, r0 - self.sight), min(size, r0 + self.sight + 1)):
            for c in range(max(0, c0 - self.sight), min(size, c0 + self.sight + 1)):
                self.seen.add((r, c))

    def plan(self):
        """The shortest route as (direction, steps) runs."""
        path = bfs_path(self.grid, self.start, self.exit)
        runs = []
        for a, b in zip(path, path[1:]):
            step = (b[0] - a[0], b[1] - a[1])
            name = [d for d, v in DIRS.items() if v == step][0]
            if runs and runs[-1][0] == name:
                runs[-1][1] += 1
            else:
                runs.append([name, 1])
        return runs

    def info(self):
        """A small JSON-able summary of the state."""
        return {"turn": self.turn, "row": self.pos[0], "col": self.pos[1], "limit": self.limit,
                "difficulty": self.difficulty}

    def render(self, result):
        """The observation text: result, map, actions and progress."""
        size = len(self.grid)
        rows = []
        for r in range(size):
            line = ""
            for c in range(size):
                if (r, c) == self.pos:
                    line += "@"
                elif (r, c) == self.exit:
                    line += "E"
                elif (r, c) in self.seen:
                    line += self.grid[r][c]
                else:
                    line += "?"
            rows.append(line)
        return "\n".join([
            f"Turn {self.turn} of {self.limit}.", result,
            "Your map (@ you, E exit, # wall, . floor, ? not seen yet; up is the top row):",
            *rows,
            "Actions: \\boxed{up n}, \\boxed{down n}, \\boxed{left n}, \\boxed{right n} (n optional, default 1).",
        ])

    def step(self, action):
        """Walk in one direction."""
        if self.done:
            return "The episode is over; call reset() to play again.", 0.0, True, False, self.info()
        self.turn += 1
        box = extract_boxed(action)
        words = box.lower().split() if box is not None else []
        if words and words[0] in ("move", "go", "walk"):
            words = words[1:]
        name = ALIASES.get(words[0], words[0]) if words else ""
        if box is None:
            result = "No \\boxed{...} answer found; you stood still."
        elif name not in DIRS or len(words) > 2 or (len(words) == 2 and (not words[1].isdigit() or len(words[1]) > 2)):
            result = f"'{box[:40]}' is not a direction (up, down, left, right) with an optional step count."
        else:
            steps = int(words[1]) if len(words) == 2 else 1
            dr, dc = DIRS[name]
            moved = 0
            while moved < steps:
                nxt = (self.pos[0] + dr, self.pos[1] + dc)
                if self.grid[nxt[0]][nxt[1]] != ".":
                    break
                self.pos = nxt
                moved += 1
                self.look()
                if self.pos == self.exit:
                    break
            result = f"You walked {name} {moved} step(s)."
            if moved < steps and self.pos != self.exit:
                result += " A wall stopped you."
            if self.pos == self.exit:
                self.done = True
                return self.render(result + " You found the exit!"), 1.0, True, False, self.info()
        if self.turn >= self.limit:
            self.done = True
            return self.render(result + " The fog swallows you: out of turns."), 0.0, True, False, self.info()
        return self.render(result), 0.0, False, False, self.info()

    def solution(self):
        """The shortest route on the full maze, one straight run per action."""
        return ["\\boxed{" + f"{name} {steps}" + "}" for name, steps in self.plan()]

    def hint(self):
        """A nudge about the approach."""
        return ("Head generally toward the exit but prefer corridors you have not seen yet; when "
                "a branch dead-ends, go back to the last junction with an unexplored '?' side "
                "instead of retracing further.")
