"""LiarsDiceDuel: one round of bidding on hidden dice, then a challenge (two-player)."""

import random
import re

from spadegym.program import extract_boxed, read_difficulty

DICE = [2, 3, 3, 4, 5]


class LiarsDiceDuelEnv:
    """LiarsDiceDuel: bid on the dice under both cups, or call your opponent a liar.

    Each player rolls the same number of six-sided dice and sees only their own. Players take
    turns bidding "at least Q dice, counting both cups, show face F". Each bid must be higher
    than the last: more dice, or the same number of dice with a higher face. Instead of bidding
    you may call liar: the cups are lifted; if the last bid holds, the caller loses, otherwise
    the bidder loses. Answer with \\boxed{bid Q F} or \\boxed{liar}. An illegal or unreadable
    move loses at once."""

    max_turns = 64
    skill = "Two_Player"
    num_players = 2

    def reset(self, seed=None, options=None):
        """Roll the dice and pick who bids first."""
        self.rng = random.Random(seed)
        self.difficulty = read_difficulty(options, default=2)
        self.count = DICE[self.difficulty - 1]
        self.dice = [sorted(self.rng.randint(1, 6) for _ in range(self.count)) for _ in range(2)]
        self.player = self.rng.randrange(2)
        self.bid = None
        self.bids = []
        self.turn = 0
        self.over = False
        self.outcome = None
        return self.render("New round: both players rolled."), {"player": self.player}

    def higher(self, q, f):
        """Whether bid (q, f) beats the current bid."""
        if self.bid is None:
            return True
        bq, bf = self.bid
        return q > bq or (q == bq and f > bf)

    def legal(self):
        """A few legal moves, written the way the player writes them."""
        total = 2 * self.count
        moves = ["liar"] if self.bid is not None else []
        shown = 0
        q, f = (1, 1) if self.bid is None else self.bid
        while shown < 4 and q <= total:
            if self.higher(q, f):
                moves.append(f"bid {q} {f}")
                shown += 1
            f += 1
            if f > 6:
                q, f = q + 1, 1
        return moves

    def render(self, last):
        """What the player to act may see: their own dice and the bidding."""
        current = "none" if self.bid is None else f"{self.bid[0]} x {self.bid[1]}"
        history = ", ".join(self.bids[-8:]) if self.bids else "none"
        mine = " ".join(str(d) for d in self.dice[self.player])
        return (
            f"{last}\nYou are Player {self.player}. Your dice: {mine}. Each player has "
            f"{self.count} dice ({2 * self.count} in all).\nCurrent bid: {current}. Bids so far: "
            f"{history}.\nLegal moves: {', '.join(self.legal())} (or any higher bid up to "
            f"{2 * self.count} dice)\n"
            "Answer with \\boxed{bid Q F} or \\boxed{liar}. "
            f"Turn {self.turn + 1} of {self.max_turns}."
        )

    def finish(self, winner, text):
        """End the game."""
        self.over = True
        self.outcome = [1.0, -1.0] if winner == 0 else [-1.0, 1.0]
        info = {"player": self.player, "outcome": self.outcome}
        return (text + f" Final outcome [P0, P1] = {self.outcome}.", self.outcome[self.player],
                True, False, info)

    def step(self, action):
        """Apply a bid or a challenge."""
        if self.over:
            return "The game is over.", 0.0, True, False, {"player": self.player,
                                                           "outcome": self.outcome}
        self.turn += 1
        p = self.player
        move = extract_boxed(action)
        move = " ".join(move.lower().split()) if isinstance(move, str) else ""
        if move == "liar":
            if self.bid is None:
                return self.finish(1 - p, f"Player {p} called liar before any bid and loses.")
            q, f = self.bid
            real = sum(1 for cup in self.dice for d in cup if d == f)
            cups = f"Cups: P0 {self.dice[0]}, P1 {self.dice[1]}; there are {real} x {f}."
            if real >= q:
                return self.finish(1 - p, f"Player {p} called liar on {q} x {f}. {cups} "
                                   f"The bid holds: Player {1 - p} wins.")
            return self.finish(p, f"Player {p} called liar on {q} x {f}. {cups} The bid "
                               f"fails: Player {p} wins.")
        m = re.fullmatch(r"bid (\d{1,3}) (\d)", move)
        if m is None:
            return self.finish(1 - p, f"Player {p} did not give \\boxed{{bid Q F}} or "
                               "\\boxed{liar} and loses.")
        q, f = int(m.group(1)), int(m.group(2))
        if not 1 <= q <= 2 * self.count or not 1 <= f <= 6:
            return self.finish(1 - p, f"Player {p} bid {q} x {f}, outside 1..{2 * self.count} "
                               "dice and faces 1..6, and loses.")
        if not self.higher(q, f):
            return self.finish(1 - p, f"Player {p} bid {q} x {f}, which does not beat "
                               f"{self.bid[0]} x {self.bid[1]}, and loses.")
        self.bid = (q, f)
        self.bids.append(f"P{p}: {q} x {f}")
        self.player = 1 - p
        if q == 2 * self.count and f == 6:
            last = f"Player {p} bid the maximum, {q} x {f}; you can only call liar."
        else:
            last = f"Player {p} bid {q} x {f}."
        return self.render(last), 0.0, False, False, {"player": self.player}

    def hint(self):
        """Approach only."""
        return ("Count how many of a face you hold yourself and expect about one in six of the "
                "opponent's hidden dice to match. Raise on faces you hold, and call liar when "
                "the bid needs far more than that expectation.")
