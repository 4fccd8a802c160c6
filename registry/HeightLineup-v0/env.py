"""HeightLineup: order people by height using as few comparisons as possible (Logical_Deduction)."""

import random

from spadegym.program import extract_boxed, read_difficulty

NAMES = ["Abe", "Bea", "Cal", "Dot", "Eli", "Fay", "Gil", "Hope", "Ike", "Joy", "Kit", "Liv"]
PEOPLE = {1: 4, 2: 5, 3: 6, 4: 7, 5: 8}
FREE_FACTS = {1: 1, 2: 1, 3: 2, 4: 2, 5: 2}
SLACK = 2


def implied(facts, a, b):
    """True when the (taller, shorter) ``facts`` imply that ``a`` is taller than ``b``."""
    seen = {a}
    stack = [a]
    while stack:
        x = stack.pop()
        for tall, short in facts:
            if tall == x and short not in seen:
                if short == b:
                    return True
                seen.add(short)
                stack.append(short)
    return False


class HeightLineupEnv:
    """Height Lineup: sort a group of people from tallest to shortest by asking for comparisons.

    Everyone has a different height, but you cannot see them. Each turn ask who is taller of
    two people (\\boxed{compare Abe Bea}); a few facts are known from the start. Comparisons are
    limited, so reuse what the answers already imply. Finish by giving the full order from
    tallest to shortest: \\boxed{order Bea, Abe, Cal, ...}. A wrong order loses.
    """

    max_turns = 22
    skill = "Logical_Deduction"

    def reset(self, seed=None, options=None):
        """Line up a new group from ``seed`` and the difficulty in ``options``."""
        self.rng = random.Random(seed)
        self.difficulty = read_difficulty(options, default=2)
        n = PEOPLE[self.difficulty]
        self.people = sorted(self.rng.sample(NAMES, n))
        self.truth = list(self.people)
        self.rng.shuffle(self.truth)  # tallest first
        self.facts = []
        while len(self.facts) < FREE_FACTS[self.difficulty]:
            a, b = self.rng.sample(self.people, 2)
            fact = (a, b) if self.rank(a) < self.rank(b) else (b, a)
            if fact not in self.facts:
                self.facts.append(fact)
        self.start_facts = list(self.facts)
        self.limit = len(self.plan()) + 1 + SLACK
        self.turn = 0
        self.done = False
        return self.render("The group is waiting."), self.info()

    def rank(self, person):
        """Position in the hidden order (0 = tallest)."""
        return self.truth.index(person)

    def plan(self):
        """Comparisons asked by binary insertion sort that skips anything already implied."""
        facts = list(self.start_facts)
        asked = []
        order = []
        for p in self.people:
            lo, hi = 0, len(order)
            while lo < hi:
                mid = (lo + hi) // 2
                q = order[mid]
                if implied(facts, p, q):
                    taller = True
                elif implied(facts, q, p):
                    taller = False
                else:
                    asked.append((p, q))
                    taller = self.rank(p) < self.rank(q)
                    facts.append((p, q) if taller else (q, p))
                if taller:
                    hi = mid
                else:
                    lo = mid + 1
            order.insert(lo, p)
        return asked

    def info(self):
        """A small JSON-able summary of the state."""
        return {"turn": self.turn, "known": len(self.facts), "limit": self.limit,
                "difficulty": self.difficulty}

    def render(self, result):
        """The observation text: result, known facts, actions and progress."""
        lines = [f"Turn {self.turn} of {self.limit}.", result,
                 "People: " + ", ".join(self.people) + ".", "Known facts:"]
        for tall, short in self.facts:
            lines.append(f"  {tall} is taller than {short}")
        lines.append("Actions: \\boxed{compare X Y}, or finish with \\boxed{order X, Y, ...} "
                     "listing everyone from tallest to shortest.")
        return "\n".join(lines)

    def person(self, word):
        """The person whose name matches ``word`` (case-insensitive), or None."""
        for p in self.people:
            if p.lower() == word.strip().lower():
                return p
        return None

    def step(self, action):
        """Answer one comparison or judge the final order."""
        if self.done:
            return "The episode is over; call reset() to play again.", 0.0, True, False, self.info()
        self.turn += 1
        box = extract_boxed(action)
        text = box.strip() if box is not None else ""
        words = text.replace(",", " ").replace(">", " ").split()
        head = words[0].lower() if words else ""
        if box is None:
            result = "No \\boxed{...} answer found; nothing was asked."
        elif head == "compare":
            names = [self.person(w) for w in words[1:] if w.lower() not in ("and", "with")]
            if len(names) != 2 or None in names or names[0] == names[1]:
                result = f"'{text[:40]}' is not 'compare X Y' with two different people."
            else:
                a, b = names
                fact = (a, b) if self.rank(a) < self.rank(b) else (b, a)
                if fact not in self.facts:
                    self.facts.append(fact)
                result = f"{fact[0]} is taller than {fact[1]}."
        elif head == "order":
            names = [self.person(w) for w in words[1:]]
            if None in names or sorted(set(names)) != self.people or len(names) != len(self.people):
                result = "The order must list every person exactly once. Nothing was decided."
            else:
                self.done = True
                if names == self.truth:
                    return self.render("That is exactly the right order. Solved!"), 1.0, True, False, self.info()
                return self.render("That order is wrong."), 0.0, True, False, self.info()
        else:
            result = f"'{text[:40]}' is neither a comparison nor a final order."
        if self.turn >= self.limit:
            self.done = True
            return self.render(result + " Out of turns."), 0.0, True, False, self.info()
        return self.render(result), 0.0, False, False, self.info()

    def solution(self):
        """Binary insertion sort against the hidden heights, then the resulting order."""
        out = ["\\boxed{compare " + a + " " + b + "}" for a, b in self.plan()]
        out.append("\\boxed{order " + ", ".join(self.truth) + "}")
        return out

    def hint(self):
        """A nudge about the approach."""
        return ("Build the order one person at a time and place each newcomer by comparing with "
                "the middle of the current line, halving the range each time; skip any "
                "comparison that the known facts already settle by transitivity.")
