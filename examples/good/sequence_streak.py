import random
import re

from spadegym.program import extract_boxed, read_difficulty

INTEGER = re.compile(r"-?[0-9]{1,15}")
STREAK_TO_WIN = 3
HINTS = {
    "arithmetic": "The gap between neighbouring terms never changes.",
    "quadratic": "The gaps between neighbouring terms change, but the way they change does not.",
    "affine": "Compare each term with a fixed multiple of the term before it.",
    "fibonacci": "Each term depends on the two terms just before it.",
    "interleaved": "Terms in odd and even positions follow two separate patterns.",
}


class SequenceStreakEnv:
    """Sequence streak: predict the next terms of an integer sequence.

    A hidden integer rule makes a sequence; you see its first terms. Predict the next term
    with \\boxed{N}. A right prediction extends your streak; a wrong one reveals the true term
    and resets the streak. Three right predictions in a row win.
    """

    max_turns = 8
    skill = "Pattern_Recognition"

    def reset(self, seed=None, options=None):
        self.rng = random.Random(seed)
        difficulty = read_difficulty(options, default=1)
        self.family = self.rng.choice(list(HINTS)[:difficulty])
        self.terms = self.generate(self.family, 6 + self.max_turns)
        self.shown = 6
        self.streak = 0
        return self.describe("A new sequence."), {"shown": self.shown}

    def generate(self, family, count):
        rng = self.rng
        if family == "arithmetic":
            start, gap = rng.randint(-20, 20), rng.choice([-1, 1]) * rng.randint(2, 12)
            return [start + gap * n for n in range(count)]
        if family == "quadratic":
            a, b, c = rng.randint(1, 4), rng.randint(-6, 6), rng.randint(-10, 10)
            return [a * n * n + b * n + c for n in range(count)]
        if family == "affine":
            factor, shift = rng.choice([-2, 2, 3]), rng.randint(-5, 5)
            terms = [rng.randint(1, 6)]
        elif family == "fibonacci":
            shift = rng.randint(-3, 3)
            terms = [rng.randint(-5, 9), rng.randint(1, 9)]
        else:
            first, second = rng.randint(-10, 10), rng.randint(-10, 10)
            gaps = [rng.randint(2, 7), -rng.randint(1, 7)]
            return [
                (first if n % 2 == 0 else second) + gaps[n % 2] * (n // 2) for n in range(count)
            ]
        while len(terms) < count:
            if family == "affine":
                terms.append(factor * terms[-1] + shift)
            else:
                terms.append(terms[-1] + terms[-2] + shift)
        return terms

    def describe(self, lead):
        shown = ", ".join(str(t) for t in self.terms[: self.shown])
        return (
            f"{lead}\nSequence so far: {shown}, ...\nPredict term {self.shown + 1} with "
            f"\\boxed{{N}} (a whole number, may be negative). Streak: {self.streak} of "
            f"{STREAK_TO_WIN}. A wrong prediction reveals the true term and resets the streak."
        )

    def step(self, action):
        boxed = extract_boxed(action)
        guess = None if boxed is None else boxed.replace(" ", "")
        info = {"shown": self.shown}
        if guess is None or not INTEGER.fullmatch(guess):
            lead = "No prediction read: put one whole number in \\boxed{}."
            return self.describe(lead), 0.0, False, False, info
        if self.shown >= len(self.terms):  # only past max_turns, where spadegym stops anyway
            return "The sequence has run out. Game over.", 0.0, True, False, info
        truth = self.terms[self.shown]
        self.shown += 1
        info = {"shown": self.shown}
        if int(guess) == truth:
            self.streak += 1
            if self.streak >= STREAK_TO_WIN:
                return f"Right: {truth}. Three in a row, you win!", 1.0, True, False, info
            return self.describe(f"Right: term {self.shown} is {truth}."), 0.0, False, False, info
        self.streak = 0
        lead = f"Wrong: term {self.shown} is {truth}, not {guess}."
        return self.describe(lead), 0.0, False, False, info

    def solution(self):
        return [f"\\boxed{{{t}}}" for t in self.terms[6 : 6 + STREAK_TO_WIN]]

    def hint(self):
        return HINTS[self.family]
