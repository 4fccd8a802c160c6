"""A two-seat duel over piles of counters."""

import re
import random

from spadegym.program import extract_boxed

TABLES = {1: (2, 6, 0), 2: (3, 7, 0), 3: (3, 9, 0), 4: (4, 10, 4), 5: (4, 12, 5)}
MOVE = re.compile(r"take\s+(\d{1,3})\s+(\d{1,3})")


class CounterPilesEnv:
    """Counter Piles: whoever removes the final counter wins.

    Counters are stacked in a few piles. Seats alternate; a move removes at least one counter
    from exactly one pile (some levels cap how many a move may remove). Removing the very last
    counter wins the duel. Write \\boxed{take H N} to remove N counters from pile H (piles
    count from 1). A malformed or impossible move forfeits immediately."""

    num_players = 2
    skill = "Two_Player"
    max_turns = 60

    def hint(self):
        """Strategy sketch."""
        return ("Write every pile size in binary (or, under a cap c, reduce it modulo c + 1) and "
                "XOR them together; hand your rival a position whose XOR is zero.")

    def step(self, action):
        """Play the mover's removal, or forfeit on a bad move."""
        if self.done:
            return "The duel has ended.", 0.0, True, False, {"player": self.seat, "outcome": self.result}
        self.count = self.count + 1
        text = extract_boxed(action)
        parsed = None
        if text:
            parsed = MOVE.fullmatch(text.strip().lower())
        if not parsed:
            return self.end(1 - self.seat, "Seat %d wrote no move shaped like \\boxed{take H N} and forfeits." % self.seat)
        pile = int(parsed.group(1))
        amount = int(parsed.group(2))
        if pile < 1 or pile > len(self.piles) or not self.piles[pile - 1]:
            return self.end(1 - self.seat, f"Seat {self.seat} picked pile {pile}, which is empty or missing, and forfeits.")
        top = self.allowance(self.piles[pile - 1])
        if amount < 1 or amount > top:
            return self.end(1 - self.seat, f"Seat {self.seat} wanted {amount} from pile {pile} (1 to {top} allowed) and forfeits.")
        self.piles[pile - 1] -= amount
        note = f"Seat {self.seat} removed {amount} from pile {pile}."
        if not any(self.piles):
            return self.end(self.seat, note + f" No counters remain: seat {self.seat} takes the duel.")
        self.seat = 1 - self.seat
        return self.show(note), 0.0, False, False, {"player": self.seat}

    def reset(self, seed=None, options=None):
        """Stack the piles and choose the opening seat."""
        self.rng = random.Random(seed)
        level = options.get("difficulty", 2) if isinstance(options, dict) else 2
        if isinstance(level, bool) or not isinstance(level, int):
            level = 2
        self.level = max(1, min(5, level))
        piles, biggest, self.limit = TABLES[self.level]
        self.seat = self.rng.randrange(2)
        self.piles = []
        for _ in range(piles):
            self.piles.append(self.rng.randint(1, biggest))
        self.count, self.done, self.result = 0, False, None
        return self.show("The duel begins."), {"player": self.seat}

    def allowance(self, size):
        """Largest legal removal from a pile of this size."""
        if self.limit:
            return min(size, self.limit)
        return size

    def options_text(self):
        moves = []
        for k, size in enumerate(self.piles):
            if size:
                moves.append(f"take {k + 1} 1")
                if self.allowance(size) > 1:
                    moves.append(f"take {k + 1} {self.allowance(size)}")
        return moves

    def end(self, winner, text):
        self.done = True
        self.result = [1.0, -1.0] if winner == 0 else [-1.0, 1.0]
        return (f"{text} Result [seat 0, seat 1] = {self.result}.", self.result[self.seat], True, False,
                {"player": self.seat, "outcome": self.result})

    def show(self, note):
        listing = ", ".join(f"pile {k + 1} has {size}" for k, size in enumerate(self.piles))
        cap = "" if not self.limit else f" A move removes at most {self.limit}."
        return (f"{note}\nSeat {self.seat} to move. {listing}.{cap}\n"
                "Remove counters from one pile; the final counter wins.\n"
                f"Legal moves: {', '.join(self.options_text())} (any amount up to the cap works)\n"
                f"Reply \\boxed{{take H N}}. Move {self.count + 1} of at most {self.max_turns}.")
