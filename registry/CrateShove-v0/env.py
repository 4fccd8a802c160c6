"""CrateShove: push crates onto their targets in a small warehouse (Spatial_Reasoning)."""

import random
from collections import deque

from spadegym.program import extract_boxed, read_difficulty

ROOM = {1: (4, 5), 2: (5, 5), 3: (5, 5), 4: (5, 6), 5: (6, 6)}
CRATES = {1: 1, 2: 1, 3: 2, 4: 2, 5: 2}
WALLS = {1: 1, 2: 2, 3: 2, 4: 3, 5: 5}
MIN_PUSHES = {1: 3, 2: 4, 3: 5, 4: 6, 5: 7}
DIRS = {"up": (-1, 0), "down": (1, 0), "left": (0, -1), "right": (0, 1)}
ALIASES = {"u": "up", "d": "down", "l": "left", "r": "right", "north": "up", "south": "down",
           "west": "left", "east": "right"}


def move(floor, player, crates, name):
    """The (player, crates, pushed) after one step, or None when blocked."""
    dr, dc = DIRS[name]
    nxt = (player[0] + dr, player[1] + dc)
    if nxt not in floor:
        return None
    if nxt in crates:
        beyond = (nxt[0] + dr, nxt[1] + dc)
        if beyond not in floor or beyond in crates:
            return None
        moved = tuple(sorted(beyond if c == nxt else c for c in crates))
        return nxt, moved, True
    return nxt, crates, False


def solve(floor, player, crates, goals):
    """Fewest single steps that put every crate on a goal (breadth-first search), or None."""
    start = (player, crates)
    prev = {start: None}
    queue = deque([start])
    while queue:
        state = queue.popleft()
        if set(state[1]) == goals:
            steps = []
            while prev[state] is not None:
                state, name = prev[state]
                steps.append(name)
            return steps[::-1]
        for name in DIRS:
            result = move(floor, state[0], state[1], name)
            if result is not None:
                nxt = (result[0], result[1])
                if nxt not in prev:
                    prev[nxt] = (state, name)
                    queue.append(nxt)
    return None


def runs(steps):
    """Consecutive equal steps grouped as [direction, count]."""
    out = []
    for name in steps:
        if out and out[-1][0] == name:
            out[-1][1] += 1
        else:
            out.append([name, 1])
    return out


