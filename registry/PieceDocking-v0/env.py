"""PieceDocking: rotate, flip and slide a piece into its outline (Spatial_Reasoning)."""

import random
from collections import deque

from spadegym.program import extract_boxed, read_difficulty

SHAPES = {
    4: [((0, 0), (1, 0), (2, 0), (2, 1)), ((0, 0), (0, 1), (1, 1), (1, 2)), ((0, 0), (0, 1), (0, 2), (1, 1))],
    5: [((0, 0), (1, 0), (1, 1), (1, 2), (2, 2)), ((0, 1), (1, 0), (1, 1), (2, 1), (2, 2)),
        ((0, 0), (1, 0), (2, 0), (3, 0), (3, 1)), ((0, 0), (0, 1), (1, 1), (2, 1), (2, 2)),
        ((0, 0), (1, 0), (1, 1), (2, 1), (3, 1)), ((0, 0), (0, 1), (1, 0), (1, 1), (2, 0))],
    6: [((0, 0), (1, 0), (1, 1), (2, 1), (2, 2), (3, 2)), ((0, 0), (0, 1), (1, 1), (2, 1), (2, 2), (2, 3)),
        ((0, 0), (1, 0), (2, 0), (2, 1), (3, 1), (1, 2)), ((0, 1), (1, 0), (1, 1), (1, 2), (2, 2), (3, 2))],
}
SETUP = {1: (4, 6, 0), 2: (5, 7, 0), 3: (5, 7, 4), 4: (6, 8, 6), 5: (6, 8, 9)}
MIN_TURNS = {1: 3, 2: 4, 3: 4, 4: 5, 5: 6}
DIRS = {"up": (-1, 0), "down": (1, 0), "left": (0, -1), "right": (0, 1)}


def normal(cells):
    """Cells shifted so the smallest row and column are 0, sorted."""
    r0 = min(r for r, c in cells)
    c0 = min(c for r, c in cells)
    return tuple(sorted((r - r0, c - c0) for r, c in cells))


def rotated(cells):
    """The shape turned 90 degrees clockwise."""
    return normal([(c, -r) for r, c in cells])


def flipped(cells):
    """The shape mirrored left-right."""
    return normal([(r, -c) for r, c in cells])


