import random
from spadegym.program import extract_boxed


class PackTheBagEnv:
    """Fill a backpack with loot without exceeding its capacity.

    Each treasure has a weight and a worth. Add an item with \\boxed{add n}, remove it with
    \\boxed{drop n}, and finish with \\boxed{done}. Only the optimal haul counts as a win; an
    item that does not fit tears the bag and ends the game."""

    max_turns = 14
    skill = "Optimization"

    def reset(self, seed=None, options=None):
        self.rng = random.Random(seed)
        self.items = [(self.rng.randint(1, 9), self.rng.randint(1, 20)) for _ in range(6)]
        self.limit = self.rng.randint(10, 20)
        self.bag = set()
        return self.status("Choose your loot."), {}

    def status(self, note):
        listing = "; ".join(f"{i}: weight {w}, value {v}" for i, (w, v) in enumerate(self.items))
        weight = sum(self.items[i][0] for i in self.bag)
        return f"{note} Items: {listing}. Limit {self.limit}. In bag: {sorted(self.bag)} (weight {weight})."

    def best(self):
        top = 0
        for mask in range(1 << len(self.items)):
            w = sum(self.items[i][0] for i in range(len(self.items)) if mask >> i & 1)
            v = sum(self.items[i][1] for i in range(len(self.items)) if mask >> i & 1)
            if w <= self.limit and v > top:
                top = v
        return top

    def step(self, action):
        words = (extract_boxed(action) or "").split()
        if words == ["done"]:
            value = sum(self.items[i][1] for i in self.bag)
            best = self.best()
            return f"Your value {value}, best {best}.", 1.0 if value == best else value / best / 2, True, False, {}
        if len(words) != 2 or words[0] not in ("add", "drop") or not words[1].isdigit():
            return self.status("Use add n, drop n or done."), 0.0, False, False, {}
        n = int(words[1])
        if n >= len(self.items):
            return self.status("No such item."), 0.0, False, False, {}
        if words[0] == "add":
            if sum(self.items[i][0] for i in self.bag) + self.items[n][0] > self.limit:
                return "Over capacity: the backpack rips.", 0.0, True, False, {}
            self.bag.add(n)
        else:
            self.bag.discard(n)
        return self.status("Updated."), 0.0, False, False, {}

    def solution(self):
        best, pick = -1, 0
        for mask in range(1 << len(self.items)):
            w = sum(self.items[i][0] for i in range(len(self.items)) if mask >> i & 1)
            v = sum(self.items[i][1] for i in range(len(self.items)) if mask >> i & 1)
            if w <= self.limit and v > best:
                best, pick = v, mask
        return ["\\boxed{add " + str(i) + "}" for i in range(len(self.items)) if pick >> i & 1] + ["\\boxed{done}"]
