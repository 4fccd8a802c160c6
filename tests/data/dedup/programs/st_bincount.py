"""Pack crates into the fewest trucks."""

import random

from spadegym.program import extract_boxed


def level_of(options, default):
    """The difficulty 1..5 in ``options``, else ``default``."""
    value = options.get("difficulty", default) if isinstance(options, dict) else default
    if isinstance(value, bool) or not isinstance(value, int):
        return default
    return min(5, max(1, value))


class TruckCountEnv:
    """Truck Count: assign crates to trucks so that the fewest trucks carry them all.

    Each truck carries at most the capacity in weight. Answer, for every crate in order, the
    truck it goes on, e.g. \\boxed{1 2 1 3 2}. You win with a valid packing using the fewest
    trucks possible. Three tries.
    """

    max_turns = 3
    skill = "Optimization"

    def reset(self, seed=None, options=None):
        self.rng = random.Random(seed)
        level = level_of(options, 2)
        self.capacity = self.rng.randint(15, 25)
        self.crates = [self.rng.randint(3, self.capacity - 2) for _ in range(4 + level)]
        self.best, self.plan = self.search()
        self.tries = 0
        return self.render("Crates wait on the dock."), {"tries": 0}

    def search(self):
        order = sorted(range(len(self.crates)), key=lambda i: -self.crates[i])
        best = [len(self.crates) + 1, None]

        def place(k, loads, plan):
            if len(loads) >= best[0]:
                return
            if k == len(order):
                best[0], best[1] = len(loads), dict(plan)
                return
            i = order[k]
            for t in range(len(loads)):
                if loads[t] + self.crates[i] <= self.capacity:
                    loads[t] += self.crates[i]
                    plan[i] = t
                    place(k + 1, loads, plan)
                    loads[t] -= self.crates[i]
            loads.append(self.crates[i])
            plan[i] = len(loads) - 1
            place(k + 1, loads, plan)
            loads.pop()

        place(0, [], {})
        return best[0], [best[1][i] for i in range(len(self.crates))]

    def render(self, note):
        crates = ", ".join(f"{i + 1}:{w}" for i, w in enumerate(self.crates))
        return (f"{note}\nCrates (number:weight): {crates}\nTruck capacity: {self.capacity}.\n"
                f"Answer one truck number per crate. Tries used {self.tries} of 3.")

    def step(self, action):
        self.tries += 1
        words = (extract_boxed(action) or "").replace(",", " ").split()
        trucks = [int(w) for w in words if w.isdigit() and len(w) < 3]
        if len(trucks) == len(words) == len(self.crates):
            loads = {}
            for t, w in zip(trucks, self.crates):
                loads[t] = loads.get(t, 0) + w
            if len(loads) == self.best and max(loads.values()) <= self.capacity:
                return "Packed with the fewest trucks. You win!", 1.0, True, False, {"tries": self.tries}
        if self.tries >= 3:
            return "Out of tries.", 0.0, True, False, {"tries": self.tries}
        return self.render("Not a valid fewest-truck packing."), 0.0, False, False, {"tries": self.tries}

    def solution(self):
        return ["\\boxed{" + " ".join(str(t + 1) for t in self.plan) + "}"]
