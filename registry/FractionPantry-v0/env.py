"""FractionPantry: scale a recipe and measure it with fractional scoops (Mathematical_Reasoning)."""

import random
from collections import deque
from fractions import Fraction

from spadegym.program import extract_boxed, read_difficulty

INGREDIENTS = ["flour", "sugar", "butter", "milk", "oats", "cocoa", "rice", "honey", "yogurt",
               "raisins", "almonds", "cream"]
SCOOPS = {
    1: ["1", "1/2", "1/4"],
    2: ["1", "1/2", "1/3", "1/4"],
    3: ["1", "1/2", "1/3", "1/4"],
    4: ["1", "2/3", "1/2", "1/4", "1/8"],
    5: ["1", "3/4", "2/3", "1/3", "1/8"],
}
INGREDIENT_COUNT = {1: 2, 2: 2, 3: 3, 4: 3, 5: 4}
SCALINGS = [(2, 3), (4, 6), (4, 10), (6, 9), (3, 4), (8, 6), (6, 4), (3, 5), (4, 3), (2, 5),
            (6, 8), (12, 9), (8, 12), (9, 6)]
RECIPE_AMOUNTS = [Fraction(n, d) for d in (2, 3, 4, 6, 8) for n in range(1, 4 * d) if Fraction(n, d).denominator == d]
UNIT = 24
MAX_CUPS = 6
SLACK = 3


def show(amount):
    """A fraction of a cup as a mixed number, e.g. 1 1/2."""
    whole, rest = divmod(amount.numerator, amount.denominator)
    if rest == 0:
        return str(whole)
    frac = f"{rest}/{amount.denominator}"
    return f"{whole} {frac}" if whole else frac


def scoop_plan(goal, scoops):
    """Fewest signed scoops (list of (sign, scoop)) taking an empty bowl to ``goal``, or None."""
    if (goal * UNIT).denominator != 1:
        return None
    units = [int(s * UNIT) for s in scoops]
    top = MAX_CUPS * UNIT
    target = int(goal * UNIT)
    prev = {0: None}
    queue = deque([0])
    while queue:
        x = queue.popleft()
        if x == target:
            plan = []
            while prev[x] is not None:
                x, move = prev[x]
                plan.append(move)
            return plan[::-1]
        for i, u in enumerate(units):
            for sign in (1, -1):
                y = x + sign * u
                if 0 <= y <= top and y not in prev:
                    prev[y] = (x, (sign, i))
                    queue.append(y)
    return None


