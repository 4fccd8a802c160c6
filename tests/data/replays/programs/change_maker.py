import random

from spadegym.program import extract_boxed

COINS = [1, 2, 5, 10, 20, 50]


class ChangeMakerEnv:
    """Change maker: pay an exact price from a limited purse.

    You must pay a price exactly, one coin per turn, using only the coins in your purse.
    Put a coin down with \\boxed{V}, where V is its value. Paying more than the price, or
    running out of turns, loses. You win when what you paid equals the price.
    """

    max_turns = 9
    skill = "Mathematical_Reasoning"

    def reset(self, seed=None, options=None):
        self.rng = random.Random(seed)
        difficulty = 1
        if isinstance(options, dict) and options.get("difficulty") in (1, 2, 3, 4, 5):
            difficulty = options["difficulty"]
        for _ in range(100):
            self.purse = sorted(self.rng.choice(COINS) for _ in range(7 + difficulty))
            self.price = self.rng.randint(15, 40 + 10 * difficulty)
            self.plan = self.fewest(self.price)
            if self.plan is not None and 3 <= len(self.plan) <= 6:
                break
        else:
            self.purse = [1, 2, 5, 10, 20, 20, 50]
            self.price = 37
            self.plan = [20, 10, 5, 2]
        self.paid = 0
        return self.describe("A customer waits."), {"paid": 0}

    def fewest(self, amount):
        """The fewest coins of the purse that make ``amount``, or None."""
        best = {0: []}
        for coin in self.purse:
            for total, used in sorted(best.items(), reverse=True):
                new = total + coin
                if new <= amount and (new not in best or len(best[new]) > len(used) + 1):
                    best[new] = used + [coin]
        return best.get(amount)

    def describe(self, lead):
        purse = ", ".join(str(c) for c in self.purse) or "empty"
        return (
            f"{lead}\nPrice: {self.price}. Paid so far: {self.paid}. Still due: "
            f"{self.price - self.paid}.\nYour purse: {purse}.\nPay one coin with \\boxed{{V}}."
        )

    def step(self, action):
        text = extract_boxed(action)
        value = text.strip() if text is not None else ""
        if not value.isdigit() or int(value) not in self.purse:
            return self.describe("Pay one coin you hold, e.g. \\boxed{5}."), 0.0, False, False, {}
        coin = int(value)
        self.purse.remove(coin)
        self.paid += coin
        info = {"paid": self.paid}
        if self.paid == self.price:
            return f"Paid exactly {self.price}. You win!", 1.0, True, False, info
        if self.paid > self.price:
            return f"You paid {self.paid}, more than {self.price}. You lose.", 0.0, True, False, info
        if self.fewest(self.price - self.paid) is None:
            return "The rest can no longer be paid exactly. You lose.", 0.0, True, False, info
        return self.describe(f"You put down {coin}."), 0.0, False, False, info

    def solution(self):
        return ["\\boxed{" + str(c) + "}" for c in self.plan]

    def hint(self):
        return "Large coins first is not always right: check that what remains can still be paid."
