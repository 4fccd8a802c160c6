"""CurrencyRelay: chain currency exchanges to end with the most money (Mathematical_Reasoning)."""

import random
from fractions import Fraction

from spadegym.program import extract_boxed, read_difficulty

CODES = ["AUR", "BEX", "CAL", "DOR", "ELM", "FEN", "GIL", "HUX", "IVO", "JAX", "KEL", "LOM"]
CURRENCIES = {1: 4, 2: 5, 3: 6, 4: 7, 5: 8}
HOPS = {1: (2, 3), 2: (3, 3), 3: (3, 4), 4: (4, 5), 5: (4, 6)}
OUT_DEGREE = {1: 2, 2: 2, 3: 3, 4: 3, 5: 3}
FEES = [Fraction(1), Fraction(99, 100), Fraction(97, 100), Fraction(95, 100), Fraction(9, 10),
        Fraction(85, 100), Fraction(8, 10)]
SLACK = 2


def all_paths(desks, start, goal, max_hops):
    """Every simple path of exchanges from ``start`` to ``goal``, with the money it yields per unit."""
    out = []
    stack = [(start, [start], Fraction(1))]
    while stack:
        here, path, factor = stack.pop()
        if here == goal and len(path) > 1:
            out.append((factor, path))
            continue
        if len(path) > max_hops:
            continue
        for there, rate in desks.get(here, []):
            if there not in path:
                stack.append((there, path + [there], factor * rate))
    return out


def money(value):
    """An amount as text with two decimals, truncated (never rounded up)."""
    cents = (value * 100).numerator // (value * 100).denominator
    return f"{cents // 100}.{cents % 100:02d}"


class CurrencyRelayEnv:
    """Currency Relay: convert your money through exchange desks to end with enough of the goal currency.

    You hold an amount of one currency. Each exchange desk converts ALL of your money from one
    currency into another at the listed rate (rates already include the desk's fee). Each turn
    use one desk that starts at your current currency. Reach the goal currency holding at least
    the required amount; arriving with less ends the game as a loss. Answer like
    \\boxed{convert BEX}.
    """

    max_turns = 10
    skill = "Mathematical_Reasoning"

    def reset(self, seed=None, options=None):
        """Build a new market from ``seed`` and the difficulty in ``options``."""
        self.rng = random.Random(seed)
        self.difficulty = read_difficulty(options, default=2)
        n = CURRENCIES[self.difficulty]
        low, high = HOPS[self.difficulty]
        while True:
            self.codes = self.rng.sample(CODES, n)
            # hidden fair values; every desk takes a fee, so no cycle makes money
            worth = {c: Fraction(self.rng.randint(2, 40), 4) for c in self.codes}
            self.desks = {}
            for c in self.codes:
                others = [o for o in self.codes if o != c]
                targets = self.rng.sample(others, OUT_DEGREE[self.difficulty])
                rows = []
                for t in sorted(targets):
                    exact = worth[c] / worth[t] * self.rng.choice(FEES)
                    # the quoted rate, rounded to 3 decimals, is the rate actually used
                    rows.append((t, Fraction(round(exact * 1000), 1000)))
                self.desks[c] = rows
            self.home, self.goal = self.codes[0], self.codes[-1]
            paths = sorted(all_paths(self.desks, self.home, self.goal, n), reverse=True)
            if not paths or not low <= len(paths[0][1]) - 1 <= high:
                continue
            if any(rate == 0 for rows in self.desks.values() for t, rate in rows):
                continue
            self.cash = Fraction(self.rng.choice([100, 200, 500, 1000, 2500]))
            best = self.cash * paths[0][0]
            cents = (best * 100).numerator // (best * 100).denominator
            self.target = Fraction(cents, 100)
            if len(paths) > 1 and self.cash * paths[1][0] >= self.target * Fraction(99, 100):
                continue
            if len(paths) < 3:
                continue
            break
        self.best_path = paths[0][1]
        self.limit = len(self.best_path) - 1 + SLACK
        self.start_cash = self.cash
        self.here = self.home
        self.trail = [self.home]
        self.turn = 0
        self.done = False
        return self.render("The market opens."), self.info()

    def info(self):
        """A small JSON-able summary of the state."""
        return {"turn": self.turn, "currency": self.here, "amount": money(self.cash),
                "limit": self.limit, "difficulty": self.difficulty}

    def render(self, result):
        """The observation text: result, state, actions and progress."""
        lines = [f"Turn {self.turn} of {self.limit}.", result,
                 f"You hold {money(self.cash)} {self.here}. Route: {' -> '.join(self.trail)}",
                 f"Goal: hold at least {money(self.target)} {self.goal}.",
                 "Exchange desks (1 unit of the first currency buys this much of the second):"]
        for c in self.codes:
            for t, rate in self.desks[c]:
                mark = "  <- usable now" if c == self.here else ""
                lines.append(f"  {c} -> {t}: {float(rate):.3f}{mark}")
        lines.append("Action: \\boxed{convert XYZ} using a desk from your current currency.")
        return "\n".join(lines)

    def step(self, action):
        """Convert everything through one desk."""
        if self.done:
            return "The episode is over; call reset() to play again.", 0.0, True, False, self.info()
        self.turn += 1
        box = extract_boxed(action)
        words = box.upper().replace("->", " ").split() if box is not None else []
        if words and words[0] in ("CONVERT", "TO", "EXCHANGE"):
            words = words[1:]
        if words and words[0] == "TO":
            words = words[1:]
        rates = dict(self.desks[self.here])
        if box is None:
            result = "No \\boxed{...} answer found; no exchange made."
        elif len(words) != 1 or words[0] not in rates:
            usable = ", ".join(rates)
            result = f"'{box[:40]}' is not a desk from {self.here}; usable: {usable}. No exchange made."
        else:
            there = words[0]
            self.cash = self.cash * rates[there]
            self.here = there
            self.trail.append(there)
            result = f"You converted into {there}."
            if there == self.goal:
                self.done = True
                if self.cash >= self.target:
                    return self.render(result + " Target reached. Solved!"), 1.0, True, False, self.info()
                return self.render(result + " You arrived with too little: the deal falls through."), 0.0, True, False, self.info()
        if self.turn >= self.limit:
            self.done = True
            return self.render(result + " The market closed."), 0.0, True, False, self.info()
        return self.render(result), 0.0, False, False, self.info()

    def solution(self):
        """The best route, found by enumerating every simple path and multiplying its rates."""
        paths = all_paths(self.desks, self.home, self.goal, len(self.codes))
        factor, path = max(paths)
        return ["\\boxed{convert " + c + "}" for c in path[1:]]

    def hint(self):
        """A nudge about the approach."""
        return ("Only the product of the rates along a route matters, and every desk charges a "
                "hidden fee, so compare whole routes to the goal currency rather than picking the "
                "best-looking single desk.")
