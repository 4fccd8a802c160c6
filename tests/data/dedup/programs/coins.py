import random
from spadegym.program import extract_boxed


class ExactChangeEnv:
    """Pay an exact price with as few coins as possible.

    You have unusual coin values. Hand over coins one at a time with \\boxed{c}; the cashier
    tells you what remains. Pay exactly, using the fewest coins, to win."""

    max_turns = 10
    skill = "Optimization"

    def reset(self, seed=None, options=None):
        self.rng = random.Random(seed)
        self.coins = sorted(self.rng.sample([1, 3, 4, 5, 7, 9, 11], 4))
        if 1 not in self.coins:
            self.coins[0] = 1
        self.price = self.rng.randint(12, 30)
        self.paid = []
        return f"Price {self.price}. Coins: {self.coins}. Pay with \\boxed{{c}}.", {}

    def fewest(self, amount):
        table = [0] + [99] * amount
        for a in range(1, amount + 1):
            for c in self.coins:
                if c <= a:
                    table[a] = min(table[a], table[a - c] + 1)
        return table

    def step(self, action):
        text = (extract_boxed(action) or "").strip()
        if not text.isdigit() or int(text) not in self.coins:
            return f"Use one of the coins {self.coins}.", 0.0, False, False, {}
        self.paid.append(int(text))
        left = self.price - sum(self.paid)
        if left < 0:
            return "You paid too much.", 0.0, True, False, {}
        if left == 0:
            best = self.fewest(self.price)[self.price]
            return f"Paid with {len(self.paid)} coins (best {best}).", 1.0 if len(self.paid) == best else 0.3, True, False, {}
        return f"Still to pay: {left}.", 0.0, False, False, {}

    def solution(self):
        table = self.fewest(self.price)
        amount, out = self.price, []
        while amount > 0:
            for c in self.coins:
                if c <= amount and table[amount - c] == table[amount] - 1:
                    out.append("\\boxed{" + str(c) + "}")
                    amount -= c
                    break
        return out
