"""RuleProbeLab: identify a hidden rule about number triples by testing examples (Logical_Deduction)."""

import itertools
import random

from spadegym.program import extract_boxed, read_difficulty

PRIMES = {2, 3, 5, 7, 11, 13, 17, 19}
RULES = [
    ("the numbers strictly increase (a < b < c)", lambda a, b, c: a < b < c),
    ("the numbers strictly decrease (a > b > c)", lambda a, b, c: a > b > c),
    ("a + b = c", lambda a, b, c: a + b == c),
    ("all three are even", lambda a, b, c: a % 2 == 0 and b % 2 == 0 and c % 2 == 0),
    ("the sum is divisible by 3", lambda a, b, c: (a + b + c) % 3 == 0),
    ("c is the largest (strictly)", lambda a, b, c: c > a and c > b),
    ("at least two numbers are equal", lambda a, b, c: a == b or b == c or a == c),
    ("a * b > c", lambda a, b, c: a * b > c),
    ("at least one number is prime", lambda a, b, c: a in PRIMES or b in PRIMES or c in PRIMES),
    ("b lies strictly between a and c", lambda a, b, c: min(a, c) < b < max(a, c)),
    ("exactly one number is odd", lambda a, b, c: (a % 2) + (b % 2) + (c % 2) == 1),
    ("the sum is less than 15", lambda a, b, c: a + b + c < 15),
    ("a is the smallest (strictly)", lambda a, b, c: a < b and a < c),
    ("the numbers form an arithmetic sequence", lambda a, b, c: b - a == c - b),
    ("a and c have the same parity", lambda a, b, c: a % 2 == c % 2),
    ("the sum is odd", lambda a, b, c: (a + b + c) % 2 == 1),
    ("some number is a multiple of 5", lambda a, b, c: a % 5 == 0 or b % 5 == 0 or c % 5 == 0),
    ("the largest number is at most twice the smallest", lambda a, b, c: max(a, b, c) <= 2 * min(a, b, c)),
    ("b is even", lambda a, b, c: b % 2 == 0),
    ("all three are different", lambda a, b, c: a != b and b != c and a != c),
    ("c - a is at least 5", lambda a, b, c: c - a >= 5),
    ("a + c > 2 * b", lambda a, b, c: a + c > 2 * b),
]
CANDIDATES = {1: 6, 2: 8, 3: 10, 4: 12, 5: 16}
PROBES = list(itertools.product(range(10), repeat=3))
SLACK = 1


def probe_table(candidates):
    """One probe triple per distinct pattern of verdicts: {bitmask of accepting rules: triple}."""
    table = {}
    for t in PROBES:
        mask = 0
        for i, r in enumerate(candidates):
            if RULES[r][1](*t):
                mask |= 1 << i
        if mask not in table:
            table[mask] = t
    return table


def greedy_tests(candidates, table, open_rules, secret):
    """Triples chosen to split the rules still open (indices into ``candidates``) evenly."""
    open_rules = list(open_rules)
    tests = []
    masks = sorted(table)
    while len(open_rules) > 1:
        best = min(masks, key=lambda m: abs(2 * sum(1 for i in open_rules if (m >> i) & 1) - len(open_rules)))
        verdict = (best >> secret) & 1
        open_rules = [i for i in open_rules if (best >> i) & 1 == verdict]
        tests.append(table[best])
    return tests


