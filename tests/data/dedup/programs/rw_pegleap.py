"""Hop counters over each other until one remains."""

import random

from spadegym.program import extract_boxed

LAYOUTS = [(4, 4), (5, 6), (5, 8), (6, 10), (6, 12)]
DIRECTIONS = ((-1, 0), (1, 0), (0, -1), (0, 1))
FILES = "abcdef"


def label(square):
    """Square name, column letter first (row 1 at the top)."""
    row, col = square
    return f"{FILES[col]}{row + 1}"


class CounterHopEnv:
    """Counter Hop: hop counters over one another until a single counter remains.

    The square board shows counters (o) and gaps (.). On each turn one counter hops over an
    adjacent counter (up, down, left or right; never diagonal) into the gap right behind it,
    and the hopped-over counter is taken off. Finishing with exactly one counter wins; being
    left with two or more and no hop available loses. Reply with both squares, as in
    \\boxed{b3 d3}.
    """

    skill = "Spatial_Reasoning"
    max_turns = 16

    def hint(self):
        """Approach."""
        return ("Do not let a counter drift away from the rest: before every hop make sure each "
                "counter can still reach a partner, and deal with the outliers first.")

    def solution(self):
        """Undo the backward construction, step by step."""
        return ["\\boxed{%s %s}" % (label(src), label(dst)) for src, mid, dst in self.route]

    def hops(self, counters):
        """All (source, jumped, target) hops available."""
        found = []
        for r, c in sorted(counters):
            for dr, dc in DIRECTIONS:
                mid = (r + dr, c + dc)
                dst = (r + dr + dr, c + dc + dc)
                inside = 0 <= dst[0] < self.n and 0 <= dst[1] < self.n
                if inside and mid in counters and dst not in counters:
                    found.append(((r, c), mid, dst))
        return found

    def reset(self, seed=None, options=None):
        """Generate a solvable board by playing backwards from one counter."""
        self.rng = random.Random(seed)
        level = 2
        if isinstance(options, dict):
            value = options.get("difficulty", 2)
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                level = max(1, min(5, int(value)))
        self.level = level
        self.n, depth = LAYOUTS[level - 1]
        done_building = False
        while not done_building:
            counters = {(self.rng.randrange(self.n), self.rng.randrange(self.n))}
            trail = []
            for step_no in range(depth):  # noqa: B007
                choices = []
                for dst in sorted(counters):
                    for dr, dc in DIRECTIONS:
                        mid = (dst[0] - dr, dst[1] - dc)
                        src = (dst[0] - 2 * dr, dst[1] - 2 * dc)
                        if not (0 <= src[0] < self.n and 0 <= src[1] < self.n):
                            continue
                        if mid in counters or src in counters:
                            continue
                        choices.append((src, mid, dst))
                if len(choices) == 0:
                    break
                src, mid, dst = self.rng.choice(choices)
                counters.discard(dst)
                counters.add(src)
                counters.add(mid)
                trail.append((src, mid, dst))
            done_building = len(trail) == depth
        self.counters = set(counters)
        self.route = list(reversed(trail))
        self.budget = depth + 2
        self.t = 0
        self.finished = False
        return self.draw("Counters are in place."), self.facts()

    def facts(self):
        return {"turn": self.t, "pegs": len(self.counters), "limit": self.budget, "difficulty": self.level}

    def draw(self, note):
        out = [f"{self.budget - self.t} turn(s) left.", note,
               "Board (o counter, . gap; files a.. left to right, rows 1.. from the top):",
               "   " + " ".join(FILES[: self.n])]
        for r in range(self.n):
            marks = ["o" if (r, c) in self.counters else "." for c in range(self.n)]
            out.append("%2d " % (r + 1) + " ".join(marks))
        out.append(f"Counters remaining: {len(self.counters)}.")
        out.append("Reply \\boxed{FROM TO}, for example \\boxed{b3 d3}: the counter on FROM hops its neighbour into the gap TO.")
        return "\n".join(out)

    def square(self, token):
        token = token.strip().lower()
        if len(token) < 2 or len(token) > 3 or token[0] not in FILES[: self.n] or not token[1:].isdigit():
            return None
        row = int(token[1:]) - 1
        if row < 0 or row >= self.n:
            return None
        return row, FILES.index(token[0])

    def step(self, action):
        """Perform one hop."""
        if self.finished:
            return "Game over; reset to play again.", 0.0, True, False, self.facts()
        self.t = self.t + 1
        boxed = extract_boxed(action)
        tokens = []
        if boxed is not None:
            tokens = boxed.replace(",", " ").replace("->", " ").replace("-", " ").split()
        if tokens and tokens[0].lower() in ("jump", "move"):
            tokens = tokens[1:]
        tokens = [t for t in tokens if t.lower() != "to"]
        squares = [self.square(t) for t in tokens]
        if boxed is None:
            note = "No \\boxed{...} found; nothing moved."
        elif len(squares) != 2 or None in squares:
            note = f"'{boxed[:40]}' is not two squares like 'b3 d3' on this {self.n}x{self.n} board."
        else:
            src, dst = squares
            match = None
            for hop in self.hops(self.counters):
                if hop[0] == src and hop[2] == dst:
                    match = hop
                    break
            if match is None:
                note = (f"{label(src)} to {label(dst)} is no legal hop: it needs a counter on {label(src)}, "
                        "a counter in between and a gap two squares away in a straight line.")
            else:
                mid = match[1]
                self.counters.discard(src)
                self.counters.discard(mid)
                self.counters.add(dst)
                note = f"The counter on {label(src)} hopped over {label(mid)} to {label(dst)}."
                if len(self.counters) == 1:
                    self.finished = True
                    return self.draw(note + " A single counter remains. Well played!"), 1.0, True, False, self.facts()
                if not self.hops(self.counters):
                    self.finished = True
                    return self.draw(note + " No hop is possible any more: stuck."), 0.0, True, False, self.facts()
        if self.t >= self.budget:
            self.finished = True
            return self.draw(note + " No turns remain."), 0.0, True, False, self.facts()
        return self.draw(note), 0.0, False, False, self.facts()
