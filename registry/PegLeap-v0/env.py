"""PegLeap: clear a peg-solitaire board down to one peg (Spatial_Reasoning)."""

import random

from spadegym.program import extract_boxed, read_difficulty

SETUP = {1: (4, 4), 2: (5, 6), 3: (5, 8), 4: (6, 10), 5: (6, 12)}
STEPS = [(-1, 0), (1, 0), (0, -1), (0, 1)]
SLACK = 2
COLUMNS = "abcdef"


def name(cell):
    """A square's name: column letter then row number, e.g. b3 (row 1 is the top)."""
    return COLUMNS[cell[1]] + str(cell[0] + 1)


def legal_jumps(pegs, size):
    """Every (from, over, to) jump available with pegs at ``pegs``."""
    out = []
    for r, c in sorted(pegs):
        for dr, dc in STEPS:
            over = (r + dr, c + dc)
            to = (r + 2 * dr, c + 2 * dc)
            if 0 <= to[0] < size and 0 <= to[1] < size and over in pegs and to not in pegs:
                out.append(((r, c), over, to))
    return out


class PegLeapEnv:
    """Peg Leap: jump pegs over each other until only one peg is left.

    The square board has pegs (o) and holes (.). Each turn jump one peg over a neighbouring
    peg (up, down, left or right, not diagonally) into the empty hole directly beyond; the
    jumped peg is removed. Win by leaving exactly one peg. If no jump is possible while two or
    more pegs remain, you lose. Answer with the two squares, like \\boxed{b3 d3}.
    """

    max_turns = 16
    skill = "Spatial_Reasoning"

    def reset(self, seed=None, options=None):
        """Build a new board from ``seed``; the difficulty in ``options`` sets size and pegs."""
        self.rng = random.Random(seed)
        self.difficulty = read_difficulty(options, default=2)
        self.size, jumps = SETUP[self.difficulty]
        while True:
            # play the game backwards from a single peg: an "unjump" adds a peg each time
            pegs = {(self.rng.randrange(self.size), self.rng.randrange(self.size))}
            history = []
            for i in range(jumps):
                options_now = []
                for to in sorted(pegs):
                    for dr, dc in STEPS:
                        over = (to[0] - dr, to[1] - dc)
                        start = (to[0] - 2 * dr, to[1] - 2 * dc)
                        if (0 <= start[0] < self.size and 0 <= start[1] < self.size
                                and over not in pegs and start not in pegs):
                            options_now.append((start, over, to))
                if not options_now:
                    break
                start, over, to = self.rng.choice(options_now)
                pegs = (pegs - {to}) | {start, over}
                history.append((start, over, to))
            if len(history) == jumps:
                break
        self.start = frozenset(pegs)
        self.pegs = set(pegs)
        self.plan = history[::-1]
        self.limit = jumps + SLACK
        self.turn = 0
        self.done = False
        return self.render("The pegs are set."), self.info()

    def info(self):
        """A small JSON-able summary of the state."""
        return {"turn": self.turn, "pegs": len(self.pegs), "limit": self.limit,
                "difficulty": self.difficulty}

    def render(self, result):
        """The observation text: result, board, actions and progress."""
        lines = [f"Turn {self.turn} of {self.limit}.", result,
                 "Board (o peg, . hole; columns a.., rows 1.. from the top):",
                 "   " + " ".join(COLUMNS[: self.size])]
        for r in range(self.size):
            lines.append(f"{r + 1:2d} " + " ".join("o" if (r, c) in self.pegs else "." for c in range(self.size)))
        lines.append(f"Pegs left: {len(self.pegs)}.")
        lines.append("Action: \\boxed{FROM TO}, e.g. \\boxed{b3 d3}: the peg on FROM jumps over its neighbour into the hole TO.")
        return "\n".join(lines)

    def cell(self, word):
        """The (row, col) of a square name like b3, or None."""
        word = word.strip().lower()
        if len(word) < 2 or word[0] not in COLUMNS[: self.size] or not word[1:].isdigit() or len(word) > 3:
            return None
        row = int(word[1:]) - 1
        return (row, COLUMNS.index(word[0])) if 0 <= row < self.size else None

    def step(self, action):
        """Make one jump."""
        if self.done:
            return "The episode is over; call reset() to play again.", 0.0, True, False, self.info()
        self.turn += 1
        box = extract_boxed(action)
        words = box.replace(",", " ").replace("->", " ").replace("-", " ").split() if box is not None else []
        if words and words[0].lower() in ("jump", "move"):
            words = words[1:]
        if words and words[-1].lower() in ("to",):
            words = words[:-1]
        words = [w for w in words if w.lower() != "to"]
        cells = [self.cell(w) for w in words]
        if box is None:
            result = "No \\boxed{...} answer found; no peg moved."
        elif len(cells) != 2 or None in cells:
            result = f"'{box[:40]}' is not two square names like 'b3 d3' on this {self.size}x{self.size} board."
        else:
            start, to = cells
            jump = [j for j in legal_jumps(self.pegs, self.size) if j[0] == start and j[2] == to]
            if not jump:
                result = (f"{name(start)} to {name(to)} is not a legal jump: you need a peg on "
                          f"{name(start)}, a peg between, and an empty hole two squares away in a straight line.")
            else:
                over = jump[0][1]
                self.pegs = (self.pegs - {start, over}) | {to}
                result = f"The peg on {name(start)} jumped over {name(over)} to {name(to)}."
                if len(self.pegs) == 1:
                    self.done = True
                    return self.render(result + " One peg left. Solved!"), 1.0, True, False, self.info()
                if not legal_jumps(self.pegs, self.size):
                    self.done = True
                    return self.render(result + " No jumps are left: the board is stuck."), 0.0, True, False, self.info()
        if self.turn >= self.limit:
            self.done = True
            return self.render(result + " Out of turns."), 0.0, True, False, self.info()
        return self.render(result), 0.0, False, False, self.info()

    def solution(self):
        """The board's construction replayed forwards: each recorded unjump, undone in order."""
        return ["\\boxed{" + name(a) + " " + name(c) + "}" for a, b, c in self.plan]

    def hint(self):
        """A nudge about the approach."""
        return ("Avoid stranding a peg far from the others: before each jump, check that every "
                "remaining peg still has a partner it can eventually jump or be jumped by, and "
                "clear outlying pegs early.")