class CrateShoveEnv:
    """Crate Shove: push every crate onto a target square in a small walled warehouse.

    You can walk up, down, left or right, and you push a crate by walking into it (if the
    square beyond is free). Crates cannot be pulled, and a crate pushed into a corner is stuck
    for good. Each turn walk in one direction for n steps (stopping early if blocked). Win when
    every crate stands on a target, within the turn limit. Answer like \\boxed{left 2} or
    \\boxed{up}.
    """

    max_turns = 40
    skill = "Spatial_Reasoning"

    def reset(self, seed=None, options=None):
        """Build a new warehouse from ``seed``; the difficulty in ``options`` sets its size."""
        self.rng = random.Random(seed)
        self.difficulty = read_difficulty(options, default=2)
        rows, cols = ROOM[self.difficulty]
        count = CRATES[self.difficulty]
        while True:
            cells = [(r, c) for r in range(1, rows + 1) for c in range(1, cols + 1)]
            walls = set(self.rng.sample(cells, WALLS[self.difficulty]))
            floor = frozenset(c for c in cells if c not in walls)
            if not self.connected(floor):
                continue
            goals = self.rng.sample(sorted(floor), count)
            crates = tuple(sorted(goals))
            player = self.rng.choice(sorted(floor - set(goals)))
            # walk backwards from the solved position, pulling crates, to get a solvable start
            for i in range(60):
                name = self.rng.choice(sorted(DIRS))
                dr, dc = DIRS[name]
                nxt = (player[0] + dr, player[1] + dc)
                if nxt not in floor or nxt in crates:
                    continue
                behind = (player[0] - dr, player[1] - dc)
                if behind in crates and self.rng.random() < 0.7:
                    crates = tuple(sorted(player if c == behind else c for c in crates))
                player = nxt
            if len(set(crates) & set(goals)) == count:
                continue
            steps = solve(floor, player, crates, set(goals))
            if steps is None:
                continue
            pushes = self.count_pushes(floor, player, crates, steps)
            if pushes >= MIN_PUSHES[self.difficulty] and len(runs(steps)) <= 26:
                break
        self.rows, self.cols = rows, cols
        self.floor = floor
        self.goals = set(goals)
        self.start = (player, crates)
        self.player, self.crates = player, crates
        self.best_steps = steps
        self.plan = runs(steps)
        self.limit = min(self.max_turns, len(self.plan) + max(4, len(self.plan) // 2))
        self.turn = 0
        self.done = False
        return self.render("The warehouse lights flicker on."), self.info()

    def connected(self, floor):
        """True when every floor square can reach every other."""
        first = min(floor)
        seen = {first}
        queue = deque([first])
        while queue:
            r, c = queue.popleft()
            for dr, dc in DIRS.values():
                nxt = (r + dr, c + dc)
                if nxt in floor and nxt not in seen:
                    seen.add(nxt)
                    queue.append(nxt)
        return len(seen) == len(floor)

    def count_pushes(self, floor, player, crates, steps):
        """How many of ``steps`` push a crate."""
        pushes = 0
        for name in steps:
            player, crates, pushed = move(floor, player, crates, name)
            pushes += pushed
        return pushes

    def info(self):
        """A small JSON-able summary of the state."""
        return {"turn": self.turn, "player": list(self.player), "crates": [list(c) for c in self.crates],
                "limit": self.limit, "difficulty": self.difficulty}

    def render(self, result):
        """The observation text: result, map, actions and progress."""
        lines = [f"Turn {self.turn} of {self.limit}.", result,
                 "Map (@ you, C crate, * crate on target, o target, # wall, . floor; up is the top row):"]
        for r in range(self.rows + 2):
            line = ""
            for c in range(self.cols + 2):
                cell = (r, c)
                if cell == self.player:
                    line += "@"
                elif cell in self.crates:
                    line += "*" if cell in self.goals else "C"
                elif cell in self.goals:
                    line += "o"
                elif cell in self.floor:
                    line += "."
                else:
                    line += "#"
            lines.append(line)
        on = sum(1 for c in self.crates if c in self.goals)
        lines.append(f"Crates on targets: {on} of {len(self.goals)}.")
        lines.append("Actions: \\boxed{up n}, \\boxed{down n}, \\boxed{left n}, \\boxed{right n} (n optional, default 1).")
        return "\n".join(lines)

    def step(self, action):
        """Walk (and push) in one direction."""
        if self.done:
            return "The episode is over; call reset() to play again.", 0.0, True, False, self.info()
        self.turn += 1
        box = extract_boxed(action)
        words = box.lower().split() if box is not None else []
        if words and words[0] in ("move", "go", "walk", "push"):
            words = words[1:]
        name = ALIASES.get(words[0], words[0]) if words else ""
        if box is None:
            result = "No \\boxed{...} answer found; you stood still."
        elif name not in DIRS or len(words) > 2 or (len(words) == 2 and (not words[1].isdigit() or len(words[1]) > 2)):
            result = f"'{box[:40]}' is not a direction (up, down, left, right) with an optional step count."
        else:
            steps = int(words[1]) if len(words) == 2 else 1
            moved, pushes = 0, 0
            while moved < steps:
                out = move(self.floor, self.player, self.crates, name)
                if out is None:
                    break
                self.player, self.crates, pushed = out
                pushes += pushed
                moved += 1
            result = f"You walked {name} {moved} step(s), pushing a crate {pushes} time(s)."
            if moved < steps:
                result += " Something blocked you."
            if set(self.crates) == self.goals:
                self.done = True
                return self.render(result + " Every crate is on a target. Solved!"), 1.0, True, False, self.info()
        if self.turn >= self.limit:
            self.done = True
            return self.render(result + " Out of turns."), 0.0, True, False, self.info()
        return self.render(result), 0.0, False, False, self.info()

    def solution(self):
        """The fewest-steps solution found by breadth-first search in reset, as straight runs."""
        return ["\\boxed{" + f"{name} {n}" + "}" for name, n in runs(self.best_steps)]

    def hint(self):
        """A nudge about the approach."""
        return ("Before each push, check where the crate will end up: never push a crate against "
                "a wall unless its target lies along that wall. Plan where you must stand to push "
                "each crate and walk around crates to get there.")
