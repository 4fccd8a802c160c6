"""Find the person of middle height with as few comparisons as possible."""

import random

from spadegym.program import extract_boxed

NAMES = ["Abe", "Bea", "Cal", "Dot", "Eli", "Fay", "Gil", "Hope", "Ike", "Joy", "Kit", "Liv"]


def level_of(options, default):
    """The difficulty 1..5 in ``options``, else ``default``."""
    value = options.get("difficulty", default) if isinstance(options, dict) else default
    if isinstance(value, bool) or not isinstance(value, int):
        return default
    return min(5, max(1, value))


class MiddleHeightEnv:
    """Middle Height: find who stands exactly in the middle when everyone is sorted by height.

    An odd number of people have different, hidden heights. Ask who is taller of two people
    with \\boxed{compare Abe Bea}. When ready, name the person of median height with
    \\boxed{median NAME}. A wrong name loses; comparisons are limited.
    """

    max_turns = 24
    skill = "Logical_Deduction"

    def reset(self, seed=None, options=None):
        self.rng = random.Random(seed)
        level = level_of(options, 2)
        self.people = sorted(self.rng.sample(NAMES, 3 + 2 * (level // 2)))
        self.order = self.rng.sample(self.people, len(self.people))
        self.facts = []
        self.turn = 0
        self.done = False
        return self.render("Everyone lines up, heights hidden."), {"turn": 0}

    def render(self, note):
        lines = [note, "People: " + ", ".join(self.people) + f". Turn {self.turn} of {self.max_turns}."]
        lines += [f"  {a} is taller than {b}" for a, b in self.facts]
        lines.append("Actions: \\boxed{compare X Y} or \\boxed{median X}.")
        return "\n".join(lines)

    def step(self, action):
        if self.done:
            return "Over.", 0.0, True, False, {"turn": self.turn}
        self.turn += 1
        words = (extract_boxed(action) or "").split()
        names = {p.lower(): p for p in self.people}
        if len(words) == 3 and words[0].lower() == "compare" and words[1].lower() in names and words[2].lower() in names:
            a, b = names[words[1].lower()], names[words[2].lower()]
            if self.order.index(b) < self.order.index(a):
                a, b = b, a
            self.facts.append((a, b))
            note = f"{a} is taller than {b}."
        elif len(words) == 2 and words[0].lower() == "median" and words[1].lower() in names:
            self.done = True
            if names[words[1].lower()] == self.order[len(self.order) // 2]:
                return "Right: the middle height. You win!", 1.0, True, False, {"turn": self.turn}
            return "Not the median.", 0.0, True, False, {"turn": self.turn}
        else:
            note = "Unreadable; name listed people."
        if self.turn >= self.max_turns:
            self.done = True
            return self.render(note + " Out of turns."), 0.0, True, False, {"turn": self.turn}
        return self.render(note), 0.0, False, False, {"turn": self.turn}

    def solution(self):
        moves = []
        line = [self.order[0]]
        for person in self.order[1:]:
            moves.append(f"\\boxed{{compare {line[-1]} {person}}}")
            line.append(person)
        return moves + [f"\\boxed{{median {self.order[len(self.order) // 2]}}}"]
