"""Arrange a group by height from pairwise questions."""

import random

from spadegym.program import extract_boxed

GROUP = ["Abe", "Bea", "Cal", "Dot", "Eli", "Fay", "Gil", "Hope", "Ike", "Joy", "Kit", "Liv"]
SIZE = [4, 5, 6, 7, 8]
GIVEN = [1, 1, 2, 2, 2]


class TallestFirstEnv:
    """Tallest First: rank hidden heights from tallest to shortest by asking who is taller.

    No two people share a height, and you cannot see anyone. Each turn you may ask which of
    two people is taller (\\boxed{compare Abe Bea}); a few facts are given at the start. The
    questions are limited, so exploit what earlier answers already imply. End by stating the
    whole ranking, tallest first: \\boxed{order Bea, Abe, Cal, ...}. A wrong ranking loses.
    """

    skill = "Logical_Deduction"
    max_turns = 22

    def follows(self, known, x, y):
        """Whether the (taller, shorter) facts in ``known`` force x above y."""
        reached = {x}
        todo = [x]
        while todo:
            here = todo.pop()
            for big, small in known:
                if big != here or small in reached:
                    continue
                if small == y:
                    return True
                reached.add(small)
                todo.append(small)
        return False

    def position(self, who):
        return self.ranking.index(who)

    def questions(self):
        """Binary insertion that never asks what is already implied."""
        known = self.given[:]
        asked = []
        line = []
        for newcomer in self.names:
            low = 0
            high = len(line)
            while low < high:
                middle = (low + high) // 2
                other = line[middle]
                if self.follows(known, newcomer, other):
                    above = True
                elif self.follows(known, other, newcomer):
                    above = False
                else:
                    asked.append((newcomer, other))
                    above = self.position(newcomer) < self.position(other)
                    known.append((newcomer, other) if above else (other, newcomer))
                if above:
                    high = middle
                else:
                    low = middle + 1
            line.insert(low, newcomer)
        return asked

    def solution(self):
        """The insertion questions, then the true ranking."""
        replies = [f"\\boxed{{compare {a} {b}}}" for a, b in self.questions()]
        return replies + ["\\boxed{order " + ", ".join(self.ranking) + "}"]

    def reset(self, seed=None, options=None):
        """Assemble a group."""
        self.rng = random.Random(seed)
        level = 2
        if isinstance(options, dict):
            raw = options.get("difficulty", 2)
            if isinstance(raw, (int, float)) and not isinstance(raw, bool):
                level = max(1, min(5, int(raw)))
        self.level = level
        self.names = sorted(self.rng.sample(GROUP, SIZE[level - 1]))
        self.ranking = self.rng.sample(self.names, len(self.names))
        self.facts = []
        while len(self.facts) < GIVEN[level - 1]:
            a, b = self.rng.sample(self.names, 2)
            if self.position(b) < self.position(a):
                a, b = b, a
            if (a, b) not in self.facts:
                self.facts.append((a, b))
        self.given = self.facts[:]
        self.budget = len(self.questions()) + 3
        self.t = 0
        self.over = False
        return self.board("Everyone is lined up, heights hidden."), self.meta()

    def meta(self):
        return {"turn": self.t, "known": len(self.facts), "limit": self.budget, "difficulty": self.level}

    def board(self, note):
        rows = [note, f"Turn {self.t}; you may use {self.budget}.",
                "Group: " + ", ".join(self.names) + ".", "Facts so far:"]
        for big, small in self.facts:
            rows.append("  " + big + " is taller than " + small)
        rows.append("Replies: \\boxed{compare X Y}, or end with \\boxed{order X, Y, ...} "
                    "naming everyone from tallest to shortest.")
        return "\n".join(rows)

    def who(self, word):
        target = word.strip().lower()
        for name in self.names:
            if name.lower() == target:
                return name
        return None

    def step(self, action):
        """Answer a comparison or judge a ranking."""
        if self.over:
            return "Game over; reset to play again.", 0.0, True, False, self.meta()
        self.t += 1
        box = extract_boxed(action)
        body = "" if box is None else box.strip()
        tokens = body.replace(",", " ").replace(">", " ").split()
        head = tokens[0].lower() if tokens else ""
        if box is None:
            note = "No \\boxed{...} reply; nothing asked."
        elif head == "order":
            ranking = [self.who(t) for t in tokens[1:]]
            complete = None not in ranking and len(ranking) == len(self.names) and sorted(set(ranking)) == self.names
            if not complete:
                note = "The ranking must name each person once. No verdict yet."
            else:
                self.over = True
                if ranking == self.ranking:
                    return self.board("Exactly right. Well sorted!"), 1.0, True, False, self.meta()
                return self.board("That ranking is incorrect."), 0.0, True, False, self.meta()
        elif head == "compare":
            pair = [self.who(t) for t in tokens[1:] if t.lower() not in ("and", "with")]
            if len(pair) == 2 and None not in pair and pair[0] != pair[1]:
                a, b = pair
                if self.position(b) < self.position(a):
                    a, b = b, a
                if (a, b) not in self.facts:
                    self.facts.append((a, b))
                note = f"{a} is taller than {b}."
            else:
                note = f"'{body[:40]}' should be 'compare X Y' with two different people."
        else:
            note = f"'{body[:40]}' is not a comparison and not a ranking."
        if self.t >= self.budget:
            self.over = True
            return self.board(note + " No turns remain."), 0.0, True, False, self.meta()
        return self.board(note), 0.0, False, False, self.meta()

    def hint(self):
        """Approach only."""
        return ("Insert people one by one, comparing each newcomer with the middle of the current "
                "line to halve the range; skip a question whenever known facts settle it by "
                "transitivity.")
