"""GridlineBuilder: connect every village to the power grid with the cheapest set of lines."""

import random

from spadegym.program import extract_boxed, read_difficulty

VILLAGES = "ABCDEFGHIJKL"


def find(parent, x):
    """Union-find root with path halving."""
    while parent[x] != x:
        parent[x] = parent[parent[x]]
        x = parent[x]
    return x


def cheapest_network(n, lines):
    """Kruskal: (total cost, chosen lines) of a minimum spanning tree over villages 0..n-1."""
    parent = list(range(n))
    total, chosen = 0, []
    for cost, a, b in sorted(lines):
        ra, rb = find(parent, a), find(parent, b)
        if ra != rb:
            parent[ra] = rb
            total += cost
            chosen.append((a, b))
    return total, chosen


class GridlineBuilderEnv:
    """Gridline Builder: wire every village into one grid at the lowest total cost.

    Possible power lines between pairs of villages are listed with their costs. Build or
    demolish one line per turn (demolishing refunds its cost). When you declare the grid
    done you win if every village is connected to every other through built lines and the
    total cost is the lowest possible (a dearer connected grid earns partial credit).
    Actions: \\boxed{build A B}, \\boxed{demolish A B}, \\boxed{done}."""

    max_turns = 14
    skill = "Optimization"

    def reset(self, seed=None, options=None):
        """Draw villages and candidate lines where the cheapest lines alone do not suffice."""
        self.rng = random.Random(seed)
        self.difficulty = read_difficulty(options, default=2)
        self.n = 4 + self.difficulty
        order = list(range(self.n))
        self.rng.shuffle(order)
        pairs = set()
        for i in range(1, self.n):
            a, b = order[i], order[self.rng.randrange(i)]
            pairs.add((min(a, b), max(a, b)))
        extra = self.n + self.difficulty
        while len(pairs) < min(self.n * (self.n - 1) // 2, self.n - 1 + extra):
            a, b = self.rng.sample(range(self.n), 2)
            pairs.add((min(a, b), max(a, b)))
        self.costs = {}
        for a, b in sorted(pairs):
            self.costs[(a, b)] = self.rng.randint(2, 30)
        lines = [(c, a, b) for (a, b), c in self.costs.items()]
        self.optimum, self.plan = cheapest_network(self.n, lines)
        self.built = set()
        self.turn = 0
        self.done = False
        return self.render("No lines are built yet."), self.info()

    def components(self):
        """Number of separate groups of villages joined by built lines."""
        parent = list(range(self.n))
        for a, b in self.built:
            ra, rb = find(parent, a), find(parent, b)
            if ra != rb:
                parent[ra] = rb
        return len(set(find(parent, x) for x in range(self.n)))

    def spent(self):
        """Total cost of built lines."""
        return sum(self.costs[e] for e in self.built)

    def info(self):
        """Small JSON info for logs."""
        return {"turn": self.turn, "built": len(self.built), "spent": self.spent()}

    def render(self, message):
        """The observation: progress, last result, state and actions."""
        rows = []
        for (a, b), c in sorted(self.costs.items()):
            mark = " [built]" if (a, b) in self.built else ""
            rows.append(f"  {VILLAGES[a]}-{VILLAGES[b]}: {c}{mark}")
        return (
            f"Turn {self.turn} of {self.max_turns}.\n{message}\n\n"
            f"Villages: {' '.join(VILLAGES[: self.n])}. Built lines {len(self.built)}, total cost "
            f"{self.spent()}, separate groups {self.components()}.\n"
            "Possible lines (cost):\n" + "\n".join(rows) + "\n\n"
            "Actions: \\boxed{build A B}, \\boxed{demolish A B}, \\boxed{done}."
        )

    def parse_pair(self, words):
        """Read two village letters into a sorted index pair, or None."""
        letters = "".join(words).upper().replace("-", "")
        if len(letters) != 2 or any(c not in VILLAGES[: self.n] for c in letters):
            return None
        a, b = VILLAGES.index(letters[0]), VILLAGES.index(letters[1])
        return (min(a, b), max(a, b))

    def step(self, action):
        """Build, demolish, or finish."""
        if self.done:
            return "The episode is over.", 0.0, True, False, self.info()
        self.turn += 1
        text = extract_boxed(action) if isinstance(action, str) else None
        words = text.split() if text else []
        verb = words[0].lower() if words else ""
        reward, terminated = 0.0, False
        if verb == "done" and len(words) == 1:
            terminated = True
            if self.components() > 1:
                message = f"The grid is split into {self.components()} groups. You lose."
            elif self.spent() == self.optimum:
                reward = 1.0
                message = (
                    f"Every village is connected for {self.spent()}, the lowest possible. You win!"
                )
            else:
                reward = round(0.5 * self.optimum / self.spent(), 3)
                message = (
                    f"Connected for {self.spent()}; a cheaper grid exists. Partial credit {reward}."
                )
        elif verb in ("build", "demolish") and 2 <= len(words) <= 3:
            pair = self.parse_pair(words[1:])
            if pair is None:
                message = f"Name two villages from {' '.join(VILLAGES[: self.n])}, e.g. \\boxed{{{verb} A C}}."
            elif pair not in self.costs:
                message = f"No line can run between {VILLAGES[pair[0]]} and {VILLAGES[pair[1]]}."
            elif verb == "build":
                if pair in self.built:
                    message = "That line is already built."
                else:
                    self.built.add(pair)
                    message = (
                        f"Built {VILLAGES[pair[0]]}-{VILLAGES[pair[1]]} for {self.costs[pair]}."
                    )
            elif pair not in self.built:
                message = "That line is not built."
            else:
                self.built.discard(pair)
                message = f"Demolished {VILLAGES[pair[0]]}-{VILLAGES[pair[1]]}."
        else:
            message = "Could not read the action. Use \\boxed{build A B}, \\boxed{demolish A B} or \\boxed{done}."
        self.done = terminated
        truncated = not terminated and self.turn >= self.max_turns
        if truncated:
            message += " Out of turns."
            self.done = True
        return self.render(message), reward, terminated, truncated, self.info()

    def solution(self):
        """Build a minimum spanning tree found by Kruskal's algorithm, then finish."""
        moves = [
            f"\\boxed{{demolish {VILLAGES[a]} {VILLAGES[b]}}}"
            for a, b in sorted(self.built)
            if (a, b) not in self.plan
        ]
        moves += [
            f"\\boxed{{build {VILLAGES[a]} {VILLAGES[b]}}}"
            for a, b in self.plan
            if (a, b) not in self.built
        ]
        return moves + ["\\boxed{done}"]

    def hint(self):
        """A nudge toward the method."""
        return (
            "Consider lines from cheapest to dearest and build one only if it joins two "
            "groups that are not yet connected; a line that closes a loop is wasted money."
        )
