"""HouseRowRiddle: a small zebra puzzle solved with clues and yes/no questions (Logical_Deduction)."""

import itertools
import random

from spadegym.program import extract_boxed, read_difficulty

ATTRIBUTES = [
    ("colour", ["red", "green", "blue", "white", "yellow"]),
    ("pet", ["cat", "dog", "fish", "bird", "horse"]),
    ("drink", ["tea", "milk", "juice", "coffee", "water"]),
]
SHAPE = {1: (3, 2), 2: (4, 2), 3: (3, 3), 4: (4, 3), 5: (5, 2)}
OPEN_CANDIDATES = {1: (3, 6), 2: (5, 12), 3: (5, 16), 4: (9, 32), 5: (9, 48)}
SLACK = 2


def holds(clue, cand):
    """Whether the candidate (value -> house index) satisfies the clue."""
    kind, a, b = clue
    if kind == "at":
        return cand[a] == b
    if kind == "not_at":
        return cand[a] != b
    if kind == "same":
        return cand[a] == cand[b]
    if kind == "left_of":
        return cand[a] + 1 == cand[b]
    if kind == "before":
        return cand[a] < cand[b]
    return abs(cand[a] - cand[b]) == 1


def noun(value):
    """How a clue names a value: 'the red house', 'the cat', 'the tea drinker'."""
    if value in ATTRIBUTES[0][1]:
        return f"the {value} house"
    if value in ATTRIBUTES[2][1]:
        return f"the {value} drinker"
    return f"the {value}"


def clue_text(clue):
    """A clue in words (houses are numbered from 1 on the left)."""
    kind, a, b = clue
    first = noun(a)[0].upper() + noun(a)[1:]
    if kind == "at":
        return f"{first} is in house {b + 1}."
    if kind == "not_at":
        return f"{first} is not in house {b + 1}."
    if kind == "same":
        return f"{first} and {noun(b)} are in the same house."
    if kind == "left_of":
        return f"{first} is in the house directly left of {noun(b)}."
    if kind == "before":
        return f"{first} is somewhere left of {noun(b)}."
    return f"{first} and {noun(b)} are in neighbouring houses."


