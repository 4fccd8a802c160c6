"""Pick numbers 1-9 in turn; three of yours summing to 15 wins."""

import random

from spadegym.program import extract_boxed


def level_of(options, default):
    """The difficulty 1..5 in ``options``, else ``default``."""
    value = options.get("difficulty", default) if isinstance(options, dict) else default
    if isinstance(value, bool) or not isinstance(value, int):
        return default
    return min(5, max(1, value))


class SumFifteenDuelEnv:
    """Sum Fifteen Duel: claim numbers until three of yours add up to the target.

    The numbers 1 to 9 lie on the table. Players alternately claim one unclaimed number. The
    first player holding exactly three numbers that sum to the target (shown at the start; it
    changes from game to game) wins; if all numbers go, it is a draw. Answer \\boxed{7}. Claiming a
    taken or unknown number loses at once."""

    max_turns = 12
    num_players = 2
    skill = "Two_Player"

    def reset(self, seed=None, options=None):
        self.rng = random.Random(seed)
        level = level_of(options, 2)
        self.target = self.rng.choice([12, 13, 14, 15, 16, 17, 18])
        self.free = list(range(1, 10))
        if level >= 3:
            self.free.remove(self.rng.choice(self.free))
        self.held = [[], []]
        self.player = self.rng.randrange(2)
        self.over = False
        self.outcome = None
        return self.render("New game."), {"player": self.player}

    def render(self, note):
        return (f"{note}\nYou are Player {self.player}. Target sum {self.target}. Yours: {self.held[self.player]}; "
                f"opponent: {self.held[1 - self.player]}.\nLegal moves: {', '.join(str(n) for n in self.free)}\n"
                "Answer with one number, e.g. \\boxed{" + str(self.free[0]) + "}.")

    def wins(self, nums):
        for a in range(len(nums)):
            for b in range(a + 1, len(nums)):
                for c in range(b + 1, len(nums)):
                    if nums[a] + nums[b] + nums[c] == self.target:
                        return True
        return False

    def finish(self, winner, text):
        self.over = True
        self.outcome = [0.0, 0.0] if winner is None else ([1.0, -1.0] if winner == 0 else [-1.0, 1.0])
        return text, self.outcome[self.player], True, False, {"player": self.player, "outcome": self.outcome}

    def step(self, action):
        if self.over:
            return "Over.", 0.0, True, False, {"player": self.player, "outcome": self.outcome}
        move = (extract_boxed(action) or "").strip()
        if not move.isdigit() or int(move) not in self.free:
            return self.finish(1 - self.player, f"Player {self.player} made an illegal claim and loses.")
        n = int(move)
        self.free.remove(n)
        self.held[self.player].append(n)
        if self.wins(self.held[self.player]):
            return self.finish(self.player, f"Player {self.player} reaches {self.target} and wins.")
        if not self.free:
            return self.finish(None, "All numbers are claimed: draw.")
        self.player = 1 - self.player
        return self.render(f"Number {n} claimed."), 0.0, False, False, {"player": self.player}
