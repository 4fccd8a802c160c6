"""Find the one broken lamp on a switchboard by testing groups."""

import random

from spadegym.program import extract_boxed


def level_of(options, default):
    """The difficulty 1..5 in ``options``, else ``default``."""
    value = options.get("difficulty", default) if isinstance(options, dict) else default
    if isinstance(value, bool) or not isinstance(value, int):
        return default
    return min(5, max(1, value))

LAMPS = ["amber", "azure", "beige", "coral", "cream", "cyan", "gold", "indigo", "ivory", "jade",
         "khaki", "lilac", "lime", "mauve", "navy", "olive"]


class FaultyLampHuntEnv:
    """Faulty Lamp Hunt: one lamp on the board trips the fuse; find it with few group tests.

    Switch on any group of lamps with \\boxed{test amber cyan ...}: the fuse trips if the broken
    lamp is in the group. Tests are limited, so halve the suspects each time. Name the broken
    lamp with \\boxed{broken LAMP}; a wrong name loses.
    """

    max_turns = 7
    skill = "Logical_Deduction"

    def reset(self, seed=None, options=None):
        self.rng = random.Random(seed)
        level = level_of(options, 2)
        self.lamps = sorted(self.rng.sample(LAMPS, 4 + 2 * level))
        self.broken = self.rng.choice(self.lamps)
        self.log = []
        self.turn = 0
        self.done = False
        return self.render("The board is wired."), {"turn": 0}

    def render(self, note):
        lines = [note, "Lamps: " + ", ".join(self.lamps), f"Turn {self.turn} of {self.max_turns}."]
        for group, tripped in self.log:
            lines.append(f"  {' '.join(group)}: {'fuse tripped' if tripped else 'all fine'}")
        lines.append("Actions: \\boxed{test LAMP LAMP ...} or \\boxed{broken LAMP}.")
        return "\n".join(lines)

    def step(self, action):
        if self.done:
            return "Over.", 0.0, True, False, {"turn": self.turn}
        self.turn += 1
        words = (extract_boxed(action) or "").lower().split()
        if len(words) >= 2 and words[0] == "test" and all(w in self.lamps for w in words[1:]):
            tripped = self.broken in words[1:]
            self.log.append((words[1:], tripped))
            note = "The fuse trips." if tripped else "Nothing happens."
        elif len(words) == 2 and words[0] == "broken":
            self.done = True
            if words[1] == self.broken:
                return "Found it. You win!", 1.0, True, False, {"turn": self.turn}
            return "That lamp is fine. You lose.", 0.0, True, False, {"turn": self.turn}
        else:
            note = "Unreadable; name listed lamps."
        if self.turn >= self.max_turns:
            self.done = True
            return self.render(note + " Out of turns."), 0.0, True, False, {"turn": self.turn}
        return self.render(note), 0.0, False, False, {"turn": self.turn}

    def solution(self):
        suspects = list(self.lamps)
        moves = []
        while len(suspects) > 1:
            half = suspects[: len(suspects) // 2]
            moves.append("\\boxed{test " + " ".join(half) + "}")
            suspects = half if self.broken in half else suspects[len(suspects) // 2:]
        return moves + ["\\boxed{broken " + suspects[0] + "}"]
