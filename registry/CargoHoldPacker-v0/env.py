"""CargoHoldPacker: load crates into a weight-limited hold to reach the best possible value."""

import random

from spadegym.program import extract_boxed, read_difficulty


def best_load(weights, values, capacity):
    """Exact 0/1 knapsack: the best value and one set of item indices that reaches it."""
    n = len(weights)
    table = [[0] * (capacity + 1) for k in range(n + 1)]
    for i in range(1, n + 1):
        w, v = weights[i - 1], values[i - 1]
        for c in range(capacity + 1):
            table[i][c] = table[i - 1][c]
            if w <= c and table[i - 1][c - w] + v > table[i][c]:
                table[i][c] = table[i - 1][c - w] + v
    chosen = []
    c = capacity
    for i in range(n, 0, -1):
        if table[i][c] != table[i - 1][c]:
            chosen.append(i - 1)
            c -= weights[i - 1]
    return table[n][capacity], sorted(chosen)


def greedy_value(weights, values, capacity):
    """Value of the value-per-weight greedy load, the trap a hasty player falls into."""
    order = sorted(range(len(weights)), key=lambda i: -values[i] / weights[i])
    total, load = 0, 0
    for i in order:
        if load + weights[i] <= capacity:
            load += weights[i]
            total += values[i]
    return total


class CargoHoldPackerEnv:
    """Cargo Hold Packer: choose crates for a weight-limited hold to maximise their value.

    Each crate has a weight and a value. Load and unload crates one per turn; the hold may
    never exceed its capacity. When you seal the hold the voyage starts: you win if the value
    on board equals the best value any allowed load could reach (a lower value earns partial
    credit only).
    Actions: \\boxed{load N}, \\boxed{unload N} (N a crate number), \\boxed{seal}."""

    max_turns = 20
    skill = "Optimization"

    def reset(self, seed=None, options=None):
        """Draw crates and a capacity where the greedy load is not optimal when possible."""
        self.rng = random.Random(seed)
        self.difficulty = read_difficulty(options, default=2)
        n = 5 + 2 * self.difficulty
        for attempt in range(40):  # noqa: B007 (no leading-underscore names allowed)
            self.weights = [self.rng.randint(2, 15) for k in range(n)]
            self.values = [
                max(1, w * self.rng.randint(5, 15) // 5 + self.rng.randint(-4, 6))
                for w in self.weights
            ]
            self.capacity = sum(self.weights) * self.rng.randint(30, 45) // 100
            self.best, self.best_set = best_load(self.weights, self.values, self.capacity)
            if len(self.best_set) >= 2 and (
                self.difficulty <= 1
                or greedy_value(self.weights, self.values, self.capacity) < self.best
            ):
                break
        self.loaded = set()
        self.turn = 0
        self.done = False
        return self.render("The hold is empty. Start loading."), self.info()

    def info(self):
        """Small JSON info for logs."""
        return {"turn": self.turn, "loaded": len(self.loaded), "value": self.value()}

    def weight(self):
        """Weight on board."""
        return sum(self.weights[i] for i in self.loaded)

    def value(self):
        """Value on board."""
        return sum(self.values[i] for i in self.loaded)

    def render(self, message):
        """The observation: progress, last result, state and actions."""
        rows = []
        for i in range(len(self.weights)):
            mark = "ON BOARD" if i in self.loaded else "dock"
            rows.append(
                f"  crate {i + 1:2d}: weight {self.weights[i]:2d}, value {self.values[i]:3d}  [{mark}]"
            )
        return (
            f"Turn {self.turn} of {self.max_turns}.\n{message}\n\n"
            f"Hold: weight {self.weight()} of capacity {self.capacity}; value {self.value()}.\n"
            "Crates:\n" + "\n".join(rows) + "\n\n"
            "Actions: \\boxed{load N}, \\boxed{unload N}, \\boxed{seal} (ends the game; win only "
            "with the best possible value)."
        )

    def step(self, action):
        """Load, unload, or seal."""
        if self.done:
            return "The episode is over.", 0.0, True, False, self.info()
        self.turn += 1
        text = extract_boxed(action) if isinstance(action, str) else None
        words = text.lower().split() if text else []
        reward, terminated = 0.0, False
        n = len(self.weights)
        if words == ["seal"]:
            terminated = True
            if self.value() == self.best:
                reward = 1.0
                message = f"Sealed with value {self.value()}, the best possible. You win!"
            else:
                reward = round(0.5 * self.value() / self.best, 3) if self.loaded else 0.0
                message = f"Sealed with value {self.value()}; a better load existed. Partial credit {reward}."
        elif (
            len(words) == 2
            and words[0] in ("load", "unload")
            and words[1].isdigit()
            and len(words[1]) < 4
        ):
            i = int(words[1]) - 1
            if i < 0 or i >= n:
                message = f"There is no crate {i + 1}; crates are 1-{n}."
            elif words[0] == "load":
                if i in self.loaded:
                    message = f"Crate {i + 1} is already on board."
                elif self.weight() + self.weights[i] > self.capacity:
                    message = (
                        f"Crate {i + 1} (weight {self.weights[i]}) does not fit: "
                        f"{self.capacity - self.weight()} weight left."
                    )
                else:
                    self.loaded.add(i)
                    message = f"Loaded crate {i + 1}."
            elif i not in self.loaded:
                message = f"Crate {i + 1} is not on board."
            else:
                self.loaded.discard(i)
                message = f"Unloaded crate {i + 1}."
        else:
            message = "Could not read the action. Use \\boxed{load N}, \\boxed{unload N} or \\boxed{seal}."
        self.done = terminated
        truncated = not terminated and self.turn >= self.max_turns
        if truncated:
            message += " Out of turns; the ship left without you."
            self.done = True
        return self.render(message), reward, terminated, truncated, self.info()

    def solution(self):
        """Load an optimal set found by dynamic programming, then seal."""
        moves = [
            f"\\boxed{{unload {i + 1}}}" for i in sorted(self.loaded) if i not in self.best_set
        ]
        moves += [f"\\boxed{{load {i + 1}}}" for i in self.best_set if i not in self.loaded]
        return moves + ["\\boxed{seal}"]

    def hint(self):
        """A nudge toward the method."""
        return (
            "Value per weight is only a first guess: check whether swapping one heavy crate for "
            "two lighter ones, or filling the leftover capacity exactly, raises the total."
        )
