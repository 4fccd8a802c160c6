"""A single betting round with one hidden card each from a small deck."""

import random

from spadegym.program import extract_boxed

RANKS = "23456789"


def level_of(options, default):
    """The difficulty 1..5 in ``options``, else ``default``."""
    value = options.get("difficulty", default) if isinstance(options, dict) else default
    if isinstance(value, bool) or not isinstance(value, int):
        return default
    return min(5, max(1, value))


class HighCardBetDuelEnv:
    """High Card Bet Duel: one hidden card each, one betting round, higher card wins the pot.

    Both players ante 1 chip and get one hidden card from a small deck. The first player
    raises (1 or 2 chips) or checks; the second calls or folds after a raise, or checks after
    a check. At showdown the higher card wins; equal cards split. Answer \\boxed{raise 1},
    \\boxed{raise 2}, \\boxed{check}, \\boxed{call} or \\boxed{fold}. An illegal move loses."""

    max_turns = 4
    num_players = 2
    skill = "Two_Player"

    def reset(self, seed=None, options=None):
        self.rng = random.Random(seed)
        level = level_of(options, 2)
        deck = RANKS[: 4 + level]
        self.cards = [self.rng.choice(deck), self.rng.choice(deck)]
        self.player = self.rng.randrange(2)
        self.first = self.player
        self.raised = 0
        self.acts = []
        self.over = False
        self.outcome = None
        return self.render("Cards dealt."), {"player": self.player}

    def legal(self):
        if not self.acts:
            return ["check", "raise 1", "raise 2"]
        return ["call", "fold"] if self.raised else ["check"]

    def render(self, note):
        return (f"{note}\nYou are Player {self.player}. Your card: {self.cards[self.player]}. "
                f"Actions so far: {', '.join(self.acts) or 'none'}.\nLegal moves: {', '.join(self.legal())}\n"
                "Answer with one move in a box.")

    def finish(self, swing, text):
        self.over = True
        value = max(-1.0, min(1.0, swing / 3))
        self.outcome = [value, -value]
        return text, self.outcome[self.player], True, False, {"player": self.player, "outcome": self.outcome}

    def showdown(self, stake):
        a, b = self.cards
        if a == b:
            return self.finish(0.0, "Equal cards: split.")
        return self.finish(stake if a > b else -stake, f"Showdown: {a} against {b}.")

    def step(self, action):
        if self.over:
            return "Over.", 0.0, True, False, {"player": self.player, "outcome": self.outcome}
        move = " ".join((extract_boxed(action) or "").lower().split())
        if move not in self.legal():
            loser = self.player
            return self.finish(-3.0 if loser == 0 else 3.0, f"Player {loser} made an illegal move and loses.")
        self.acts.append(move)
        if move.startswith("raise"):
            self.raised = int(move.split()[1])
        elif move == "fold":
            folder = self.player
            return self.finish(-1.0 if folder == 0 else 1.0, f"Player {folder} folds.")
        elif move == "call":
            return self.showdown(1 + self.raised)
        elif len(self.acts) == 2:
            return self.showdown(1)
        self.player = 1 - self.player
        return self.render(f"Player {1 - self.player} chose {move}."), 0.0, False, False, {"player": self.player}
