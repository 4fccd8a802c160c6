import random

from spadegym.program import extract_boxed


class BalanceScaleEnv:
    """Balance scale: find the one heavy coin in as few weighings as you can.

    All coins look alike; exactly one is heavier than the rest. Weigh two groups of the same
    size with \\boxed{weigh 1 2 vs 3 4}; the scale says which side is heavier, or that they
    balance. When you know the heavy coin, name it with \\boxed{coin K}. A wrong guess, or
    running out of weighings, loses.
    """

    max_turns = 6
    skill = "Logical_Deduction"

    def reset(self, seed=None, options=None):
        self.rng = random.Random(seed)
        difficulty = 1
        if isinstance(options, dict) and options.get("difficulty") in (1, 2, 3, 4, 5):
            difficulty = options["difficulty"]
        self.count = [9, 12, 18, 24, 27][difficulty - 1]
        self.heavy = self.rng.randrange(1, self.count + 1)
        self.weighings = 0
        self.limit = self.max_turns - 1
        return self.describe("The coins are laid out."), {"weighings": 0}

    def describe(self, lead):
        return (
            f"{lead}\nCoins: 1..{self.count}, one of them heavy. Weighings used: "
            f"{self.weighings} of {self.limit}. Weigh with \\boxed{{weigh A B vs C D}} (equal "
            "group sizes) or answer with \\boxed{coin K}."
        )

    def parse_group(self, words):
        if not words or not all(w.isdigit() for w in words):
            return None
        coins = [int(w) for w in words]
        if len(set(coins)) != len(coins) or not all(1 <= c <= self.count for c in coins):
            return None
        return coins

    def step(self, action):
        text = extract_boxed(action)
        words = [] if text is None else text.lower().replace(",", " ").split()
        if len(words) == 2 and words[0] == "coin" and words[1].isdigit():
            if int(words[1]) == self.heavy:
                return f"Coin {self.heavy} is the heavy one. You win!", 1.0, True, False, {}
            return f"Wrong: coin {self.heavy} was heavy.", 0.0, True, False, {}
        if words and words[0] == "weigh" and "vs" in words:
            cut = words.index("vs")
            left = self.parse_group(words[1:cut])
            right = self.parse_group(words[cut + 1:])
            if left is None or right is None or len(left) != len(right) or set(left) & set(right):
                lead = "Two groups of distinct coins, the same size on each side."
                return self.describe(lead), 0.0, False, False, {}
            if self.weighings >= self.limit:
                return "The scale is taken away: no weighings left. You lose.", 0.0, True, False, {}
            self.weighings += 1
            if self.heavy in left:
                result = "The left side is heavier."
            elif self.heavy in right:
                result = "The right side is heavier."
            else:
                result = "The scale balances."
            return self.describe(result), 0.0, False, False, {"weighings": self.weighings}
        return self.describe("Write \\boxed{weigh ... vs ...} or \\boxed{coin K}."), 0.0, False, False, {}

    def solution(self):
        candidates = list(range(1, self.count + 1))
        moves = []
        while len(candidates) > 1:
            third = (len(candidates) + 2) // 3
            left, right = candidates[:third], candidates[third:2 * third]
            moves.append(
                "\\boxed{weigh " + " ".join(str(c) for c in left) + " vs "
                + " ".join(str(c) for c in right) + "}"
            )
            if self.heavy in left:
                candidates = left
            elif self.heavy in right:
                candidates = right
            else:
                candidates = candidates[2 * third:]
        return moves + ["\\boxed{coin " + str(candidates[0]) + "}"]

    def hint(self):
        return "Split the suspects into three groups: a balance tells you as much as a tilt does."
