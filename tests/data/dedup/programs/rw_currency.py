"""Exchange-desk hopping: end the trip with enough of the goal money."""

import random
from fractions import Fraction

from spadegym.program import extract_boxed

TICKERS = ["AUR", "BEX", "CAL", "DOR", "ELM", "FEN", "GIL", "HUX", "IVO", "JAX", "KEL", "LOM"]
COUNT = [4, 5, 6, 7, 8]
HOP_RANGE = [(2, 3), (3, 3), (3, 4), (4, 5), (4, 6)]
LINKS = [2, 2, 3, 3, 3]
CUTS = [Fraction(1), Fraction(99, 100), Fraction(97, 100), Fraction(95, 100), Fraction(9, 10),
        Fraction(85, 100), Fraction(8, 10)]


def cents_text(amount):
    """Two-decimal text of an amount, truncated."""
    whole = (amount * 100).numerator // (amount * 100).denominator
    return str(whole // 100) + "." + str(whole % 100).zfill(2)


class MoneyChangerTrailEnv:
    """Money Changer Trail: route your savings through exchange counters to the goal currency.

    You start with some amount of one currency. Each counter swaps ALL your money from one
    currency to another at its posted rate (the counter's cut is already in the rate). A
    turn uses one counter that accepts the currency you hold. Arrive in the goal currency
    with at least the required sum; arriving short is a loss. Reply like
    \\boxed{convert BEX}.
    """

    skill = "Mathematical_Reasoning"
    max_turns = 10

    def routes(self, limit):
        """(multiplier, path) for every simple route from home to goal."""
        found = []
        todo = [(self.home, [self.home], Fraction(1))]
        while todo:
            at, path, mult = todo.pop()
            if len(path) > 1 and at == self.goal:
                found.append((mult, path))
                continue
            if len(path) > limit:
                continue
            for dest, rate in self.counters.get(at, []):
                if dest in path:
                    continue
                todo.append((dest, path + [dest], mult * rate))
        return found

    def solution(self):
        """The most lucrative route."""
        mult, path = max(self.routes(len(self.tickers)))
        return ["\\boxed{convert %s}" % code for code in path[1:]]

    def hint(self):
        """Approach only."""
        return ("What counts is the product of rates along a whole route, and every counter takes "
                "a hidden cut, so compare full routes to the goal instead of the best single rate.")

    def reset(self, seed=None, options=None):
        """Set up a market."""
        self.rng = random.Random(seed)
        level = 2
        if isinstance(options, dict):
            raw = options.get("difficulty", 2)
            if isinstance(raw, (int, float)) and not isinstance(raw, bool):
                level = max(1, min(5, int(raw)))
        self.level = level
        n = COUNT[level - 1]
        shortest, longest = HOP_RANGE[level - 1]
        while True:
            self.tickers = self.rng.sample(TICKERS, n)
            value = {}
            for code in self.tickers:
                value[code] = Fraction(self.rng.randint(2, 40), 4)
            self.counters = {}
            for code in self.tickers:
                picks = self.rng.sample([o for o in self.tickers if o != code], LINKS[level - 1])
                posted = []
                for dest in sorted(picks):
                    true_rate = value[code] / value[dest] * self.rng.choice(CUTS)
                    posted.append((dest, Fraction(round(true_rate * 1000), 1000)))
                self.counters[code] = posted
            self.home = self.tickers[0]
            self.goal = self.tickers[-1]
            ranked = sorted(self.routes(n), reverse=True)
            if len(ranked) == 0:
                continue
            hops = len(ranked[0][1]) - 1
            if hops < shortest or hops > longest:
                continue
            if any(rate == 0 for posted in self.counters.values() for dest, rate in posted):
                continue
            self.purse = Fraction(self.rng.choice([100, 200, 500, 1000, 2500]))
            best = self.purse * ranked[0][0]
            self.needed = Fraction((best * 100).numerator // (best * 100).denominator, 100)
            if len(ranked) > 1 and self.purse * ranked[1][0] >= self.needed * Fraction(99, 100):
                continue
            if len(ranked) >= 3:
                break
        self.route_len = len(ranked[0][1]) - 1
        self.budget = self.route_len + 2
        self.holding = self.home
        self.path = [self.home]
        self.t = 0
        self.over = False
        return self.sheet("Counters are open for business."), self.meta()

    def meta(self):
        return {"turn": self.t, "currency": self.holding, "amount": cents_text(self.purse),
                "limit": self.budget, "difficulty": self.level}

    def sheet(self, note):
        rows = [note, f"{self.budget - self.t} turn(s) left.",
                f"Purse: {cents_text(self.purse)} {self.holding}. Path: {' -> '.join(self.path)}",
                f"Goal: at least {cents_text(self.needed)} {self.goal}.",
                "Counters (one unit of the first currency buys this much of the second):"]
        for code in self.tickers:
            for dest, rate in self.counters[code]:
                flag = "  <- usable now" if code == self.holding else ""
                rows.append(f"  {code} -> {dest}: {float(rate):.3f}{flag}")
        rows.append("Reply \\boxed{convert XYZ} with a counter for the currency you hold.")
        return "\n".join(rows)

    def step(self, action):
        """Swap everything at one counter."""
        if self.over:
            return "Game over; reset to play again.", 0.0, True, False, self.meta()
        self.t += 1
        box = extract_boxed(action)
        words = [] if box is None else box.upper().replace("->", " ").split()
        while words and words[0] in ("CONVERT", "TO", "EXCHANGE"):
            words = words[1:]
        rates = {}
        for dest, rate in self.counters[self.holding]:
            rates[dest] = rate
        if box is None:
            note = "No \\boxed{...} reply; no swap made."
        elif len(words) == 1 and words[0] in rates:
            dest = words[0]
            self.purse = self.purse * rates[dest]
            self.holding = dest
            self.path.append(dest)
            note = f"Swapped into {dest}."
            if dest == self.goal:
                self.over = True
                if self.purse < self.needed:
                    return self.sheet(note + " Too little money on arrival: the deal is off."), 0.0, True, False, self.meta()
                return self.sheet(note + " Goal met. Well traded!"), 1.0, True, False, self.meta()
        else:
            note = f"'{box[:40]}' is no counter from {self.holding}; usable: {', '.join(rates)}. No swap made."
        if self.t >= self.budget:
            self.over = True
            return self.sheet(note + " The counters have closed."), 0.0, True, False, self.meta()
        return self.sheet(note), 0.0, False, False, self.meta()