class PieceDockingEnv:
    """Piece Docking: turn, mirror and slide a piece until it exactly covers its outline.

    The board shows your piece (P), the outline it must cover (o) and fixed blocks (#). Each
    turn do one thing: rotate the piece 90 degrees clockwise, flip it left-right, or slide it
    n squares in one direction. Rotating and flipping keep the piece's top-left corner in
    place. The piece can never overlap a block or leave the board. Win when the piece covers
    the outline exactly, within the turn limit. Answer like \\boxed{rotate}, \\boxed{flip} or
    \\boxed{right 3}.
    """

    max_turns = 20
    skill = "Spatial_Reasoning"

    def reset(self, seed=None, options=None):
        """Lay out a new board from ``seed``; the difficulty in ``options`` sets its size."""
        self.rng = random.Random(seed)
        self.difficulty = read_difficulty(options, default=2)
        size_shape, self.size, blocks = SETUP[self.difficulty]
        while True:
            shape = normal(self.rng.choice(SHAPES[size_shape]))
            for i in range(self.rng.randrange(4)):
                shape = rotated(shape)
            target_shape = shape
            for i in range(self.rng.randrange(1, 4)):
                target_shape = rotated(target_shape)
            if self.rng.random() < 0.5:
                target_shape = flipped(target_shape)
            if target_shape == shape:
                continue
            cells = [(r, c) for r in range(self.size) for c in range(self.size)]
            self.blocks = set(self.rng.sample(cells, blocks))
            target_anchor = (self.rng.randrange(self.size), self.rng.randrange(self.size))
            self.target = self.place(target_shape, target_anchor)
            start_anchor = (self.rng.randrange(self.size), self.rng.randrange(self.size))
            if self.target is None or self.place(shape, start_anchor) is None:
                continue
            if set(self.place(shape, start_anchor)) & set(self.target):
                continue
            self.start = (shape, start_anchor)
            plan = self.search()
            if plan is not None and MIN_TURNS[self.difficulty] <= len(plan) <= 14:
                break
        self.plan = plan
        self.shape, self.anchor = self.start
        self.limit = len(plan) + max(3, len(plan) // 2)
        self.turn = 0
        self.done = False
        return self.render("A new piece arrives."), self.info()

    def place(self, shape, anchor):
        """Board cells of ``shape`` at ``anchor``, or None when off the board or on a block."""
        out = []
        for r, c in shape:
            cell = (r + anchor[0], c + anchor[1])
            if not (0 <= cell[0] < self.size and 0 <= cell[1] < self.size) or cell in self.blocks:
                return None
            out.append(cell)
        return tuple(sorted(out))

    def moves(self, shape, anchor):
        """(action text, new shape, new anchor) for every legal action."""
        out = []
        for name, turned in (("rotate", rotated(shape)), ("flip", flipped(shape))):
            if turned != shape and self.place(turned, anchor) is not None:
                out.append((name, turned, anchor))
        for name, (dr, dc) in DIRS.items():
            n = 1
            while self.place(shape, (anchor[0] + n * dr, anchor[1] + n * dc)) is not None:
                out.append((f"{name} {n}", shape, (anchor[0] + n * dr, anchor[1] + n * dc)))
                n += 1
        return out

    def search(self):
        """Fewest actions from the start to covering the outline (breadth-first search)."""
        prev = {self.start: None}
        queue = deque([self.start])
        while queue:
            state = queue.popleft()
            if self.place(state[0], state[1]) == self.target:
                actions = []
                while prev[state] is not None:
                    state, text = prev[state]
                    actions.append(text)
                return actions[::-1]
            for text, shape, anchor in self.moves(state[0], state[1]):
                nxt = (shape, anchor)
                if nxt not in prev:
                    prev[nxt] = (state, text)
                    queue.append(nxt)
        return None

    def info(self):
        """A small JSON-able summary of the state."""
        return {"turn": self.turn, "anchor": list(self.anchor), "limit": self.limit,
                "difficulty": self.difficulty}

    def render(self, result):
        """The observation text: result, board, actions and progress."""
        piece = set(self.place(self.shape, self.anchor))
        lines = [f"Turn {self.turn} of {self.limit}.", result,
                 "Board (P piece, o outline, * piece on outline, # block, . empty; up is the top row):"]
        for r in range(self.size):
            line = ""
            for c in range(self.size):
                cell = (r, c)
                if cell in piece:
                    line += "*" if cell in self.target else "P"
                elif cell in self.target:
                    line += "o"
                elif cell in self.blocks:
                    line += "#"
                else:
                    line += "."
            lines.append(line)
        lines.append("Actions: \\boxed{rotate} (90 degrees clockwise), \\boxed{flip} (left-right), "
                     "\\boxed{up n}, \\boxed{down n}, \\boxed{left n}, \\boxed{right n}.")
        return "\n".join(lines)

    def step(self, action):
        """Rotate, flip or slide the piece."""
        if self.done:
            return "The episode is over; call reset() to play again.", 0.0, True, False, self.info()
        self.turn += 1
        box = extract_boxed(action)
        words = box.lower().split() if box is not None else []
        if words in (["rotate", "cw"], ["rotate", "clockwise"], ["flip", "horizontal"]):
            words = words[:1]
        if len(words) == 1 and words[0] in DIRS:
            words.append("1")
        if box is None:
            result = "No \\boxed{...} answer found; the piece did not move."
        elif words in (["rotate"], ["flip"]):
            turned = rotated(self.shape) if words[0] == "rotate" else flipped(self.shape)
            if self.place(turned, self.anchor) is None:
                result = f"The piece cannot {words[0]} here: it would hit a block or the edge."
            else:
                self.shape = turned
                result = "The piece turned." if words[0] == "rotate" else "The piece flipped."
        elif len(words) == 2 and words[0] in DIRS and words[1].isdigit() and len(words[1]) <= 2:
            dr, dc = DIRS[words[0]]
            n = int(words[1])
            if n == 0 or self.place(self.shape, (self.anchor[0] + n * dr, self.anchor[1] + n * dc)) is None:
                result = f"The piece cannot slide {words[0]} {n}: it would hit a block or the edge."
            elif any(self.place(self.shape, (self.anchor[0] + k * dr, self.anchor[1] + k * dc)) is None
                     for k in range(1, n)):
                result = f"Something is in the way; the piece cannot slide {words[0]} {n}."
            else:
                self.anchor = (self.anchor[0] + n * dr, self.anchor[1] + n * dc)
                result = f"The piece slid {words[0]} {n}."
        else:
            result = f"'{box[:40]}' is not rotate, flip, or a direction with a distance."
        if self.place(self.shape, self.anchor) == self.target:
            self.done = True
            return self.render(result + " The piece fits the outline. Solved!"), 1.0, True, False, self.info()
        if self.turn >= self.limit:
            self.done = True
            return self.render(result + " Out of turns."), 0.0, True, False, self.info()
        return self.render(result), 0.0, False, False, self.info()

    def solution(self):
        """The fewest actions, found by breadth-first search over orientations and positions."""
        return ["\\boxed{" + text + "}" for text in self.plan]

    def hint(self):
        """A nudge about the approach."""
        return ("Compare the piece and the outline cell by cell to decide how many quarter turns "
                "and whether a mirror flip are needed, and turn the piece where there is room "
                "before sliding it into place.")
