"""Order jobs on one machine to minimise the total waiting time."""

import random

from spadegym.program import extract_boxed


def level_of(options, default):
    """The difficulty 1..5 in ``options``, else ``default``."""
    value = options.get("difficulty", default) if isinstance(options, dict) else default
    if isinstance(value, bool) or not isinstance(value, int):
        return default
    return min(5, max(1, value))


class WaitingTimeEnv:
    """Waiting Time: run jobs one after another on a single machine; minimise total finish time.

    Each job has a duration (and, from difficulty 3, a weight: its finish time counts that many
    times). Answer the order of job numbers, e.g. \\boxed{3 1 2 4}. You win with an order whose
    total (weighted) finish time is the smallest possible. Three tries.
    """

    max_turns = 3
    skill = "Optimization"

    def reset(self, seed=None, options=None):
        self.rng = random.Random(seed)
        level = level_of(options, 2)
        n = 4 + level
        self.times = [self.rng.randint(1, 15) for _ in range(n)]
        self.weights = [self.rng.randint(1, 4) if level >= 3 else 1 for _ in range(n)]
        order = sorted(range(n), key=lambda j: (self.times[j] / self.weights[j], j))
        self.best = self.cost(order)
        self.plan = order
        self.tries = 0
        return self.render("Jobs are queued."), {"tries": 0}

    def cost(self, order):
        clock, total = 0, 0
        for j in order:
            clock += self.times[j]
            total += clock * self.weights[j]
        return total

    def render(self, note):
        jobs = ", ".join(f"J{j + 1}: time {t}, weight {w}" for j, (t, w) in enumerate(zip(self.times, self.weights)))
        return f"{note}\n{jobs}\nAnswer the job order. Tries used {self.tries} of 3."

    def step(self, action):
        self.tries += 1
        words = (extract_boxed(action) or "").replace(",", " ").upper().replace("J", "").split()
        order = [int(w) - 1 for w in words if w.isdigit() and len(w) < 3]
        if len(order) == len(words) and sorted(order) == list(range(len(self.times))) and self.cost(order) == self.best:
            return "Optimal order. You win!", 1.0, True, False, {"tries": self.tries}
        if self.tries >= 3:
            return "Out of tries.", 0.0, True, False, {"tries": self.tries}
        return self.render("Not an optimal order."), 0.0, False, False, {"tries": self.tries}

    def solution(self):
        return ["\\boxed{" + " ".join(str(j + 1) for j in self.plan) + "}"]
