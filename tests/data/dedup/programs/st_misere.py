"""A single-pile subtraction duel where taking the last stone loses."""

import random
import re

from spadegym.program import extract_boxed


def level_of(options, default):
    """The difficulty 1..5 in ``options``, else ``default``."""
    value = options.get("difficulty", default) if isinstance(options, dict) else default
    if isinstance(value, bool) or not isinstance(value, int):
        return default
    return min(5, max(1, value))


class LastStoneLosesEnv:
    """Last Stone Loses: avoid taking the final stone from a single pile.

    One pile of stones. Players alternate removing 1, 2 or 3 stones (at higher levels only
    amounts from an allowed set). Whoever removes the last stone LOSES. Answer \\boxed{take N}.
    An illegal or unreadable move loses at once."""

    max_turns = 60
    num_players = 2
    skill = "Two_Player"

    def reset(self, seed=None, options=None):
        self.rng = random.Random(seed)
        level = level_of(options, 2)
        self.allowed = [1, 2, 3] if level <= 2 else [1, 3, 4]
        self.pile = self.rng.randint(9, 14 + 2 * level)
        self.player = self.rng.randrange(2)
        self.over = False
        self.outcome = None
        return self.render("The pile is ready."), {"player": self.player}

    def render(self, note):
        legal = [f"take {n}" for n in self.allowed if n <= self.pile]
        return (f"{note}\nYou are Player {self.player}. Stones left: {self.pile}. "
                f"Allowed amounts: {self.allowed}. Taking the last stone loses.\n"
                f"Legal moves: {', '.join(legal)}\nAnswer \\boxed{{take N}}.")

    def finish(self, winner, text):
        self.over = True
        self.outcome = [1.0, -1.0] if winner == 0 else [-1.0, 1.0]
        return text, self.outcome[self.player], True, False, {"player": self.player, "outcome": self.outcome}

    def step(self, action):
        if self.over:
            return "Over.", 0.0, True, False, {"player": self.player, "outcome": self.outcome}
        move = extract_boxed(action)
        m = re.fullmatch(r"take\s+(\d{1,2})", move.strip().lower()) if move else None
        if m is None or int(m.group(1)) not in self.allowed or int(m.group(1)) > self.pile:
            return self.finish(1 - self.player, f"Player {self.player} made an illegal move and loses.")
        self.pile -= int(m.group(1))
        if self.pile == 0:
            return self.finish(1 - self.player, f"Player {self.player} took the last stone and loses.")
        self.player = 1 - self.player
        return self.render(f"{self.pile} stones remain."), 0.0, False, False, {"player": self.player}
