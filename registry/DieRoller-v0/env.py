"""DieRoller: roll a die across a board so the right face is up at the target (Spatial_Reasoning)."""

import random
from collections import deque

from spadegym.program import extract_boxed, read_difficulty

SETUP = {1: (5, 0, 1), 2: (6, 2, 1), 3: (6, 5, 1), 4: (7, 5, 2), 5: (7, 8, 2)}
MOVES = {"north": (-1, 0), "south": (1, 0), "east": (0, 1), "west": (0, -1)}
ALIASES = {"n": "north", "s": "south", "e": "east", "w": "west", "up": "north", "down": "south",
           "right": "east", "left": "west"}
SLACK = 3


def roll(die, direction):
    """The (top, north, east) faces after tipping the die one square in ``direction``."""
    top, north, east = die
    if direction == "north":
        return 7 - north, top, east
    if direction == "south":
        return north, 7 - top, east
    if direction == "east":
        return 7 - east, north, top
    return east, north, 7 - top


class DieRollerEnv:
    """Die Roller: tip a die square by square so it arrives at each target with the required face up.

    A standard die (opposite faces add up to 7) sits on a board. Each turn tip it over one
    edge, north, south, east or west, so it rolls onto the next square and a new face comes up;
    \\boxed{east 2} tips it twice in the same direction. Rocks (#) cannot be entered. Reach each
    target in order, arriving with the number it requires on top, within the turn limit.
    Answer like \\boxed{north} or \\boxed{west 2}.
    """

    max_turns = 30
    skill = "Spatial_Reasoning"

    def reset(self, seed=None, options=None):
        """Lay out a new board from ``seed``; the difficulty in ``options`` sets its size."""
        self.rng = random.Random(seed)
        self.difficulty = read_difficulty(options, default=2)
        self.size, rocks, count = SETUP[self.difficulty]
        while True:
            cells = [(r, c) for r in range(self.size) for c in range(self.size)]
            chosen = self.rng.sample(cells, rocks + count + 1)
            self.rocks = set(chosen[:rocks])
            self.targets = [(cell, self.rng.randint(1, 6)) for cell in chosen[rocks:rocks + count]]
            top = self.rng.randint(1, 6)
            north = self.rng.choice([f for f in range(1, 7) if f not in (top, 7 - top)])
            east = self.rng.choice([f for f in range(1, 7) if f not in (top, 7 - top, north, 7 - north)])
            self.start = (chosen[-1], (top, north, east), 0)
            rolls = self.search()
            if rolls is not None and 4 <= len(rolls) <= self.max_turns - SLACK - 6:
                break
        self.rolls = rolls
        self.pos, self.die, self.stage = self.start
        self.limit = len(rolls) + SLACK
        self.turn = 0
        self.done = False
        return self.render("The die is on the board."), self.info()

    def search(self):
        """Fewest single rolls that meet every target in order (breadth-first search), or None."""
        prev = {self.start: None}
        queue = deque([self.start])
        while queue:
            state = queue.popleft()
            pos, die, stage = state
            if stage == len(self.targets):
                out = []
                while prev[state] is not None:
                    state, name = prev[state]
                    out.append(name)
                return out[::-1]
            for name, (dr, dc) in MOVES.items():
                nxt_pos = (pos[0] + dr, pos[1] + dc)
                if not (0 <= nxt_pos[0] < self.size and 0 <= nxt_pos[1] < self.size) or nxt_pos in self.rocks:
                    continue
                nxt_die = roll(die, name)
                nxt_stage = stage + (self.targets[stage] == (nxt_pos, nxt_die[0]))
                nxt = (nxt_pos, nxt_die, nxt_stage)
                if nxt not in prev:
                    prev[nxt] = (state, name)
                    queue.append(nxt)
        return None

    def info(self):
        """A small JSON-able summary of the state."""
        return {"turn": self.turn, "row": self.pos[0], "col": self.pos[1], "top": self.die[0],
                "targets_met": self.stage, "limit": self.limit, "difficulty": self.difficulty}

    def render(self, result):
        """The observation text: result, board, die faces, actions and progress."""
        lines = [f"Turn {self.turn} of {self.limit}.", result,
                 "Board (D die, digits = targets in order, # rock, . floor; north is up):"]
        for r in range(self.size):
            line = ""
            for c in range(self.size):
                cell = (r, c)
                mark = "."
                for i, (t, face) in enumerate(self.targets):
                    if t == cell and i >= self.stage:
                        mark = str(i + 1)
                if cell == self.pos:
                    mark = "D"
                elif cell in self.rocks:
                    mark = "#"
                line += mark
            lines.append(line)
        top, north, east = self.die
        lines.append(f"Die faces now: top {top}, bottom {7 - top}, north side {north}, south side {7 - north}, "
                     f"east side {east}, west side {7 - east}.")
        for i, (cell, face) in enumerate(self.targets):
            status = "done" if i < self.stage else "open"
            lines.append(f"Target {i + 1}: arrive with {face} on top ({status}).")
        lines.append("Actions: \\boxed{north}, \\boxed{south}, \\boxed{east}, \\boxed{west}, optionally with a count (\\boxed{east 2}).")
        return "\n".join(lines)

    def step(self, action):
        """Tip the die one or more times in one direction."""
        if self.done:
            return "The episode is over; call reset() to play again.", 0.0, True, False, self.info()
        self.turn += 1
        box = extract_boxed(action)
        words = box.lower().split() if box is not None else []
        if words and words[0] in ("roll", "tip"):
            words = words[1:]
        name = ALIASES.get(words[0], words[0]) if words else ""
        if box is None:
            result = "No \\boxed{...} answer found; the die stayed put."
        elif name not in MOVES or len(words) > 2 or (len(words) == 2 and (not words[1].isdigit() or len(words[1]) > 2)):
            result = f"'{box[:40]}' is not a direction (north, south, east, west) with an optional count."
        else:
            n = int(words[1]) if len(words) == 2 else 1
            dr, dc = MOVES[name]
            done_rolls = 0
            while done_rolls < n and self.stage < len(self.targets):
                nxt = (self.pos[0] + dr, self.pos[1] + dc)
                if not (0 <= nxt[0] < self.size and 0 <= nxt[1] < self.size) or nxt in self.rocks:
                    break
                self.pos = nxt
                self.die = roll(self.die, name)
                done_rolls += 1
                if self.targets[self.stage] == (self.pos, self.die[0]):
                    self.stage += 1
            result = f"The die rolled {name} {done_rolls} time(s); {self.die[0]} is on top."
            if done_rolls < n and self.stage < len(self.targets):
                result += " A rock or the edge stopped it."
        if self.stage == len(self.targets):
            self.done = True
            return self.render(result + " Every target met. Solved!"), 1.0, True, False, self.info()
        if self.turn >= self.limit:
            self.done = True
            return self.render(result + " Out of turns."), 0.0, True, False, self.info()
        return self.render(result), 0.0, False, False, self.info()

    def solution(self):
        """The fewest rolls (breadth-first search over position and orientation), grouped by direction."""
        out = []
        for name in self.rolls:
            if out and out[-1][0] == name:
                out[-1][1] += 1
            else:
                out.append([name, 1])
        return ["\\boxed{" + f"{name} {n}" + "}" for name, n in out]

    def hint(self):
        """A nudge about the approach."""
        return ("Rolling north brings the south side up, rolling east brings the west side up, "
                "and so on; four rolls the same way return the same face. Plan a detour of a few "
                "sideways rolls to change the top face before the final approach.")
