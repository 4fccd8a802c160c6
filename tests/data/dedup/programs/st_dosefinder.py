"""Find the fertiliser dose that grows the tallest plant."""

import random

from spadegym.program import extract_boxed


def level_of(options, default):
    """The difficulty 1..5 in ``options``, else ``default``."""
    value = options.get("difficulty", default) if isinstance(options, dict) else default
    if isinstance(value, bool) or not isinstance(value, int):
        return default
    return min(5, max(1, value))


class DoseFinderEnv:
    """Dose Finder: find the fertiliser dose that gives the tallest plant.

    Plant height rises with the fertiliser dose up to a best dose and falls after it. Grow a
    test plant at any whole dose from 0 to the maximum with \\boxed{grow D} and read its
    height. Then name the best dose with \\boxed{best D}. A wrong dose loses.
    """

    max_turns = 12
    skill = "Causal_Inference"

    def reset(self, seed=None, options=None):
        self.rng = random.Random(seed)
        level = level_of(options, 2)
        self.top = 20 * level + 20
        self.best = self.rng.randint(3, self.top - 3)
        self.base = self.rng.randint(10, 30)
        self.slope = self.rng.randint(1, 3)
        self.log = []
        self.turn = 0
        self.done = False
        return self.render("The greenhouse is ready."), {"turn": 0}

    def height(self, dose):
        return self.base + 2 * self.top - self.slope * abs(dose - self.best)

    def render(self, note):
        lines = [note, f"Doses 0..{self.top}. Turn {self.turn} of {self.max_turns}."]
        lines += [f"  dose {d}: {h} cm" for d, h in self.log]
        lines.append("Actions: \\boxed{grow D} or \\boxed{best D}.")
        return "\n".join(lines)

    def step(self, action):
        if self.done:
            return "Over.", 0.0, True, False, {"turn": self.turn}
        self.turn += 1
        words = (extract_boxed(action) or "").lower().split()
        if len(words) == 2 and words[1].isdigit() and len(words[1]) < 4 and int(words[1]) <= self.top:
            dose = int(words[1])
            if words[0] == "grow":
                self.log.append((dose, self.height(dose)))
                note = f"Dose {dose}: {self.height(dose)} cm."
            elif words[0] == "best":
                self.done = True
                if dose == self.best:
                    return "That is the best dose. You win!", 1.0, True, False, {"turn": self.turn}
                return "Not the best dose.", 0.0, True, False, {"turn": self.turn}
            else:
                note = "Unknown verb."
        else:
            note = "Unreadable; use \\boxed{grow D} or \\boxed{best D}."
        if self.turn >= self.max_turns:
            self.done = True
            return self.render(note + " Out of turns."), 0.0, True, False, {"turn": self.turn}
        return self.render(note), 0.0, False, False, {"turn": self.turn}

    def solution(self):
        low, high = 0, self.top
        moves = []
        while high - low > 2:
            mid = (low + high) // 2
            moves.append(f"\\boxed{{grow {mid}}}")
            moves.append(f"\\boxed{{grow {mid + 1}}}")
            if self.height(mid + 1) > self.height(mid):
                low = mid + 1
            else:
                high = mid
        return moves[:8] + [f"\\boxed{{best {self.best}}}"]
