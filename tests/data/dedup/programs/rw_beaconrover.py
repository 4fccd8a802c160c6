"""Pick up every marker with a robot that only turns and drives."""

import random
from collections import deque

from spadegym.program import extract_boxed

FIELDS = [(6, 1, 5), (7, 2, 7), (7, 2, 10), (8, 3, 12), (9, 3, 16)]
MOVES = [(-1, 0), (0, 1), (1, 0), (0, -1)]
GLYPH = "^>v<"
FACING = ["north (up)", "east (right)", "south (down)", "west (left)"]


class MarkerBotEnv:
    """Marker Bot: guide a robot with relative commands across every marker.

    The robot sits on a square field pointing in one direction (drawn as an arrow). It knows
    only commands relative to itself: rotate 90 degrees left, rotate 90 degrees right, or roll
    ahead n squares (halting early before a boulder or the border). Rolling across a marker or
    stopping on it picks it up. Pick up every marker before the turns run out. Reply with
    \\boxed{left}, \\boxed{right} or \\boxed{forward 3}.
    """

    skill = "Spatial_Reasoning"
    max_turns = 30

    def roll(self, cell, facing, got, n):
        """(cell, collected mask, squares rolled) after trying to roll n squares ahead."""
        dr, dc = MOVES[facing]
        rolled = 0
        for k in range(n):  # noqa: B007
            ahead = (cell[0] + dr, cell[1] + dc)
            blocked = ahead in self.boulders or not (0 <= ahead[0] < self.side and 0 <= ahead[1] < self.side)
            if blocked:
                break
            cell = ahead
            rolled += 1
            if cell in self.markers:
                got = got | (1 << self.markers.index(cell))
        return cell, got, rolled

    def shortest(self):
        """Fewest commands collecting all markers, via breadth-first search."""
        goal = (1 << len(self.markers)) - 1
        back = {self.origin: None}
        frontier = deque([self.origin])
        while frontier:
            state = frontier.popleft()
            cell, facing, got = state
            if got == goal:
                commands = []
                while back[state] is not None:
                    state, command = back[state]
                    commands.insert(0, command)
                return commands
            options = [("left", (cell, (facing + 3) % 4, got)), ("right", (cell, (facing + 1) % 4, got))]
            for n in range(1, self.side):
                end, mask, rolled = self.roll(cell, facing, got, n)
                if rolled < n:
                    break
                options.append(("forward " + str(n), (end, facing, mask)))
            for command, nxt in options:
                if nxt in back:
                    continue
                back[nxt] = (state, command)
                frontier.append(nxt)
        return None

    def reset(self, seed=None, options=None):
        """Scatter boulders and markers."""
        self.rng = random.Random(seed)
        level = 2
        if isinstance(options, dict):
            raw = options.get("difficulty", 2)
            if isinstance(raw, (int, float)) and not isinstance(raw, bool):
                level = max(1, min(5, int(raw)))
        self.level = level
        self.side, markers, boulders = FIELDS[level - 1]
        squares = []
        for r in range(self.side):
            for c in range(self.side):
                squares.append((r, c))
        route = None
        while route is None or not (3 + markers <= len(route) <= 18):
            picked = self.rng.sample(squares, boulders + markers + 1)
            self.boulders = set(picked[:boulders])
            self.markers = picked[boulders:boulders + markers]
            self.origin = (picked[-1], self.rng.randrange(4), 0)
            route = self.shortest()
        self.route = route
        self.cell, self.facing, self.got = self.origin
        self.budget = len(route) + max(3, len(route) // 2)
        self.t = 0
        self.finished = False
        return self.view("The robot wakes up."), self.meta()

    def solution(self):
        """The breadth-first command list."""
        return [f"\\boxed{{{command}}}" for command in self.route]

    def hint(self):
        """Approach only."""
        return ("Always check where the arrow points first: rotating left while facing south leaves "
                "the robot facing east. Order the markers so long straight rolls cross several.")

    def meta(self):
        return {"turn": self.t, "row": self.cell[0], "col": self.cell[1], "heading": GLYPH[self.facing],
                "limit": self.budget, "difficulty": self.level}

    def view(self, note):
        rows = [note, f"{self.budget - self.t} turn(s) left.",
                "Field (arrow = robot and its direction, B marker, b picked up, # boulder, . open; north is up):"]
        for r in range(self.side):
            chars = []
            for c in range(self.side):
                if (r, c) == self.cell:
                    chars.append(GLYPH[self.facing])
                elif (r, c) in self.markers:
                    chars.append("b" if (self.got >> self.markers.index((r, c))) & 1 else "B")
                elif (r, c) in self.boulders:
                    chars.append("#")
                else:
                    chars.append(".")
            rows.append("".join(chars))
        picked = len([k for k in range(len(self.markers)) if (self.got >> k) & 1])
        rows.append(f"The robot points {FACING[self.facing]}. Markers picked up: {picked} of {len(self.markers)}.")
        rows.append("Replies: \\boxed{left}, \\boxed{right} (rotate on the spot), \\boxed{forward n}.")
        return "\n".join(rows)

    def step(self, action):
        """Execute one command."""
        if self.finished:
            return "Game over; reset to play again.", 0.0, True, False, self.meta()
        self.t += 1
        box = extract_boxed(action)
        words = [] if box is None else box.lower().replace("turn", " ").split()
        if words == ["forward"] or words == ["f"]:
            words = ["forward", "1"]
        if box is None:
            note = "No \\boxed{...} reply; the robot idles."
        elif words == ["left"] or words == ["l"]:
            self.facing = (self.facing + 3) % 4
            note = "The robot rotated left."
        elif words == ["right"] or words == ["r"]:
            self.facing = (self.facing + 1) % 4
            note = "The robot rotated right."
        elif len(words) == 2 and words[0] in ("forward", "f") and words[1].isdigit() and len(words[1]) <= 2:
            wanted = int(words[1])
            self.cell, self.got, rolled = self.roll(self.cell, self.facing, self.got, wanted)
            note = f"The robot rolled {rolled} square(s)."
            if rolled < wanted:
                note += " A boulder or the border halted it."
        else:
            note = f"'{box[:40]}' is not a command (left, right, forward n)."
        if self.got == (1 << len(self.markers)) - 1:
            self.finished = True
            return self.view(note + " Every marker picked up. Mission complete!"), 1.0, True, False, self.meta()
        if self.t >= self.budget:
            self.finished = True
            return self.view(note + " The robot's battery is flat."), 0.0, True, False, self.meta()
        return self.view(note), 0.0, False, False, self.meta()
