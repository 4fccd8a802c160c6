"""BeaconRover: steer a rover with relative turns to visit every beacon (Spatial_Reasoning)."""

import random
from collections import deque

from spadegym.program import extract_boxed, read_difficulty

SETUP = {1: (6, 1, 5), 2: (7, 2, 7), 3: (7, 2, 10), 4: (8, 3, 12), 5: (9, 3, 16)}
HEADINGS = [(-1, 0), (0, 1), (1, 0), (0, -1)]  # north, east, south, west: clockwise order
ARROWS = "^>v<"
HEADING_NAMES = ["north (up)", "east (right)", "south (down)", "west (left)"]


class BeaconRoverEnv:
    """Beacon Rover: drive a rover with relative commands so it passes over every beacon.

    The rover stands on a square grid facing one way (shown as an arrow). It only understands
    commands relative to itself: turn left 90 degrees, turn right 90 degrees, or drive forward
    n squares (it stops early in front of a rock or the edge). A beacon is collected when the
    rover drives over it or stops on it. Collect all beacons within the turn limit. Answer like
    \\boxed{left}, \\boxed{right} or \\boxed{forward 3}.
    """

    max_turns = 30
    skill = "Spatial_Reasoning"

    def reset(self, seed=None, options=None):
        """Lay out a new field from ``seed``; the difficulty in ``options`` sets its size."""
        self.rng = random.Random(seed)
        self.difficulty = read_difficulty(options, default=2)
        self.size, count, rocks = SETUP[self.difficulty]
        while True:
            cells = [(r, c) for r in range(self.size) for c in range(self.size)]
            chosen = self.rng.sample(cells, rocks + count + 1)
            self.rocks = set(chosen[:rocks])
            self.beacons = chosen[rocks:rocks + count]
            self.start = (chosen[-1], self.rng.randrange(4), 0)
            plan = self.search()
            if plan is not None and 3 + count <= len(plan) <= 18:
                break
        self.plan = plan
        self.pos, self.heading, self.mask = self.start
        self.limit = len(plan) + max(3, len(plan) // 2)
        self.turn = 0
        self.done = False
        return self.render("The rover powers up."), self.info()

    def drive(self, pos, heading, mask, n):
        """(new position, new mask, squares moved) after trying to drive n squares forward."""
        dr, dc = HEADINGS[heading]
        moved = 0
        while moved < n:
            nxt = (pos[0] + dr, pos[1] + dc)
            if not (0 <= nxt[0] < self.size and 0 <= nxt[1] < self.size) or nxt in self.rocks:
                break
            pos = nxt
            moved += 1
            if pos in self.beacons:
                mask |= 1 << self.beacons.index(pos)
        return pos, mask, moved

    def search(self):
        """Fewest commands that collect every beacon (breadth-first search), or None."""
        full = (1 << len(self.beacons)) - 1
        prev = {self.start: None}
        queue = deque([self.start])
        while queue:
            state = queue.popleft()
            pos, heading, mask = state
            if mask == full:
                actions = []
                while prev[state] is not None:
                    state, text = prev[state]
                    actions.append(text)
                return actions[::-1]
            nexts = [("left", (pos, (heading + 3) % 4, mask)), ("right", (pos, (heading + 1) % 4, mask))]
            for n in range(1, self.size):
                new_pos, new_mask, moved = self.drive(pos, heading, mask, n)
                if moved < n:
                    break
                nexts.append((f"forward {n}", (new_pos, heading, new_mask)))
            for text, nxt in nexts:
                if nxt not in prev:
                    prev[nxt] = (state, text)
                    queue.append(nxt)
        return None

    def info(self):
        """A small JSON-able summary of the state."""
        return {"turn": self.turn, "row": self.pos[0], "col": self.pos[1], "heading": ARROWS[self.heading],
                "limit": self.limit, "difficulty": self.difficulty}

    def render(self, result):
        """The observation text: result, map, actions and progress."""
        lines = [f"Turn {self.turn} of {self.limit}.", result,
                 "Map (arrow = rover and its heading, B beacon, b collected beacon, # rock, . ground; up is north):"]
        for r in range(self.size):
            line = ""
            for c in range(self.size):
                cell = (r, c)
                if cell == self.pos:
                    line += ARROWS[self.heading]
                elif cell in self.beacons:
                    line += "b" if self.mask >> self.beacons.index(cell) & 1 else "B"
                elif cell in self.rocks:
                    line += "#"
                else:
                    line += "."
            lines.append(line)
        got = sum(1 for i in range(len(self.beacons)) if self.mask >> i & 1)
        lines.append(f"The rover faces {HEADING_NAMES[self.heading]}. Beacons collected: {got} of {len(self.beacons)}.")
        lines.append("Actions: \\boxed{left}, \\boxed{right} (turn in place), \\boxed{forward n}.")
        return "\n".join(lines)

    def step(self, action):
        """Run one rover command."""
        if self.done:
            return "The episode is over; call reset() to play again.", 0.0, True, False, self.info()
        self.turn += 1
        box = extract_boxed(action)
        words = box.lower().replace("turn", " ").split() if box is not None else []
        if words in (["forward"], ["f"]):
            words = ["forward", "1"]
        if box is None:
            result = "No \\boxed{...} answer found; the rover waits."
        elif words in (["left"], ["l"]):
            self.heading = (self.heading + 3) % 4
            result = "The rover turned left."
        elif words in (["right"], ["r"]):
            self.heading = (self.heading + 1) % 4
            result = "The rover turned right."
        elif len(words) == 2 and words[0] in ("forward", "f") and words[1].isdigit() and len(words[1]) <= 2:
            n = int(words[1])
            self.pos, self.mask, moved = self.drive(self.pos, self.heading, self.mask, n)
            result = f"The rover drove {moved} square(s)."
            if moved < n:
                result += " A rock or the edge stopped it."
        else:
            result = f"'{box[:40]}' is not a command (left, right, forward n)."
        if self.mask == (1 << len(self.beacons)) - 1:
            self.done = True
            return self.render(result + " All beacons collected. Solved!"), 1.0, True, False, self.info()
        if self.turn >= self.limit:
            self.done = True
            return self.render(result + " The battery is empty."), 0.0, True, False, self.info()
        return self.render(result), 0.0, False, False, self.info()

    def solution(self):
        """The fewest commands, found by breadth-first search over position, heading and beacons."""
        return ["\\boxed{" + text + "}" for text in self.plan]

    def hint(self):
        """A nudge about the approach."""
        return ("Before each turn, ask which way the arrow points: turning left from facing south "
                "makes the rover face east. Choose a beacon order that lets long straight drives "
                "pass over several beacons.")
