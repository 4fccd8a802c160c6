"""ConnectFourDuel: drop discs to connect four, on boards with fixed stones (two-player)."""

import random

from spadegym.program import extract_boxed, read_difficulty

# (rows, columns, fixed stones) per difficulty 1..5
LEVELS = [(5, 5, 2), (5, 6, 2), (6, 7, 1), (6, 7, 3), (7, 8, 3)]


class ConnectFourDuelEnv:
    """ConnectFourDuel: line up four discs.

    Two players take turns dropping a disc (X or O) into a column; it falls to the lowest free
    cell. Fixed stones (#) belong to nobody and block like discs. Four of your discs in a row,
    column or diagonal win; a full board is a draw. Answer with the column number, e.g.
    \\boxed{4}. A full column or unreadable move loses the game at once."""

    max_turns = 60
    skill = "Two_Player"
    num_players = 2

    def reset(self, seed=None, options=None):
        """Set up the board, the fixed stones and who starts."""
        self.rng = random.Random(seed)
        self.difficulty = read_difficulty(options, default=2)
        self.rows, self.cols, stones = LEVELS[self.difficulty - 1]
        self.board = [["." for _ in range(self.cols)] for _ in range(self.rows)]
        for col in self.rng.sample(range(self.cols), stones):
            height = self.rng.randint(1, 2)
            for k in range(height):
                self.board[self.rows - 1 - k][col] = "#"
        self.player = self.rng.randrange(2)
        self.marks = ["X", "O"] if self.player == 0 else ["O", "X"]
        self.turn = 0
        self.over = False
        self.outcome = None
        return self.render("New game."), {"player": self.player}

    def legal(self):
        """Columns (1-based) with a free top cell."""
        return [str(c + 1) for c in range(self.cols) if self.board[0][c] == "."]

    def render(self, last):
        """The board as the player to move sees it (row 1 is the top)."""
        header = " ".join(str(c + 1) for c in range(self.cols))
        rows = [" ".join(row) for row in self.board]
        return (
            f"{last}\nYou are Player {self.player} playing {self.marks[self.player]}. "
            "Connect four; # are fixed stones.\n" + header + "\n" + "\n".join(rows) + "\n"
            f"Legal moves: {', '.join(self.legal())}\n"
            "Answer with a column number, e.g. \\boxed{" + self.legal()[0] + "}. "
            f"Turn {self.turn + 1} of {self.max_turns}."
        )

    def four(self, mark):
        """Whether ``mark`` has four in a line."""
        for r in range(self.rows):
            for c in range(self.cols):
                for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
                    if not (0 <= r + 3 * dr < self.rows and 0 <= c + 3 * dc < self.cols):
                        continue
                    if all(self.board[r + dr * i][c + dc * i] == mark for i in range(4)):
                        return True
        return False

    def finish(self, winner, text):
        """End the game; winner 0, 1 or None for a draw."""
        self.over = True
        if winner is None:
            self.outcome = [0.0, 0.0]
        else:
            self.outcome = [1.0, -1.0] if winner == 0 else [-1.0, 1.0]
        info = {"player": self.player, "outcome": self.outcome}
        return (text + f" Final outcome [P0, P1] = {self.outcome}.", self.outcome[self.player],
                True, False, info)

    def step(self, action):
        """Drop the mover's disc, or end the game on an illegal move."""
        if self.over:
            return "The game is over.", 0.0, True, False, {"player": self.player,
                                                           "outcome": self.outcome}
        self.turn += 1
        move = extract_boxed(action)
        move = move.strip() if isinstance(move, str) else ""
        if move not in self.legal():
            shown = move[:20] if move else "no \\boxed{column}"
            return self.finish(1 - self.player, f"Player {self.player} made an illegal move "
                               f"({shown!r} is not an open column) and loses.")
        col = int(move) - 1
        row = max(r for r in range(self.rows) if self.board[r][col] == ".")
        self.board[row][col] = self.marks[self.player]
        if self.four(self.marks[self.player]):
            return self.finish(self.player, f"Player {self.player} dropped in column {move} and "
                               f"connects four: Player {self.player} wins.")
        if not self.legal():
            return self.finish(None, f"Player {self.player} dropped in column {move}. The "
                               "board is full: draw.")
        last = f"Player {self.player} dropped a disc in column {move}."
        self.player = 1 - self.player
        return self.render(last), 0.0, False, False, {"player": self.player}

    def hint(self):
        """Approach only."""
        return ("Each turn, first look for a column that completes four for you, then for one "
                "that the opponent would use to complete four, and block it. Central columns "
                "take part in the most lines, and fixed stones break lines that cross them.")
