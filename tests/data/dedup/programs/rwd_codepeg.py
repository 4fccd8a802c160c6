"""Colour code cracking with hit and near-miss counts."""

import itertools
import random

from spadegym.program import extract_boxed

SETTINGS = {
    1: {"slots": 3, "hues": 4, "tries": 6},
    2: {"slots": 4, "hues": 5, "tries": 7},
    3: {"slots": 4, "hues": 6, "tries": 8},
    4: {"slots": 4, "hues": 7, "tries": 9},
    5: {"slots": 5, "hues": 6, "tries": 10},
}
NAMES = dict(R="red", G="green", B="blue", Y="yellow", O="orange", P="purple", W="white")
ALL_HUES = "RGBYOPW"


class HueCipherEnv:
    """Hue Cipher: work out a secret row of coloured pins.

    The secret is a row of coloured pins; a colour may appear more than once. Each attempt is
    answered with hits (correct colour, correct slot) and near misses (correct colour, other
    slot). Find the row before the attempts run out.
    Reply with one letter per pin inside a box, for example \\boxed{RGBY}.
    """

    skill = "Logical_Deduction"
    max_turns = 10

    def step(self, action):
        """Judge one attempt."""
        if self.finished:
            return "This round has ended; reset to play again.", 0.0, True, False, self.status()
        self.moves += 1
        raw = extract_boxed(action)
        if raw is None:
            attempt = ""
            verdict = "Nothing inside \\boxed{...}; this attempt is wasted."
        else:
            attempt = ""
            for ch in raw.upper():
                if ch in " ,-":
                    continue
                attempt += ch
            valid = len(attempt) == self.slots and all(ch in self.hues for ch in attempt)
            if not valid:
                verdict = f"'{raw[:40]}' must be {self.slots} letters taken from {self.hues}; no clue given."
            else:
                hits, near = grade(attempt, self.secret)
                self.log.append((attempt, (hits, near)))
                verdict = f"{attempt}: {hits} black, {near} white."
                if hits == self.slots:
                    self.finished = True
                    return self.view(verdict + " The cipher is broken!"), 1.0, True, False, self.status()
        if self.moves >= self.tries:
            self.finished = True
            return self.view(verdict + " No attempts remain."), 0.0, True, False, self.status()
        return self.view(verdict), 0.0, False, False, self.status()

    def reset(self, seed=None, options=None):
        """Draw a fresh secret."""
        self.rng = random.Random(seed)
        level = 2
        if isinstance(options, dict):
            wanted = options.get("difficulty", 2)
            if isinstance(wanted, (int, float)) and not isinstance(wanted, bool):
                level = min(5, max(1, int(wanted)))
        self.level = level
        setting = SETTINGS[level]
        self.slots = setting["slots"]
        palette = list(ALL_HUES)
        self.rng.shuffle(palette)
        self.hues = "".join(sorted(palette[: setting["hues"]]))
        self.tries = setting["tries"]
        while True:
            earlier = "".join([self.rng.choice(self.hues) for _ in range(self.slots)])
            self.secret = "".join([self.rng.choice(self.hues) for _ in range(self.slots)])
            if earlier == self.secret:
                self.clues = []
            else:
                self.clues = [(earlier, grade(earlier, self.secret))]
            if self.clues and len(reference_attempts(self.secret, self.hues, self.slots, self.clues)) < self.tries:
                break
        self.log = list(self.clues)
        self.moves = 0
        self.finished = False
        return self.view("A fresh secret row is in place."), self.status()

    def hint(self):
        """General advice."""
        return ("Start with attempts made of a couple of colours in blocks, and afterwards only try "
                "rows that fit all clues received; contrast attempts that differ in one slot.")

    def solution(self):
        """Attempts that crack the secret."""
        return ["\\boxed{%s}" % row for row in reference_attempts(self.secret, self.hues, self.slots, self.clues)]

    def status(self):
        return {"turn": self.moves, "guesses": len(self.log), "limit": self.tries, "difficulty": self.level}

    def view(self, verdict):
        key = ", ".join([c + "=" + NAMES[c] for c in self.hues])
        out = [verdict, f"{self.tries - self.moves} attempts left (used {self.moves}).",
               f"Secret: {self.slots} pins, colours {key}; colours may repeat."]
        if self.log:
            out.append("Attempts so far (black = exact hit, white = colour present elsewhere; "
                       "the first came from an earlier player):")
            out.extend(f"  {row}: {b} black, {w} white" for row, (b, w) in self.log)
        sample = (self.hues * self.slots)[: self.slots]
        out.append("Reply like \\boxed{" + sample + "} with exactly " + str(self.slots) + " letters from " + self.hues + ".")
        return "\n".join(out)


def grade(attempt, secret):
    """Hits and near misses of an attempt."""
    hits = 0
    for a, s in zip(attempt, secret):
        if a == s:
            hits += 1
    shared = 0
    for colour in set(secret):
        shared += min(attempt.count(colour), secret.count(colour))
    return hits, shared - hits


def reference_attempts(secret, hues, slots, clues):
    """Play 'always guess a row consistent with every clue' and return the attempts."""
    pool = ["".join(p) for p in itertools.product(hues, repeat=slots)]
    for row, clue in clues:
        pool = [c for c in pool if grade(row, c) == clue]
    first = (hues[0] * ((slots + 1) // 2) + hues[1] * slots)[:slots]
    current = first if first in pool else pool[0]
    attempts = []
    while True:
        attempts.append(current)
        clue = grade(current, secret)
        if clue[0] == slots:
            return attempts
        pool = [c for c in pool if grade(current, c) == clue]
        current = pool[0]
