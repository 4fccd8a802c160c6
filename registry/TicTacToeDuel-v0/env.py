"""TicTacToeDuel: k-in-a-row on a board with blocked cells, for two-player self-play."""

import random

from spadegym.program import extract_boxed, read_difficulty

LETTERS = "abcdefgh"
# (board size, stones in a row to win, blocked cells) per difficulty 1..5
LEVELS = [(3, 3, 2), (4, 3, 2), (4, 4, 1), (5, 4, 2), (5, 4, 3)]


class TicTacToeDuelEnv:
    """TicTacToeDuel: get k marks in a row before your opponent does.

    Two players take turns placing their mark (X or O) on an empty cell of a square board;
    cells marked # are blocked. The first to line up the required number of marks in a row,
    column or diagonal wins; a full board is a draw. Name a cell by column letter and row
    number and answer with \\boxed{b2}. An illegal or unreadable move loses the game at once."""

    max_turns = 30
    skill = "Two_Player"
    num_players = 2

    def reset(self, seed=None, options=None):
        """Set up the board, the blocked cells and who starts."""
        self.rng = random.Random(seed)
        self.difficulty = read_difficulty(options, default=2)
        self.size, self.need, blocked = LEVELS[self.difficulty - 1]
        self.board = [["." for _ in range(self.size)] for _ in range(self.size)]
        cells = [(r, c) for r in range(self.size) for c in range(self.size)]
        for r, c in self.rng.sample(cells, blocked):
            self.board[r][c] = "#"
        self.player = self.rng.randrange(2)
        self.marks = ["X", "O"] if self.player == 0 else ["O", "X"]
        self.turn = 0
        self.over = False
        self.outcome = None
        return self.render("New game."), {"player": self.player}

    def cell_name(self, r, c):
        """Row r, column c as a name like b2 (rows counted from the top)."""
        return f"{LETTERS[c]}{r + 1}"

    def legal(self):
        """The empty cells' names."""
        return [self.cell_name(r, c) for r in range(self.size) for c in range(self.size)
                if self.board[r][c] == "."]

    def render(self, last):
        """The board as the player to move sees it."""
        header = "   " + " ".join(LETTERS[: self.size])
        rows = [f"{r + 1:>2} " + " ".join(self.board[r]) for r in range(self.size)]
        me = self.marks[self.player]
        return (
            f"{last}\nYou are Player {self.player} playing {me}. Get {self.need} in a row "
            "(row, column or diagonal). # cells are blocked.\n"
            + header + "\n" + "\n".join(rows) + "\n"
            f"Legal moves: {', '.join(self.legal())}\n"
            "Answer with one cell, e.g. \\boxed{" + self.legal()[0] + "}. "
            f"Turn {self.turn + 1} of {self.max_turns}."
        )

    def wins(self, mark):
        """Whether ``mark`` has the required line."""
        n, k = self.size, self.need
        for r in range(n):
            for c in range(n):
                for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
                    end_r, end_c = r + dr * (k - 1), c + dc * (k - 1)
                    if not (0 <= end_r < n and 0 <= end_c < n):
                        continue
                    if all(self.board[r + dr * i][c + dc * i] == mark for i in range(k)):
                        return True
        return False

    def finish(self, winner, text):
        """End the game; winner is 0, 1 or None for a draw."""
        self.over = True
        mover = self.player
        if winner is None:
            self.outcome = [0.0, 0.0]
        else:
            self.outcome = [1.0, -1.0] if winner == 0 else [-1.0, 1.0]
        info = {"player": mover, "outcome": self.outcome}
        return text + f" Final outcome [P0, P1] = {self.outcome}.", self.outcome[mover], True, False, info

    def step(self, action):
        """Place the mover's mark, or end the game on an illegal move."""
        if self.over:
            return "The game is over.", 0.0, True, False, {"player": self.player,
                                                           "outcome": self.outcome}
        self.turn += 1
        move = extract_boxed(action)
        move = move.strip().lower().replace(" ", "") if isinstance(move, str) else ""
        if move not in self.legal():
            shown = move[:20] if move else "no \\boxed{cell}"
            return self.finish(1 - self.player, f"Player {self.player} made an illegal move "
                               f"({shown!r} is not an empty cell) and loses.")
        col = LETTERS.index(move[0])
        row = int(move[1:]) - 1
        self.board[row][col] = self.marks[self.player]
        if self.wins(self.marks[self.player]):
            return self.finish(self.player, f"Player {self.player} played {move} and has "
                               f"{self.need} in a row: Player {self.player} wins.")
        if not self.legal():
            return self.finish(None, f"Player {self.player} played {move}. The board is full: "
                               "draw.")
        last = f"Player {self.player} played {move}."
        self.player = 1 - self.player
        return self.render(last), 0.0, False, False, {"player": self.player}

    def hint(self):
        """Approach only."""
        return ("Before each move, check whether you can complete a line now, then whether the "
                "opponent threatens to complete one next turn and block it. Blocked cells cut "
                "lines, so count only lines that can still be filled.")
