"""Move a knight to a target square in as few moves as possible."""

import random
from collections import deque

from spadegym.program import extract_boxed

FILES = "abcdefgh"


def level_of(options, default):
    """The difficulty 1..5 in ``options``, else ``default``."""
    value = options.get("difficulty", default) if isinstance(options, dict) else default
    if isinstance(value, bool) or not isinstance(value, int):
        return default
    return min(5, max(1, value))


class KnightHopEnv:
    """Knight Hop: bring a knight to the flag on a board with holes.

    The knight (N) moves like a chess knight: two squares one way and one square across. It
    may not land on a hole (#) or leave the board. Reach the flag (F) within the move limit.
    Answer with the square to jump to, e.g. \\boxed{c3}.
    """

    max_turns = 10
    skill = "Spatial_Reasoning"

    def reset(self, seed=None, options=None):
        self.rng = random.Random(seed)
        level = level_of(options, 2)
        self.size = 5 + level // 2
        cells = [(r, c) for r in range(self.size) for c in range(self.size)]
        while True:
            picks = self.rng.sample(cells, 2 + level + 2)
            self.knight, self.flag = picks[0], picks[1]
            self.holes = set(picks[2:])
            self.path = self.search()
            if self.path is not None and 2 <= len(self.path) <= 6:
                break
        self.limit = len(self.path) + 2
        self.turn = 0
        self.done = False
        return self.render("The knight is ready."), {"turn": 0}

    def jumps(self, cell):
        r, c = cell
        out = []
        for dr, dc in ((1, 2), (2, 1), (-1, 2), (-2, 1), (1, -2), (2, -1), (-1, -2), (-2, -1)):
            nr, nc = r + dr, c + dc
            if 0 <= nr < self.size and 0 <= nc < self.size and (nr, nc) not in self.holes:
                out.append((nr, nc))
        return out

    def search(self):
        prev = {self.knight: None}
        queue = deque([self.knight])
        while queue:
            cell = queue.popleft()
            if cell == self.flag:
                path = []
                while prev[cell] is not None:
                    path.append(cell)
                    cell = prev[cell]
                return path[::-1]
            for nxt in self.jumps(cell):
                if nxt not in prev:
                    prev[nxt] = cell
                    queue.append(nxt)
        return None

    def name(self, cell):
        return FILES[cell[1]] + str(cell[0] + 1)

    def render(self, note):
        lines = [note, f"Move {self.turn} of {self.limit}."]
        for r in range(self.size):
            row = ""
            for c in range(self.size):
                cell = (r, c)
                row += "N" if cell == self.knight else "F" if cell == self.flag else "#" if cell in self.holes else "."
            lines.append(f"{r + 1} {row}")
        lines.append("  " + FILES[: self.size])
        lines.append("Answer with the square to jump to, e.g. \\boxed{c3}.")
        return "\n".join(lines)

    def step(self, action):
        if self.done:
            return "Over.", 0.0, True, False, {"turn": self.turn}
        self.turn += 1
        said = (extract_boxed(action) or "").strip().lower()
        target = None
        if len(said) >= 2 and said[0] in FILES[: self.size] and said[1:].isdigit() and len(said) <= 3:
            target = (int(said[1:]) - 1, FILES.index(said[0]))
        if target is None or target not in self.jumps(self.knight):
            note = "Not a legal knight jump; the knight stays."
        else:
            self.knight = target
            note = f"The knight jumps to {self.name(target)}."
            if target == self.flag:
                self.done = True
                return "The knight reaches the flag. You win!", 1.0, True, False, {"turn": self.turn}
        if self.turn >= self.limit:
            self.done = True
            return self.render(note + " Out of moves."), 0.0, True, False, {"turn": self.turn}
        return self.render(note), 0.0, False, False, {"turn": self.turn}

    def solution(self):
        return ["\\boxed{" + self.name(cell) + "}" for cell in self.search()]