class HouseRowRiddleEnv:
    """House Row Riddle: work out what is in every house from clues and yes/no questions.

    A row of houses (numbered 1 from the left) each has one value of every attribute (a colour,
    a pet, ...), and every value is used exactly once. Some clues are given; they are not quite
    enough. Each turn ask a yes/no question: \\boxed{is cat in 2} or \\boxed{is cat with red}.
    When sure, give every house left to right, houses separated by ';':
    \\boxed{solve red cat; blue dog; green fish}. A wrong solution loses.
    """

    max_turns = 12
    skill = "Logical_Deduction"

    def reset(self, seed=None, options=None):
        """Build a new row of houses from ``seed`` and the difficulty in ``options``."""
        self.rng = random.Random(seed)
        self.difficulty = read_difficulty(options, default=2)
        self.n, count = SHAPE[self.difficulty]
        self.attributes = [(name, values[: self.n]) for name, values in ATTRIBUTES[:count]]
        self.values = [v for name, values in self.attributes for v in values]
        perms = list(itertools.permutations(range(self.n)))
        everything = []
        for combo in itertools.product(perms, repeat=count):
            cand = {}
            for (name, values), perm in zip(self.attributes, combo):
                for v, house in zip(values, perm):
                    cand[v] = house
            everything.append(cand)
        low, high = OPEN_CANDIDATES[self.difficulty]
        while True:
            self.truth = self.rng.choice(everything)
            self.clues = []
            cands = everything
            while len(cands) > high:
                clue = self.random_clue()
                kept = [c for c in cands if holds(clue, c)]
                if len(kept) < len(cands):
                    self.clues.append(clue)
                    cands = kept
            if len(cands) >= low:
                break
        self.start_candidates = cands
        self.asked = []
        self.limit = len(self.plan()) + 1 + SLACK
        self.turn = 0
        self.done = False
        return self.render("The street is quiet."), self.info()

    def random_clue(self):
        """A random clue that is true of the hidden row."""
        t = self.truth
        kind = self.rng.choice(["at", "not_at", "same", "same", "left_of", "before", "next_to"])
        a, b = self.rng.sample(self.values, 2)
        if kind == "at":
            return ("at", a, t[a])
        if kind == "not_at":
            return ("not_at", a, self.rng.choice([h for h in range(self.n) if h != t[a]]))
        if kind == "same":
            group = [v for v in self.values if t[v] == t[a] and v != a]
            return ("same", a, self.rng.choice(group)) if group else ("at", a, t[a])
        if t[a] > t[b]:
            a, b = b, a
        if kind == "left_of" and t[a] + 1 == t[b]:
            return ("left_of", a, b)
        if kind == "next_to" and t[b] - t[a] == 1:
            return ("next_to", a, b)
        return ("before", a, b) if t[a] != t[b] else ("same", a, b)

    def questions(self):
        """Every yes/no question as a clue-shaped test."""
        out = [("at", v, h) for v in self.values for h in range(self.n)]
        for i, a in enumerate(self.values):
            for b in self.values[i + 1:]:
                if self.attribute_of(a) != self.attribute_of(b):
                    out.append(("same", a, b))
        return out

    def attribute_of(self, value):
        """The name of the attribute ``value`` belongs to."""
        for name, values in self.attributes:
            if value in values:
                return name
        return ""

    def plan(self):
        """Questions that halve the remaining possibilities as evenly as possible."""
        cands = self.start_candidates
        asked = []
        while len(cands) > 1:
            best = min(self.questions(), key=lambda q: abs(2 * sum(1 for c in cands if holds(q, c)) - len(cands)))
            answer = holds(best, self.truth)
            cands = [c for c in cands if holds(best, c) == answer]
            asked.append(best)
        return asked

    def info(self):
        """A small JSON-able summary of the state."""
        return {"turn": self.turn, "questions": len(self.asked), "limit": self.limit,
                "difficulty": self.difficulty}

    def render(self, result):
        """The observation text: result, clues, answers, actions and progress."""
        lines = [f"Turn {self.turn} of {self.limit}.", result, f"There are {self.n} houses."]
        for name, values in self.attributes:
            lines.append(f"  {name}s: {', '.join(values)}")
        lines.append("Clues:")
        lines.extend("  " + clue_text(c) for c in self.clues)
        if self.asked:
            lines.append("Your questions:")
            for text, answer in self.asked:
                lines.append(f"  {text} -> {answer}")
        lines.append("Actions: \\boxed{is VALUE in N}, \\boxed{is VALUE with VALUE}, or "
                     "\\boxed{solve ...} listing each house's values left to right, houses separated by ';'.")
        return "\n".join(lines)

    def judge(self, text):
        """Score a 'solve' answer: (message, reward, finished)."""
        houses = [h.replace(",", " ").split() for h in text.split(";")]
        if len(houses) != self.n:
            return f"A solution lists {self.n} houses separated by ';'. Nothing was decided.", 0.0, False
        claim = {}
        for index, words in enumerate(houses):
            for w in words:
                if w.lower() not in self.values or w.lower() in claim:
                    return f"'{w[:20]}' is unknown or repeated. Nothing was decided.", 0.0, False
                claim[w.lower()] = index
        if len(claim) != len(self.values):
            return "Every value must appear exactly once. Nothing was decided.", 0.0, False
        if all(claim[v] == self.truth[v] for v in self.values):
            return "Every house is right. Solved!", 1.0, True
        return "That arrangement is wrong.", 0.0, True

    def step(self, action):
        """Answer a yes/no question or judge a solution."""
        if self.done:
            return "The episode is over; call reset() to play again.", 0.0, True, False, self.info()
        self.turn += 1
        box = extract_boxed(action)
        text = box.strip().lower().rstrip("?") if box is not None else ""
        words = text.split()
        if box is None:
            result = "No \\boxed{...} answer found; nothing was asked."
        elif words[:1] == ["solve"]:
            result, reward, finished = self.judge(text[len("solve"):])
            if finished:
                self.done = True
                return self.render(result), reward, True, False, self.info()
        elif len(words) == 4 and words[0] == "is" and words[1] in self.values and words[2] in ("in", "with"):
            a, b = words[1], words[3]
            if words[2] == "in" and b.isdigit() and len(b) < 3 and 1 <= int(b) <= self.n:
                answer = "yes" if self.truth[a] == int(b) - 1 else "no"
                self.asked.append((f"Is the {a} in house {b}?", answer))
                result = f"Answer: {answer}."
            elif words[2] == "with" and b in self.values and b != a:
                answer = "yes" if self.truth[a] == self.truth[b] else "no"
                self.asked.append((f"Is the {a} with the {b}?", answer))
                result = f"Answer: {answer}."
            else:
                result = f"Could not read '{text[:40]}': use a house number 1..{self.n} or another value."
        else:
            result = f"'{text[:40]}' is not a question (is X in N / is X with Y) or a solve answer."
        if self.turn >= self.limit:
            self.done = True
            return self.render(result + " Out of turns."), 0.0, True, False, self.info()
        return self.render(result), 0.0, False, False, self.info()

    def solution(self):
        """Information-splitting questions answered by the hidden row, then the row itself."""
        out = []
        for kind, a, b in self.plan():
            if kind == "at":
                out.append("\\boxed{is " + a + " in " + str(b + 1) + "}")
            else:
                out.append("\\boxed{is " + a + " with " + b + "}")
        houses = []
        for h in range(self.n):
            houses.append(" ".join(v for v in self.values if self.truth[v] == h))
        out.append("\\boxed{solve " + "; ".join(houses) + "}")
        return out

    def hint(self):
        """A nudge about the approach."""
        return ("Draw a grid of houses by values and cross out what the clues forbid. Then ask "
                "about a placement that is possible in about half of the arrangements still "
                "open, so every answer rules out as much as possible.")
