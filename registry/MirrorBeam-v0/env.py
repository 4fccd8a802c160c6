"""MirrorBeam: flip mirrors so a laser beam reaches its target (Spatial_Reasoning)."""

import itertools
import random

from spadegym.program import extract_boxed, read_difficulty

SETUP = {1: (5, 5, 1), 2: (6, 6, 2), 3: (6, 7, 3), 4: (7, 8, 4), 5: (8, 9, 5)}
TURNS = {1: 3, 2: 3, 3: 3, 4: 4, 5: 5}
TOGGLES = {1: (2, 3), 2: (2, 3), 3: (3, 3), 4: (3, 4), 5: (4, 5)}
STEPS = {"N": (-1, 0), "S": (1, 0), "E": (0, 1), "W": (0, -1)}
SLASH = {"E": "N", "N": "E", "W": "S", "S": "W"}       # '/'
BACKSLASH = {"E": "S", "S": "E", "W": "N", "N": "W"}   # '\'
SLACK = 2


class MirrorBeamEnv:
    """Mirror Beam: toggle two-sided mirrors until the laser beam hits the target.

    A laser on the left edge fires east across the board. Each mirror is either '/' or '\\'
    and reflects the beam by 90 degrees ('/' turns an eastbound beam north, '\\' turns it
    south); blocks (#) absorb it. Each turn toggle one mirror between '/' and '\\'. Win when
    the beam reaches the target T, within the turn limit. Answer like \\boxed{toggle M2}.
    """

    max_turns = 10
    skill = "Spatial_Reasoning"

    def reset(self, seed=None, options=None):
        """Lay out a new board from ``seed``; the difficulty in ``options`` sets its size."""
        self.rng = random.Random(seed)
        self.difficulty = read_difficulty(options, default=2)
        self.size, count, blocks = SETUP[self.difficulty]
        low, high = TOGGLES[self.difficulty]
        while True:
            self.source = self.rng.randrange(self.size)
            route = self.random_route(TURNS[self.difficulty])
            if route is None:
                continue
            path_cells, bends, self.target = route
            free = [(r, c) for r in range(self.size) for c in range(1, self.size)
                    if (r, c) not in path_cells and (r, c) != self.target]
            decoys = self.rng.sample(free, count - len(bends) + blocks)
            mirrors = dict(bends)
            for cell in decoys[: count - len(bends)]:
                mirrors[cell] = self.rng.choice("/\\")
            self.blocks = set(decoys[count - len(bends):])
            self.mirrors = sorted(mirrors)
            # start from the working setting with some bends turned the wrong way
            start = [mirrors[m] for m in self.mirrors]
            wrong = self.rng.sample(sorted(bends), min(len(bends), self.rng.randint(low, high)))
            for cell in wrong:
                i = self.mirrors.index(cell)
                start[i] = "\\" if start[i] == "/" else "/"
            start = tuple(start)
            winners = [cfg for cfg in itertools.product("/\\", repeat=count) if self.hits(cfg)]
            distance = min(sum(1 for a, b in zip(start, w) if a != b) for w in winners)
            if low <= distance <= high:
                break
        self.start = start
        self.state = list(start)
        self.winners = winners
        self.limit = distance + SLACK
        self.turn = 0
        self.done = False
        return self.render("The laser hums."), self.info()

    def random_route(self, turns):
        """A self-avoiding beam route: (cells passed, {bend cell: mirror}, target), or None."""
        r, c, heading = self.source, 0, "E"
        cells = {(r, c)}
        bends = {}
        for leg in range(turns + 1):
            dr, dc = STEPS[heading]
            for k in range(self.rng.randint(1, 3)):
                r, c = r + dr, c + dc
                if not (0 <= r < self.size and 1 <= c < self.size) or (r, c) in cells:
                    return None
                cells.add((r, c))
            if leg == turns:
                break
            new_heading = self.rng.choice(["N", "S"] if heading in "EW" else ["E", "W"])
            kind = "/" if SLASH[heading] == new_heading else "\\"
            bends[(r, c)] = kind
            heading = new_heading
        cells.discard((r, c))
        return cells, bends, (r, c)

    def trace(self, cfg):
        """The cells the beam passes through and whether it reaches the target."""
        kinds = dict(zip(self.mirrors, cfg))
        r, c, heading = self.source, 0, "E"
        path = []
        seen = set()
        while 0 <= r < self.size and 0 <= c < self.size and (r, c, heading) not in seen:
            seen.add((r, c, heading))
            cell = (r, c)
            if cell in self.blocks:
                break
            path.append(cell)
            if cell == self.target:
                return path, True
            if cell in kinds:
                heading = SLASH[heading] if kinds[cell] == "/" else BACKSLASH[heading]
            dr, dc = STEPS[heading]
            r, c = r + dr, c + dc
        return path, False

    def hits(self, cfg):
        """True when the beam reaches the target under mirror settings ``cfg``."""
        return self.trace(cfg)[1]

    def info(self):
        """A small JSON-able summary of the state."""
        return {"turn": self.turn, "mirrors": "".join(self.state), "limit": self.limit,
                "difficulty": self.difficulty}

    def render(self, result):
        """The observation text: result, board with the beam, actions and progress."""
        path, hit = self.trace(self.state)
        lit = set(path)
        lines = [f"Turn {self.turn} of {self.limit}.", result,
                 "Board (> laser, / and \\ mirrors, # block, T target, * beam, . empty; north is up):",
                 "   " + "".join(str(c % 10) for c in range(self.size))]
        for r in range(self.size):
            line = f"{r:2d} "
            for c in range(self.size):
                cell = (r, c)
                if c == 0 and r == self.source:
                    line += ">"
                elif cell in self.mirrors:
                    line += self.state[self.mirrors.index(cell)]
                elif cell == self.target:
                    line += "T"
                elif cell in self.blocks:
                    line += "#"
                elif cell in lit:
                    line += "*"
                else:
                    line += "."
            lines.append(line + (" <- laser fires east from here" if r == self.source else ""))
        lines.append("Mirrors: " + ", ".join(f"M{i + 1} (row {r}, col {c}) {self.state[i]}"
                                             for i, (r, c) in enumerate(self.mirrors)))
        lines.append("Action: \\boxed{toggle Mk} flips mirror Mk between / and \\.")
        return "\n".join(lines)

    def step(self, action):
        """Toggle one mirror."""
        if self.done:
            return "The episode is over; call reset() to play again.", 0.0, True, False, self.info()
        self.turn += 1
        box = extract_boxed(action)
        words = box.upper().split() if box is not None else []
        if words and words[0] in ("TOGGLE", "FLIP"):
            words = words[1:]
        label = words[0] if len(words) == 1 else ""
        if label.isdigit():
            label = "M" + label
        names = [f"M{i + 1}" for i in range(len(self.mirrors))]
        if box is None:
            result = "No \\boxed{...} answer found; no mirror moved."
        elif label not in names:
            result = f"'{box[:40]}' is not 'toggle Mk' with Mk in M1..M{len(names)}."
        else:
            i = names.index(label)
            self.state[i] = "\\" if self.state[i] == "/" else "/"
            result = f"{label} is now {self.state[i]}."
            if self.hits(self.state):
                self.done = True
                return self.render(result + " The beam hits the target. Solved!"), 1.0, True, False, self.info()
        if self.turn >= self.limit:
            self.done = True
            return self.render(result + " Out of turns."), 0.0, True, False, self.info()
        return self.render(result), 0.0, False, False, self.info()

    def solution(self):
        """Toggle the mirrors that differ from the nearest winning setting (found by enumeration)."""
        best = min(self.winners, key=lambda w: (sum(1 for a, b in zip(self.start, w) if a != b), w))
        return ["\\boxed{toggle M" + str(i + 1) + "}" for i in range(len(self.start)) if self.start[i] != best[i]]

    def hint(self):
        """A nudge about the approach."""
        return ("Work backwards from the target: ask from which directions a beam could enter it "
                "and which mirror would have to send it there, then check that the beam can reach "
                "that mirror from the laser.")
