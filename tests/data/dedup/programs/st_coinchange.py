"""Pay an exact amount in a foreign currency with the fewest coins."""

import random

from spadegym.program import extract_boxed


def level_of(options, default):
    """The difficulty 1..5 in ``options``, else ``default``."""
    value = options.get("difficulty", default) if isinstance(options, dict) else default
    if isinstance(value, bool) or not isinstance(value, int):
        return default
    return min(5, max(1, value))


class FewestCoinsEnv:
    """Fewest Coins: pay the bill exactly using as few coins as possible.

    The foreign currency has unusual coin values (unlimited supply of each). Answer how many of
    each coin you pay, in the listed order, e.g. \\boxed{2 0 1}. The payment must be exact and
    use the fewest coins possible. Three tries.
    """

    max_turns = 3
    skill = "Mathematical_Reasoning"

    def reset(self, seed=None, options=None):
        self.rng = random.Random(seed)
        level = level_of(options, 2)
        self.coins = sorted(self.rng.sample(range(2, 13 + 4 * level), 2 + level // 2)) + [1]
        self.coins = sorted(set(self.coins), reverse=True)
        self.bill = self.rng.randint(20, 40 + 15 * level)
        best = [0] + [None] * self.bill
        for amount in range(1, self.bill + 1):
            for coin in self.coins:
                if coin <= amount and best[amount - coin] is not None:
                    option = best[amount - coin] + 1
                    if best[amount] is None or option < best[amount]:
                        best[amount] = option
        self.fewest = best[self.bill]
        self.best = best
        self.tries = 0
        return self.render("A bill arrives."), {"tries": 0}

    def render(self, note):
        return (f"{note}\nCoin values: {', '.join(map(str, self.coins))}. Bill: {self.bill}.\n"
                f"Answer the count of each coin in that order. Tries used {self.tries} of 3.")

    def step(self, action):
        self.tries += 1
        words = (extract_boxed(action) or "").replace(",", " ").split()
        counts = [int(w) for w in words if w.isdigit() and len(w) < 4]
        if (len(counts) == len(words) == len(self.coins)
                and sum(c * n for c, n in zip(self.coins, counts)) == self.bill
                and sum(counts) == self.fewest):
            return "Exact, with the fewest coins. You win!", 1.0, True, False, {"tries": self.tries}
        if self.tries >= 3:
            return "Out of tries.", 0.0, True, False, {"tries": self.tries}
        return self.render("Not an exact fewest-coin payment."), 0.0, False, False, {"tries": self.tries}

    def solution(self):
        counts = [0] * len(self.coins)
        amount = self.bill
        while amount:
            for k, coin in enumerate(self.coins):
                if coin <= amount and self.best[amount - coin] == self.best[amount] - 1:
                    counts[k] += 1
                    amount -= coin
                    break
        return ["\\boxed{" + " ".join(map(str, counts)) + "}"]
