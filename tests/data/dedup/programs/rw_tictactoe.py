"""Line-up duel on a small square board with walls."""

import random

from spadegym.program import extract_boxed

COLUMNS = "abcdefgh"
SETUPS = {1: (3, 3, 2), 2: (4, 3, 2), 3: (4, 4, 1), 4: (5, 4, 2), 5: (5, 4, 3)}


class RowRaceEnv:
    """Row Race: be the first to place enough marks in a straight line.

    Two seats alternate putting their mark (X or O) into an empty square of the board; squares
    showing # are walls. Whoever first lines up the target number of marks horizontally,
    vertically or diagonally wins; if the board fills up it is a tie. Squares are named by
    column letter then row number, and you reply like \\boxed{b2}. An unreadable or illegal
    reply forfeits the game."""

    num_players = 2
    skill = "Two_Player"
    max_turns = 30

    def reset(self, seed=None, options=None):
        """Prepare the board, walls and the opening seat."""
        self.rng = random.Random(seed)
        level = options.get("difficulty", 2) if isinstance(options, dict) else 2
        if isinstance(level, bool) or not isinstance(level, int):
            level = 2
        self.level = max(1, min(5, level))
        self.n, self.goal, walls = SETUPS[self.level]
        self.grid = [["."] * self.n for _ in range(self.n)]
        squares = []
        for r in range(self.n):
            for c in range(self.n):
                squares.append((r, c))
        for r, c in self.rng.sample(squares, walls):
            self.grid[r][c] = "#"
        self.seat = self.rng.randrange(2)
        self.symbols = ("X", "O") if self.seat == 0 else ("O", "X")
        self.played = 0
        self.closed = False
        self.tally = None
        return self.show("The board is ready."), {"player": self.seat}

    def step(self, action):
        """Mark a square for the mover, or forfeit on a bad reply."""
        if self.closed:
            return "The game has finished.", 0.0, True, False, {"player": self.seat, "outcome": self.tally}
        self.played += 1
        square = extract_boxed(action)
        square = square.strip().lower().replace(" ", "") if isinstance(square, str) else ""
        if square not in self.empty_squares():
            shown = square[:20] if square else "no \\boxed{cell}"
            return self.close(1 - self.seat, f"Seat {self.seat} made an illegal move ({shown!r} is not an empty cell) and forfeits.")
        r, c = int(square[1:]) - 1, COLUMNS.index(square[0])
        self.grid[r][c] = self.symbols[self.seat]
        if self.lined_up(self.symbols[self.seat]):
            return self.close(self.seat, f"Seat {self.seat} took {square} and completes {self.goal} in a line: seat {self.seat} wins.")
        if not self.empty_squares():
            return self.close(None, f"Seat {self.seat} took {square}. No squares remain: a tie.")
        note = f"Seat {self.seat} took {square}."
        self.seat = 1 - self.seat
        return self.show(note), 0.0, False, False, {"player": self.seat}

    def close(self, winner, text):
        self.closed = True
        who = self.seat
        self.tally = [0.0, 0.0] if winner is None else ([1.0, -1.0] if winner == 0 else [-1.0, 1.0])
        return f"{text} Result [seat 0, seat 1] = {self.tally}.", self.tally[who], True, False, {"player": who, "outcome": self.tally}

    def lined_up(self, mark):
        n, k = self.n, self.goal
        directions = ((0, 1), (1, 0), (1, 1), (1, -1))
        for r in range(n):
            for c in range(n):
                for dr, dc in directions:
                    last_r = r + dr * (k - 1)
                    last_c = c + dc * (k - 1)
                    if 0 <= last_r < n and 0 <= last_c < n:
                        cells = [self.grid[r + dr * i][c + dc * i] for i in range(k)]
                        if cells.count(mark) == k:
                            return True
        return False

    def empty_squares(self):
        names = []
        for r in range(self.n):
            for c in range(self.n):
                if self.grid[r][c] == ".":
                    names.append(COLUMNS[c] + str(r + 1))
        return names

    def show(self, note):
        top = "   " + " ".join(COLUMNS[: self.n])
        body = "\n".join(f"{r + 1:>2} " + " ".join(self.grid[r]) for r in range(self.n))
        free = self.empty_squares()
        return (f"{note}\nSeat {self.seat} plays {self.symbols[self.seat]}. Line up {self.goal} "
                "(across, down or diagonal); # squares are walls.\n" + top + "\n" + body + "\n"
                + "Legal moves: " + ", ".join(free) + "\n"
                + "Reply with a single square such as \\boxed{" + free[0] + "}. "
                + f"Move {self.played + 1} of at most {self.max_turns}.")

    def hint(self):
        """Approach only."""
        return ("First see whether a square completes your line right now; then see whether your "
                "rival could complete one on the next move and block it. Walls break lines, so "
                "only count lines that can still be finished.")