class FractionPantryEnv:
    """Fraction Pantry: scale a recipe and measure every ingredient with fractional scoops.

    A recipe is written for one number of servings and you must cook a different number, so
    every amount must be scaled by the same ratio. Each bowl starts empty. Each turn add one
    scoop of an ingredient to its bowl or remove one scoop from it. Win when every bowl holds
    exactly the scaled amount, within the turn limit. Answer like \\boxed{add 1/3 flour} or
    \\boxed{remove 1/4 sugar}.
    """

    max_turns = 20
    skill = "Mathematical_Reasoning"

    def reset(self, seed=None, options=None):
        """Build a new recipe from ``seed`` and the difficulty in ``options``."""
        self.rng = random.Random(seed)
        self.difficulty = read_difficulty(options, default=2)
        self.scoop_names = list(SCOOPS[self.difficulty])
        self.scoops = [Fraction(s) for s in self.scoop_names]
        count = INGREDIENT_COUNT[self.difficulty]
        max_each = 2 if self.difficulty <= 2 else 3
        while True:
            self.serves, self.cook = self.rng.choice(SCALINGS)
            factor = Fraction(self.cook, self.serves)
            names = self.rng.sample(INGREDIENTS, count)
            self.recipe = []
            plans = []
            for name in names:
                for attempt in range(40):
                    amount = self.rng.choice(RECIPE_AMOUNTS)
                    goal = amount * factor
                    plan = scoop_plan(goal, self.scoops) if goal <= MAX_CUPS else None
                    if plan is not None and 2 <= len(plan) <= max_each:
                        self.recipe.append((name, amount, goal))
                        plans.append(plan)
                        break
            if len(self.recipe) == count:
                break
        self.optimal = sum(len(p) for p in plans)
        self.limit = self.optimal + SLACK
        self.bowls = {name: Fraction(0) for name, a, g in self.recipe}
        self.turn = 0
        self.done = False
        return self.render("The bowls are empty."), self.info()

    def info(self):
        """A small JSON-able summary of the state."""
        return {"turn": self.turn, "bowls": {k: str(v) for k, v in self.bowls.items()},
                "limit": self.limit, "difficulty": self.difficulty}

    def render(self, result):
        """The observation text: result, state, actions and progress."""
        lines = [f"Turn {self.turn} of {self.limit}.", result,
                 f"The recipe serves {self.serves}; you are cooking for {self.cook}.",
                 "Recipe amounts (cups) -> your bowl now:"]
        for name, amount, goal in self.recipe:
            lines.append(f"  {name}: recipe {show(amount)} -> bowl {show(self.bowls[name])}")
        lines.append("Scoops (cups): " + ", ".join(self.scoop_names))
        lines.append("Action: \\boxed{add S name} or \\boxed{remove S name}, S one of the scoops.")
        return "\n".join(lines)

    def parse(self, text):
        """(sign, scoop, ingredient) from the reply, or an error string."""
        box = extract_boxed(text)
        if box is None:
            return "No \\boxed{...} answer found."
        words = [w for w in box.lower().replace(",", " ").split() if w not in ("cup", "cups", "of")]
        if len(words) != 3 or words[0] not in ("add", "remove"):
            return f"'{box[:40]}' is not 'add S name' or 'remove S name'."
        if words[1] not in self.scoop_names:
            return f"'{words[1][:20]}' is not a scoop; use one of {', '.join(self.scoop_names)}."
        if words[2] not in self.bowls:
            return f"'{words[2][:20]}' is not in this recipe; use {', '.join(self.bowls)}."
        sign = 1 if words[0] == "add" else -1
        return sign, Fraction(words[1]), words[2]

    def step(self, action):
        """Add or remove one scoop."""
        if self.done:
            return "The episode is over; call reset() to play again.", 0.0, True, False, self.info()
        self.turn += 1
        parsed = self.parse(action)
        if isinstance(parsed, str):
            result = parsed + " Nothing was measured."
        else:
            sign, scoop, name = parsed
            after = self.bowls[name] + sign * scoop
            if after < 0:
                result = f"The {name} bowl holds only {show(self.bowls[name])} cups; you cannot remove {show(scoop)}."
            elif after > MAX_CUPS:
                result = f"The {name} bowl holds at most {MAX_CUPS} cups."
            else:
                self.bowls[name] = after
                verb = "added" if sign > 0 else "removed"
                result = f"You {verb} {show(scoop)} cup of {name}; the bowl holds {show(after)}."
                if all(self.bowls[n] == g for n, a, g in self.recipe):
                    self.done = True
                    return self.render(result + " Every amount is exact. Solved!"), 1.0, True, False, self.info()
        if self.turn >= self.limit:
            self.done = True
            return self.render(result + " Out of turns: dinner is late."), 0.0, True, False, self.info()
        return self.render(result), 0.0, False, False, self.info()

    def solution(self):
        """Fewest scoops per ingredient, found by breadth-first search over bowl contents."""
        out = []
        for name, amount, goal in self.recipe:
            for sign, i in scoop_plan(goal, self.scoops):
                verb = "add" if sign > 0 else "remove"
                out.append("\\boxed{" + f"{verb} {self.scoop_names[i]} {name}" + "}")
        return out

    def hint(self):
        """A nudge about the approach."""
        return ("First scale each amount by cook/serves and write it over a common denominator. "
                "Then express it with as few scoops as possible; removing a scoop is allowed, so "
                "overshooting with a big scoop and taking a small one back can save turns.")
