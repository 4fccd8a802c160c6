"""Gravity board duel: four of your tokens in a line wins."""

import random

from spadegym.program import extract_boxed

BOARDS = {1: (5, 5, 2), 2: (5, 6, 2), 3: (6, 7, 1), 4: (6, 7, 3), 5: (7, 8, 3)}
LINES = [(0, 1), (1, 0), (1, 1), (1, -1)]


def has_four(grid, token):
    """True when ``token`` fills four consecutive cells in some direction."""
    height, width = len(grid), len(grid[0])
    for r in range(height):
        for c in range(width):
            for dr, dc in LINES:
                end_r, end_c = r + 3 * dr, c + 3 * dc
                if end_r < 0 or end_r >= height or end_c < 0 or end_c >= width:
                    continue
                run = 0
                for i in range(4):
                    if grid[r + dr * i][c + dc * i] == token:
                        run += 1
                if run == 4:
                    return True
    return False


class DropLineDuelEnv:
    """Drop Line Duel: be first to get four tokens in a line.

    Two seats alternate dropping a token (X or O) down a column, where it lands on the lowest
    empty cell. Rocks (#) are neutral and block like tokens. Four of your tokens in a row,
    column or diagonal win; a full grid with no line is a tie. Reply with a column number,
    like \\boxed{4}. Dropping into a full column or an unreadable reply loses immediately."""

    skill = "Two_Player"
    num_players = 2
    max_turns = 60

    def hint(self):
        """Approach only."""
        return ("Before anything else check whether some column completes your own line of four; "
                "next check whether your rival has one and block it. Middle columns belong to "
                "the most lines, and rocks cut the lines running through them.")

    def reset(self, seed=None, options=None):
        """Build the grid, place the rocks, choose the opening seat."""
        self.rng = random.Random(seed)
        level = options.get("difficulty", 2) if isinstance(options, dict) else 2
        if isinstance(level, bool) or not isinstance(level, int):
            level = 2
        self.level = min(5, max(1, level))
        self.height, self.width, rocks = BOARDS[self.level]
        self.grid = []
        for _ in range(self.height):
            self.grid.append(["."] * self.width)
        for column in self.rng.sample(range(self.width), rocks):
            stack = self.rng.randint(1, 2)
            k = 0
            while k < stack:
                self.grid[self.height - 1 - k][column] = "#"
                k += 1
        self.mover = self.rng.randrange(2)
        self.tokens = ["X", "O"] if self.mover == 0 else ["O", "X"]
        self.moves_made = 0
        self.ended = False
        self.score = None
        return self.picture("A fresh grid."), {"player": self.mover}

    def step(self, action):
        """Drop the mover's token, or forfeit on a bad reply."""
        if self.ended:
            return "The duel has ended.", 0.0, True, False, {"player": self.mover, "outcome": self.score}
        self.moves_made += 1
        reply = extract_boxed(action)
        reply = reply.strip() if isinstance(reply, str) else ""
        if reply not in self.open_columns():
            what = reply[:20] if reply else "no \\boxed{column}"
            return self.conclude(1 - self.mover, f"Seat {self.mover} made an illegal move ({what!r} is not an open column) and forfeits.")
        column = int(reply) - 1
        landing = max([r for r in range(self.height) if self.grid[r][column] == "."])
        self.grid[landing][column] = self.tokens[self.mover]
        if has_four(self.grid, self.tokens[self.mover]):
            return self.conclude(self.mover, f"Seat {self.mover} dropped into column {reply}: four in a line, seat {self.mover} wins.")
        if not self.open_columns():
            return self.conclude(None, f"Seat {self.mover} dropped into column {reply}. No room is left: a tie.")
        note = f"Seat {self.mover} dropped a token into column {reply}."
        self.mover = 1 - self.mover
        return self.picture(note), 0.0, False, False, {"player": self.mover}

    def conclude(self, winner, text):
        """Finish the duel; winner 0, 1, or None for a tie."""
        self.ended = True
        if winner is None:
            self.score = [0.0, 0.0]
        elif winner == 0:
            self.score = [1.0, -1.0]
        else:
            self.score = [-1.0, 1.0]
        return (f"{text} Result [seat 0, seat 1] = {self.score}.", self.score[self.mover], True, False,
                {"player": self.mover, "outcome": self.score})

    def open_columns(self):
        """1-based columns whose top cell is empty."""
        return [str(c + 1) for c in range(self.width) if self.grid[0][c] == "."]

    def picture(self, note):
        """What the seat to move sees; the first printed row is the top."""
        lines = [note, f"Seat {self.mover} plays {self.tokens[self.mover]}. Rocks are #; make four in a line."]
        lines.append(" ".join([str(c + 1) for c in range(self.width)]))
        for row in self.grid:
            lines.append(" ".join(row))
        lines.append("Legal moves: " + ", ".join(self.open_columns()))
        lines.append("Reply with one column, for instance \\boxed{" + self.open_columns()[0] + "}. "
                     f"Move {self.moves_made + 1} of at most {self.max_turns}.")
        return "\n".join(lines)
