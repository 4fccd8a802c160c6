"""GearDialSync: align coupled gear dials by solving congruences (Mathematical_Reasoning)."""

import random

from spadegym.program import extract_boxed, read_difficulty

DIALS = {1: 2, 2: 3, 3: 4, 4: 4, 5: 5}
MODULUS = {1: 5, 2: 7, 3: 7, 4: 11, 5: 11}
EXTRA_COUPLING = {1: 0.0, 2: 0.0, 3: 0.3, 4: 0.5, 5: 0.6}
SLACK = 3


class GearDialSyncEnv:
    """Gear Dial Sync: turn coupled gear dials until every mark points to 0.

    A machine has several dials, each showing a number modulo m. Each lever drives a train of
    gears: pulling lever X once adds a fixed amount to some of the dials (mod m), as listed.
    Each turn you pull one lever n times, for n from 1 to m-1. Bring every dial to 0 within the
    turn limit. Answer like \\boxed{pull B 3}.
    """

    max_turns = 10
    skill = "Mathematical_Reasoning"

    def reset(self, seed=None, options=None):
        """Build a new machine from ``seed`` and the difficulty in ``options``."""
        self.rng = random.Random(seed)
        self.difficulty = read_difficulty(options, default=2)
        k = DIALS[self.difficulty]
        m = MODULUS[self.difficulty]
        self.m = m
        # lever i drives dial i (nonzero) and possibly later dials: a triangular system mod a
        # prime, so exactly one set of pull counts aligns the dials.
        effects = []
        for i in range(k):
            row = [0] * k
            row[i] = self.rng.randrange(1, m)
            if i + 1 < k:
                row[i + 1] = self.rng.randrange(1, m)
            for j in range(i + 2, k):
                if self.rng.random() < EXTRA_COUPLING[self.difficulty]:
                    row[j] = self.rng.randrange(1, m)
            effects.append(row)
        self.counts = [self.rng.randrange(1, m) for i in range(k)]
        order = list(range(k))
        if self.difficulty >= 3:
            self.rng.shuffle(order)
        # lever letters are shuffled so the chain's order must be read from the effects
        self.levers = [effects[i] for i in order]
        self.lever_counts = [self.counts[i] for i in order]
        self.start = []
        for dial in range(k):
            total = sum(effects[i][dial] * self.counts[i] for i in range(k))
            self.start.append((-total) % m)
        self.dials = list(self.start)
        self.limit = k + SLACK
        self.turn = 0
        self.done = False
        return self.render("The machine is idle."), self.info()

    def letters(self):
        """Lever letters in order."""
        return [chr(ord("A") + i) for i in range(len(self.levers))]

    def info(self):
        """A small JSON-able summary of the state."""
        return {"turn": self.turn, "dials": list(self.dials), "limit": self.limit,
                "difficulty": self.difficulty}

    def render(self, result):
        """The observation text: result, state, actions and progress."""
        lines = [f"Turn {self.turn} of {self.limit}.", result,
                 f"Dials (mod {self.m}): " + ", ".join(f"D{i + 1}={v}" for i, v in enumerate(self.dials)),
                 "Levers (effect of ONE pull):"]
        for letter, row in zip(self.letters(), self.levers):
            parts = [f"D{j + 1} +{a}" for j, a in enumerate(row) if a]
            lines.append(f"  {letter}: " + ", ".join(parts))
        lines.append(f"Goal: every dial shows 0. Action: \\boxed{{pull X n}} with X a lever and 1 <= n <= {self.m - 1}.")
        return "\n".join(lines)

    def parse(self, text):
        """(lever index, n) from the reply, or an error string."""
        box = extract_boxed(text)
        if box is None:
            return "No \\boxed{...} answer found."
        words = box.upper().replace(",", " ").split()
        if words and words[0] == "PULL":
            words = words[1:]
        letters = self.letters()
        if len(words) == 1:
            words.append("1")
        if len(words) != 2 or words[0] not in letters:
            return f"'{box[:40]}' is not 'pull X n' with X in {', '.join(letters)}."
        if not words[1].isdigit() or len(words[1]) > 3 or not 1 <= int(words[1]) <= self.m - 1:
            return f"n must be a whole number from 1 to {self.m - 1}."
        return letters.index(words[0]), int(words[1])

    def step(self, action):
        """Pull one lever n times."""
        if self.done:
            return "The episode is over; call reset() to play again.", 0.0, True, False, self.info()
        self.turn += 1
        parsed = self.parse(action)
        if isinstance(parsed, str):
            result = parsed + " No lever moved."
        else:
            lever, n = parsed
            row = self.levers[lever]
            self.dials = [(v + n * a) % self.m for v, a in zip(self.dials, row)]
            result = f"You pulled {self.letters()[lever]} {n} time(s)."
            if all(v == 0 for v in self.dials):
                self.done = True
                return self.render(result + " All marks align. Solved!"), 1.0, True, False, self.info()
        if self.turn >= self.limit:
            self.done = True
            return self.render(result + " Out of turns: the machine jams."), 0.0, True, False, self.info()
        return self.render(result), 0.0, False, False, self.info()

    def solution(self):
        """Solve the triangular congruence system by substitution; one pull action per lever."""
        k = len(self.levers)
        m = self.m
        counts = [0] * k
        remaining = [(-v) % m for v in self.start]
        solved = set()
        while len(solved) < k:
            for dial in range(k):
                open_levers = [i for i in range(k) if i not in solved and self.levers[i][dial]]
                if len(open_levers) == 1:
                    i = open_levers[0]
                    a = self.levers[i][dial]
                    counts[i] = (remaining[dial] * pow(a, m - 2, m)) % m
                    remaining = [(r - counts[i] * b) % m for r, b in zip(remaining, self.levers[i])]
                    solved.add(i)
                    break
        letters = self.letters()
        return ["\\boxed{pull " + letters[i] + " " + str(counts[i]) + "}" for i in range(k) if counts[i]]

    def hint(self):
        """A nudge about the approach."""
        return ("Find a dial that only one lever touches: its pull count is forced by a single "
                "congruence. Fix that lever, then look for the next dial that only one remaining "
                "lever affects.")
