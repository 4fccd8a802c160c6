"""NimDuel: take stones from heaps; whoever takes the last stone wins (two-player self-play)."""

import random
import re

from spadegym.program import extract_boxed, read_difficulty

# (number of heaps, largest heap, most stones per move or 0 for no limit) per difficulty
LEVELS = [(2, 6, 0), (3, 7, 0), (3, 9, 0), (4, 10, 4), (4, 12, 5)]


class NimDuelEnv:
    """NimDuel: take the last stone.

    Several heaps of stones lie on the table. Players alternate; on your turn take one or more
    stones from a single heap (at higher levels there is a cap on how many per move). The
    player who takes the last stone wins. Answer with \\boxed{take H N}: take N stones from
    heap H (heaps are numbered from 1). An illegal or unreadable move loses at once."""

    max_turns = 60
    skill = "Two_Player"
    num_players = 2

    def reset(self, seed=None, options=None):
        """Deal the heaps and pick who starts."""
        self.rng = random.Random(seed)
        self.difficulty = read_difficulty(options, default=2)
        count, largest, self.cap = LEVELS[self.difficulty - 1]
        self.heaps = [self.rng.randint(1, largest) for _ in range(count)]
        self.player = self.rng.randrange(2)
        self.turn = 0
        self.over = False
        self.outcome = None
        return self.render("New game."), {"player": self.player}

    def most(self, heap):
        """The most stones one move may take from a heap of this size."""
        return min(heap, self.cap) if self.cap else heap

    def legal(self):
        """A few legal moves, written the way the player writes them."""
        moves = []
        for k, heap in enumerate(self.heaps):
            if heap:
                moves.append(f"take {k + 1} 1")
                if self.most(heap) > 1:
                    moves.append(f"take {k + 1} {self.most(heap)}")
        return moves

    def render(self, last):
        """The table as the player to move sees it."""
        heaps = "  ".join(f"heap {k + 1}: {h}" for k, h in enumerate(self.heaps))
        cap = f" You may take at most {self.cap} stones per move." if self.cap else ""
        return (
            f"{last}\nYou are Player {self.player}. {heaps}.{cap}\n"
            "Take one or more stones from one heap; taking the last stone wins.\n"
            f"Legal moves: {', '.join(self.legal())} (any count up to the limit is allowed)\n"
            "Answer with \\boxed{take H N}. "
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
        """Apply the mover's take, or end the game on an illegal move."""
        if self.over:
            return "The game is over.", 0.0, True, False, {"player": self.player,
                                                           "outcome": self.outcome}
        self.turn += 1
        move = extract_boxed(action)
        m = re.fullmatch(r"take\s+(\d{1,3})\s+(\d{1,3})", move.strip().lower()) if move else None
        if m is None:
            return self.finish(1 - self.player, f"Player {self.player} did not give a move "
                               "of the form \\boxed{take H N} and loses.")
        heap, count = int(m.group(1)), int(m.group(2))
        if not 1 <= heap <= len(self.heaps) or self.heaps[heap - 1] == 0:
            return self.finish(1 - self.player, f"Player {self.player} chose heap {heap}, "
                               "which is empty or does not exist, and loses.")
        if not 1 <= count <= self.most(self.heaps[heap - 1]):
            return self.finish(1 - self.player, f"Player {self.player} tried to take {count} "
                               f"from heap {heap} (allowed 1 to {self.most(self.heaps[heap - 1])})"
                               " and loses.")
        self.heaps[heap - 1] -= count
        last = f"Player {self.player} took {count} from heap {heap}."
        if sum(self.heaps) == 0:
            return self.finish(self.player, last + f" That was the last stone: Player "
                               f"{self.player} wins.")
        self.player = 1 - self.player
        return self.render(last), 0.0, False, False, {"player": self.player}

    def hint(self):
        """Approach only."""
        return ("Think of each heap's size in binary (or, with a cap of c, modulo c + 1) and "
                "combine the heaps with XOR: leave your opponent a position where that "
                "combination is zero.")
