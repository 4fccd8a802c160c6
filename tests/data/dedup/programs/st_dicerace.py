"""Add die values to a running total; land exactly on the goal to win."""

import random
import re

from spadegym.program import extract_boxed


def level_of(options, default):
    """The difficulty 1..5 in ``options``, else ``default``."""
    value = options.get("difficulty", default) if isinstance(options, dict) else default
    if isinstance(value, bool) or not isinstance(value, int):
        return default
    return min(5, max(1, value))


class DiceRaceDuelEnv:
    """Dice Race Duel: raise a shared total with die faces; hitting the goal exactly wins.

    Players alternate choosing a die face from 1 to 6 and adding it to the running total. A
    face equal to the previous player's face is not allowed. Whoever brings the total exactly
    to the goal wins; going over the goal loses. Answer \\boxed{add F}. An illegal or unreadable
    move loses at once."""

    max_turns = 40
    num_players = 2
    skill = "Two_Player"

    def reset(self, seed=None, options=None):
        self.rng = random.Random(seed)
        level = level_of(options, 2)
        self.goal = self.rng.randint(20, 25 + 5 * level)
        self.total = 0
        self.last = None
        self.player = self.rng.randrange(2)
        self.over = False
        self.outcome = None
        return self.render("New race."), {"player": self.player}

    def render(self, note):
        legal = [f"add {f}" for f in range(1, 7) if f != self.last]
        return (f"{note}\nYou are Player {self.player}. Total {self.total}, goal {self.goal}.\n"
                f"Legal moves: {', '.join(legal)}\nAnswer \\boxed{{add F}}.")

    def finish(self, winner, text):
        self.over = True
        self.outcome = [1.0, -1.0] if winner == 0 else [-1.0, 1.0]
        return text, self.outcome[self.player], True, False, {"player": self.player, "outcome": self.outcome}

    def step(self, action):
        if self.over:
            return "Over.", 0.0, True, False, {"player": self.player, "outcome": self.outcome}
        move = extract_boxed(action)
        m = re.fullmatch(r"add\s+([1-6])", move.strip().lower()) if move else None
        if m is None or int(m.group(1)) == self.last:
            return self.finish(1 - self.player, f"Player {self.player} made an illegal move and loses.")
        face = int(m.group(1))
        self.total += face
        self.last = face
        if self.total == self.goal:
            return self.finish(self.player, f"Player {self.player} hits {self.goal} and wins.")
        if self.total > self.goal:
            return self.finish(1 - self.player, f"Player {self.player} overshoots and loses.")
        self.player = 1 - self.player
        return self.render(f"Total is now {self.total}."), 0.0, False, False, {"player": self.player}
