"""Fill a lorry with parcels under a weight cap, aiming for the top value."""

import random

from spadegym.program import extract_boxed


class LorryLoaderEnv:
    """Lorry Loader: pick parcels for a lorry with a weight cap so their value is as high as can be.

    Every parcel has a weight and a value. Put parcels on or take them off, one per turn; the
    lorry may never go over its cap. Sealing the lorry sends it off: you win if the value on
    board matches the best value any permitted load achieves (anything less gets partial credit).
    Replies: \\boxed{load N}, \\boxed{unload N} (N is a parcel number), \\boxed{seal}."""

    skill = "Optimization"
    max_turns = 20

    def optimum(self):
        """Exact best value and a set of parcels reaching it (dynamic programming)."""
        count = len(self.weight)
        grid = [[0 for c in range(self.cap + 1)] for i in range(count + 1)]
        for i in range(1, count + 1):
            w = self.weight[i - 1]
            v = self.worth[i - 1]
            for c in range(self.cap + 1):
                keep = grid[i - 1][c]
                take = grid[i - 1][c - w] + v if w <= c else -1
                grid[i][c] = take if take > keep else keep
        picked = []
        c = self.cap
        i = count
        while i > 0:
            if grid[i][c] != grid[i - 1][c]:
                picked.append(i - 1)
                c = c - self.weight[i - 1]
            i = i - 1
        return grid[count][self.cap], sorted(picked)

    def greedy(self):
        ranked = sorted(range(len(self.weight)), key=lambda i: -self.worth[i] / self.weight[i])
        total = 0
        carried = 0
        for i in ranked:
            if carried + self.weight[i] > self.cap:
                continue
            carried += self.weight[i]
            total += self.worth[i]
        return total

    def reset(self, seed=None, options=None):
        """Draw parcels and a cap, preferring instances where greedy loading falls short."""
        self.rng = random.Random(seed)
        level = 2
        if isinstance(options, dict) and isinstance(options.get("difficulty", 2), int):
            level = max(1, min(5, options.get("difficulty", 2)))
        self.level = level
        count = 2 * level + 5
        tries = 0
        while tries < 40:
            tries += 1
            share = self.rng.randint(30, 45)
            self.weight = [self.rng.randint(2, 15) for i in range(count)]
            self.worth = []
            for w in self.weight:
                self.worth.append(max(1, w * self.rng.randint(5, 15) // 5 + self.rng.randint(-4, 6)))
            self.cap = sum(self.weight) * share // 100
            self.top, self.top_set = self.optimum()
            if len(self.top_set) < 2:
                continue
            if level <= 1 or self.greedy() < self.top:
                break
        self.aboard = set()
        self.t = 0
        self.over = False
        return self.manifest("The lorry is empty. Begin loading."), self.meta()

    def meta(self):
        return {"turn": self.t, "loaded": len(self.aboard), "value": self.carried_value()}

    def carried_weight(self):
        return sum([self.weight[i] for i in self.aboard])

    def carried_value(self):
        return sum([self.worth[i] for i in self.aboard])

    def manifest(self, note):
        lines = [note, f"Turn {self.t}/{self.max_turns}.", "",
                 f"Lorry: weight {self.carried_weight()} out of {self.cap}; value {self.carried_value()}.",
                 "Parcels:"]
        for i, (w, v) in enumerate(zip(self.weight, self.worth)):
            where = "ON BOARD" if i in self.aboard else "dock"
            lines.append("  crate %2d: weight %2d, value %3d  [%s]" % (i + 1, w, v, where))
        lines.append("")
        lines.append("Replies: \\boxed{load N}, \\boxed{unload N}, \\boxed{seal} (ends the game; "
                     "only the best possible value wins).")
        return "\n".join(lines)

    def step(self, action):
        """Load, unload or seal."""
        if self.over:
            return "Game over.", 0.0, True, False, self.meta()
        self.t += 1
        content = extract_boxed(action) if isinstance(action, str) else None
        tokens = content.lower().split() if content else []
        reward = 0.0
        ended = False
        count = len(self.weight)
        if tokens == ["seal"]:
            ended = True
            value = self.carried_value()
            if value == self.top:
                reward = 1.0
                note = f"Sealed at value {value}, the best there is. Victory!"
            else:
                reward = round(0.5 * value / self.top, 3) if self.aboard else 0.0
                note = f"Sealed at value {value}; a better load was possible. Partial credit {reward}."
        elif len(tokens) == 2 and tokens[0] in ("load", "unload") and tokens[1].isdigit() and len(tokens[1]) < 4:
            i = int(tokens[1]) - 1
            if not 0 <= i < count:
                note = f"No parcel {i + 1}; parcels are 1-{count}."
            elif tokens[0] == "unload":
                if i in self.aboard:
                    self.aboard.remove(i)
                    note = f"Took parcel {i + 1} off."
                else:
                    note = f"Parcel {i + 1} is not aboard."
            elif i in self.aboard:
                note = f"Parcel {i + 1} is already aboard."
            elif self.carried_weight() + self.weight[i] > self.cap:
                note = f"Parcel {i + 1} (weight {self.weight[i]}) is too heavy: {self.cap - self.carried_weight()} weight left."
            else:
                self.aboard.add(i)
                note = f"Put parcel {i + 1} aboard."
        else:
            note = "Unreadable reply. Use \\boxed{load N}, \\boxed{unload N} or \\boxed{seal}."
        self.over = ended
        cut = not ended and self.t >= self.max_turns
        if cut:
            note += " No turns remain; the lorry left without you."
            self.over = True
        return self.manifest(note), reward, ended, cut, self.meta()

    def solution(self):
        """Reach an optimal load, then seal."""
        replies = []
        for i in sorted(self.aboard):
            if i not in self.top_set:
                replies.append("\\boxed{unload " + str(i + 1) + "}")
        for i in self.top_set:
            if i not in self.aboard:
                replies.append("\\boxed{load " + str(i + 1) + "}")
        replies.append("\\boxed{seal}")
        return replies

    def hint(self):
        """Method only."""
        return ("Value per unit weight is just a starting point: see whether trading one heavy "
                "parcel for two light ones, or using the spare capacity exactly, raises the total.")