class RuleProbeLabEnv:
    """Rule Probe Lab: find the hidden rule about number triples by testing your own examples.

    A hidden rule decides which triples (a, b, c) of whole numbers from 0 to 99 fit. It is one
    of the listed candidate rules, each with a letter. Each turn test a triple,
    \\boxed{test 3 8 12}, and learn whether it fits. Tests are limited, so choose triples that
    tell the remaining candidates apart. Finish with \\boxed{rule K}. A wrong rule loses.
    """

    max_turns = 8
    skill = "Logical_Deduction"

    def reset(self, seed=None, options=None):
        """Pick new candidates and a hidden rule from ``seed`` and the difficulty in ``options``."""
        self.rng = random.Random(seed)
        self.difficulty = read_difficulty(options, default=2)
        k = CANDIDATES[self.difficulty]
        while True:
            chosen = self.rng.sample(range(len(RULES)), k)
            table = probe_table(chosen)
            # every pair of candidates must disagree on some probe, or no test separates them
            if all(any(((m >> i) & 1) != ((m >> j) & 1) for m in table)
                   for i in range(k) for j in range(i + 1, k)):
                break
        self.candidates = chosen
        self.table = table
        self.letters = self.rng.sample("ABCDEFGHJKLMNPQRSTUVWXYZ", k)
        self.secret = self.rng.choice(chosen)
        fits = [t for t in PROBES if RULES[self.secret][1](*t)]
        self.example = self.rng.choice(fits)
        self.log = [(self.example, True)]
        worst = max(len(greedy_tests(chosen, table, range(k), i)) for i in range(k))
        self.limit = worst + 1 + SLACK
        self.turn = 0
        self.done = False
        return self.render("The lab is ready."), self.info()

    def info(self):
        """A small JSON-able summary of the state."""
        return {"turn": self.turn, "tests": len(self.log) - 1, "limit": self.limit,
                "difficulty": self.difficulty}

    def render(self, result):
        """The observation text: result, candidates, test log, actions and progress."""
        lines = [f"Turn {self.turn} of {self.limit}.", result, "Candidate rules:"]
        pairs = sorted(zip(self.letters, self.candidates))
        for letter, r in pairs:
            lines.append(f"  {letter}: {RULES[r][0]}")
        lines.append("Results (the first was given by the lab):")
        for (a, b, c), fits in self.log:
            lines.append(f"  ({a}, {b}, {c}) {'fits' if fits else 'does not fit'}")
        lines.append("Actions: \\boxed{test a b c} with whole numbers 0..99, or \\boxed{rule K} with K a candidate letter.")
        return "\n".join(lines)

    def step(self, action):
        """Run one test or judge the final guess."""
        if self.done:
            return "The episode is over; call reset() to play again.", 0.0, True, False, self.info()
        self.turn += 1
        box = extract_boxed(action)
        words = box.replace(",", " ").replace("(", " ").replace(")", " ").split() if box is not None else []
        head = words[0].lower() if words else ""
        if box is None:
            result = "No \\boxed{...} answer found; nothing was tested."
        elif head == "test":
            nums = words[1:]
            if len(nums) != 3 or any(not w.isdigit() or len(w) > 2 for w in nums):
                result = "A test is three whole numbers from 0 to 99, e.g. 'test 3 8 12'."
            else:
                triple = tuple(int(w) for w in nums)
                fits = RULES[self.secret][1](*triple)
                self.log.append((triple, fits))
                result = f"{triple} {'fits' if fits else 'does not fit'} the rule."
        elif head == "rule":
            letter = words[1].upper() if len(words) == 2 else ""
            if letter not in self.letters:
                result = "Name one candidate letter, e.g. 'rule " + self.letters[0] + "'."
            else:
                self.done = True
                if self.candidates[self.letters.index(letter)] == self.secret:
                    return self.render(f"Rule {letter} is right. Solved!"), 1.0, True, False, self.info()
                return self.render(f"Rule {letter} is not the hidden rule."), 0.0, True, False, self.info()
        else:
            result = f"'{box[:40]}' is neither a test nor a rule guess."
        if self.turn >= self.limit:
            self.done = True
            return self.render(result + " Out of turns."), 0.0, True, False, self.info()
        return self.render(result), 0.0, False, False, self.info()

    def solution(self):
        """Greedy splitting tests answered by the hidden rule, then its letter."""
        open_rules = [i for i, r in enumerate(self.candidates) if RULES[r][1](*self.example)]
        secret = self.candidates.index(self.secret)
        tests = greedy_tests(self.candidates, self.table, open_rules, secret)
        out = ["\\boxed{test " + " ".join(str(x) for x in t) + "}" for t in tests]
        out.append("\\boxed{rule " + self.letters[self.candidates.index(self.secret)] + "}")
        return out

    def hint(self):
        """A nudge about the approach."""
        return ("First cross out every candidate the given example breaks. Then pick a triple "
                "that about half of the remaining candidates accept, so each answer halves the "
                "field.")
