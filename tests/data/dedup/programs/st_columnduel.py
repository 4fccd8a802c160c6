"""Drop discs into columns; the first column to fill is won by its majority owner."""

import random

from spadegym.program import extract_boxed


def level_of(options, default):
    """The difficulty 1..5 in ``options``, else ``default``."""
    value = options.get("difficulty", default) if isinstance(options, dict) else default
    if isinstance(value, bool) or not isinstance(value, int):
        return default
    return min(5, max(1, value))


class ColumnMajorityDuelEnv:
    """Column Majority Duel: fill columns and own the most of them.

    Players alternately drop a disc into a column that is not full. When a column fills up,
    the player with more discs in it owns it. When every column is full, the player owning
    more columns wins (equal means a draw). Answer the column number, e.g. \\boxed{2}. A full
    or unknown column loses at once."""

    max_turns = 40
    num_players = 2
    skill = "Two_Player"

    def reset(self, seed=None, options=None):
        self.rng = random.Random(seed)
        level = level_of(options, 2)
        self.cols = 3 + level // 2
        self.height = self.rng.choice([3, 5])
        self.board = [[] for _ in range(self.cols)]
        for col in self.rng.sample(range(self.cols), 1):
            self.board[col].append(self.rng.randrange(2))
        self.player = self.rng.randrange(2)
        self.over = False
        self.outcome = None
        return self.render("New duel."), {"player": self.player}

    def render(self, note):
        lines = [note, f"You are Player {self.player}. Column height {self.height}."]
        for k, col in enumerate(self.board):
            lines.append(f"  column {k + 1}: " + " ".join(str(d) for d in col))
        legal = [str(k + 1) for k, col in enumerate(self.board) if len(col) < self.height]
        lines.append(f"Legal moves: {', '.join(legal)}")
        lines.append("Answer with a column number, e.g. \\boxed{" + legal[0] + "}.")
        return "\n".join(lines)

    def finish(self, winner, text):
        self.over = True
        self.outcome = [0.0, 0.0] if winner is None else ([1.0, -1.0] if winner == 0 else [-1.0, 1.0])
        return text, self.outcome[self.player], True, False, {"player": self.player, "outcome": self.outcome}

    def step(self, action):
        if self.over:
            return "Over.", 0.0, True, False, {"player": self.player, "outcome": self.outcome}
        move = (extract_boxed(action) or "").strip()
        if not move.isdigit() or not 1 <= int(move) <= self.cols or len(self.board[int(move) - 1]) >= self.height:
            return self.finish(1 - self.player, f"Player {self.player} made an illegal move and loses.")
        self.board[int(move) - 1].append(self.player)
        if all(len(col) == self.height for col in self.board):
            owned = [sum(1 for col in self.board if col.count(p) * 2 > len(col)) for p in (0, 1)]
            if owned[0] == owned[1]:
                return self.finish(None, "All columns full: draw.")
            return self.finish(0 if owned[0] > owned[1] else 1, f"Columns owned: {owned}.")
        self.player = 1 - self.player
        return self.render(f"Disc dropped in column {move}."), 0.0, False, False, {"player": self.player}
