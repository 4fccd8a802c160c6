"""TileSlider: solve a small sliding-tile puzzle (Spatial_Reasoning)."""

import heapq
import random

from spadegym.program import extract_boxed, read_difficulty

SHAPE = {1: (3, 3), 2: (3, 3), 3: (3, 3), 4: (3, 4), 5: (3, 4)}
SCRAMBLE = {1: (6, 8), 2: (8, 11), 3: (12, 15), 4: (12, 15), 5: (16, 19)}
NEIGHBOURS = [(-1, 0), (1, 0), (0, -1), (0, 1)]


def slides(board, rows, cols):
    """(tile moved, next board) for every tile next to the gap (0)."""
    gap = board.index(0)
    r, c = divmod(gap, cols)
    out = []
    for dr, dc in NEIGHBOURS:
        nr, nc = r + dr, c + dc
        if 0 <= nr < rows and 0 <= nc < cols:
            other = nr * cols + nc
            nxt = list(board)
            nxt[gap], nxt[other] = nxt[other], 0
            out.append((board[other], tuple(nxt)))
    return out


def manhattan(board, rows, cols):
    """Sum of each tile's distance from its home square (a lower bound on moves)."""
    total = 0
    for i, tile in enumerate(board):
        if tile:
            home = tile - 1
            total += abs(i // cols - home // cols) + abs(i % cols - home % cols)
    return total


def astar(board, rows, cols):
    """Optimal tile moves from ``board`` to the solved board, by A* with Manhattan distance."""
    goal = tuple(list(range(1, rows * cols)) + [0])
    frontier = [(manhattan(board, rows, cols), 0, board)]
    prev = {board: None}
    cost = {board: 0}
    while frontier:
        f, g, state = heapq.heappop(frontier)
        if state == goal:
            break
        if g > cost[state]:
            continue
        for tile, nxt in slides(state, rows, cols):
            if nxt not in cost or g + 1 < cost[nxt]:
                cost[nxt] = g + 1
                prev[nxt] = (state, tile)
                heapq.heappush(frontier, (g + 1 + manhattan(nxt, rows, cols), g + 1, nxt))
    moves = []
    state = goal
    while prev[state] is not None:
        state, tile = prev[state]
        moves.append(tile)
    return moves[::-1]


class TileSliderEnv:
    """Tile Slider: slide numbered tiles into order, with the gap in the bottom-right corner.

    The board holds numbered tiles and one gap. Each turn slide one tile that is next to the
    gap (above, below, left or right of it) into the gap. Win when the tiles read 1, 2, 3, ...
    row by row with the gap last, within the move limit. Answer with the tile number, e.g.
    \\boxed{5}.
    """

    max_turns = 30
    skill = "Spatial_Reasoning"

    def reset(self, seed=None, options=None):
        """Scramble a new board from ``seed``; the difficulty in ``options`` sets size and depth."""
        self.rng = random.Random(seed)
        self.difficulty = read_difficulty(options, default=2)
        self.rows, self.cols = SHAPE[self.difficulty]
        low, high = SCRAMBLE[self.difficulty]
        goal = tuple(list(range(1, self.rows * self.cols)) + [0])
        while True:
            board = goal
            last = None
            for i in range(self.rng.randint(high, high + 6)):
                options_now = [(t, b) for t, b in slides(board, self.rows, self.cols) if t != last]
                last, board = self.rng.choice(options_now)
            if not low <= manhattan(board, self.rows, self.cols) <= high:
                continue  # cheap filter before the search
            plan = astar(board, self.rows, self.cols)
            if low <= len(plan) <= high:
                break
        self.start = board
        self.board = board
        self.optimal = len(plan)
        self.limit = self.optimal + max(4, self.optimal // 2)
        self.turn = 0
        self.done = False
        return self.render("The tiles are scrambled."), self.info()

    def info(self):
        """A small JSON-able summary of the state."""
        return {"turn": self.turn, "board": list(self.board), "limit": self.limit,
                "difficulty": self.difficulty}

    def render(self, result):
        """The observation text: result, board, actions and progress."""
        width = len(str(self.rows * self.cols - 1))
        lines = [f"Turn {self.turn} of {self.limit}.", result, "Board (_ is the gap):"]
        for r in range(self.rows):
            cells = self.board[r * self.cols:(r + 1) * self.cols]
            lines.append("  " + " ".join(str(t).rjust(width) if t else "_".rjust(width) for t in cells))
        movable = sorted(t for t, b in slides(self.board, self.rows, self.cols))
        lines.append(f"Tiles next to the gap: {', '.join(str(t) for t in movable)}.")
        lines.append("Action: \\boxed{N} slides tile N into the gap.")
        return "\n".join(lines)

    def step(self, action):
        """Slide one tile."""
        if self.done:
            return "The episode is over; call reset() to play again.", 0.0, True, False, self.info()
        self.turn += 1
        box = extract_boxed(action)
        options_now = dict(slides(self.board, self.rows, self.cols))
        text = box.strip() if box is not None else ""
        if box is None:
            result = "No \\boxed{...} answer found; nothing moved."
        elif not text.isdigit() or len(text) > 3 or int(text) not in options_now:
            result = f"'{text[:40]}' is not a tile next to the gap; nothing moved."
        else:
            self.board = options_now[int(text)]
            result = f"Tile {int(text)} slid into the gap."
            if self.board == tuple(list(range(1, self.rows * self.cols)) + [0]):
                self.done = True
                return self.render(result + " The tiles are in order. Solved!"), 1.0, True, False, self.info()
        if self.turn >= self.limit:
            self.done = True
            return self.render(result + " Out of moves."), 0.0, True, False, self.info()
        return self.render(result), 0.0, False, False, self.info()

    def solution(self):
        """An optimal move sequence from the scrambled board, found by A* search."""
        return ["\\boxed{" + str(t) + "}" for t in astar(self.start, self.rows, self.cols)]

    def hint(self):
        """A nudge about the approach."""
        return ("Solve the top row first, then the rest. Bring a tile home by walking the gap "
                "around it rather than through it, and never undo your previous slide unless "
                "you are stuck.")
