"""SequenceOracle: discover a hidden integer-sequence rule by probing terms, then forecast."""

import random

from spadegym.program import extract_boxed, read_difficulty


def digit_sum(n):
    """Sum of the decimal digits of |n|."""
    return sum(int(c) for c in str(abs(n)))


def build_sequence(rng, family, length):
    """Return the first `length` terms (a(1)..a(length)) of a sequence from `family`."""
    terms = []
    if family == "arithmetic":
        a, b = rng.randint(-20, 30), rng.choice([-9, -7, -5, -4, -3, 3, 4, 5, 6, 7, 8, 9, 11])
        terms = [a + b * (n - 1) for n in range(1, length + 1)]
    elif family == "quadratic":
        c2, c1, c0 = rng.randint(1, 3), rng.randint(-6, 6), rng.randint(-10, 10)
        terms = [c2 * n * n + c1 * n + c0 for n in range(1, length + 1)]
    elif family == "interleaved":
        a1, b1 = rng.randint(1, 20), rng.choice([2, 3, 4, 5, 7])
        a2, b2 = rng.randint(30, 60), rng.choice([-3, -2, -1, 6, 9])
        for n in range(1, length + 1):
            k = (n - 1) // 2
            terms.append(a1 + b1 * k if n % 2 == 1 else a2 + b2 * k)
    elif family == "recurrence":
        p, q = rng.choice([(1, 1), (2, -1), (1, 2), (2, 1), (3, -2)])
        x, y = rng.randint(1, 5), rng.randint(2, 9)
        terms = [x, y]
        while len(terms) < length:
            terms.append(p * terms[-1] + q * terms[-2])
    elif family == "cycle":
        period = rng.choice([3, 4])
        incs = [rng.randint(-6, 12) for k in range(period)]
        while len(set(incs)) < 2:
            incs = [rng.randint(-6, 12) for k in range(period)]
        terms = [rng.randint(0, 20)]
        while len(terms) < length:
            terms.append(terms[-1] + incs[len(terms) % period])
    elif family == "affine":
        r, c = rng.choice([2, 3]), rng.randint(-4, 5)
        terms = [rng.randint(1, 4)]
        while len(terms) < length:
            terms.append(r * terms[-1] + c)
    else:  # digit sum walk
        terms = [rng.randint(10, 99)]
        while len(terms) < length:
            terms.append(terms[-1] + digit_sum(terms[-1]))
    return terms[:length]


class SequenceOracleEnv:
    """Sequence Oracle: forecast a hidden integer sequence.

    A hidden rule generates a(1), a(2), a(3), ... Some early terms are shown. You may query
    any other index to see its term, then you must forecast every target index listed. A
    wrong forecast ends the game; forecasting all targets correctly wins.
    Actions (one per turn, in \\boxed{}): \\boxed{query N} reveals a(N) for a non-target index
    N from 1 to the query limit; \\boxed{predict N V} forecasts a(N) = V for a target index N."""

    max_turns = 12
    skill = "Pattern_Recognition"

    def reset(self, seed=None, options=None):
        """Build a new hidden sequence from the seed and difficulty."""
        self.rng = random.Random(seed)
        self.difficulty = read_difficulty(options, default=2)
        pools = {
            1: ["arithmetic", "quadratic"],
            2: ["quadratic", "interleaved", "recurrence", "arithmetic"],
            3: ["interleaved", "recurrence", "cycle", "affine"],
            4: ["cycle", "affine", "digits", "recurrence"],
            5: ["cycle", "digits", "interleaved", "affine"],
        }
        self.family = self.rng.choice(pools[self.difficulty])
        growth = self.family in ("recurrence", "affine")
        self.limit = 14 if growth else 30
        self.terms = build_sequence(self.rng, self.family, self.limit)
        shown = 5 if self.difficulty <= 3 else 4
        self.known = {n: self.terms[n - 1] for n in range(1, shown + 1)}
        count = 2 if self.difficulty <= 2 else 3
        low = 9 if growth else 12
        self.targets = sorted(self.rng.sample(range(low, self.limit + 1), count))
        self.predicted = {}
        self.turn = 0
        self.done = False
        return self.render("A new sequence. Study the known terms."), self.info()

    def info(self):
        """Small JSON info for logs."""
        return {"turn": self.turn, "difficulty": self.difficulty, "predicted": len(self.predicted)}

    def render(self, message):
        """The observation: progress, last result, state and actions."""
        known = ", ".join(f"a({n})={v}" for n, v in sorted(self.known.items()))
        open_targets = [n for n in self.targets if n not in self.predicted]
        done = ", ".join(f"a({n})={v}" for n, v in sorted(self.predicted.items())) or "none"
        return (
            f"Turn {self.turn} of {self.max_turns}.\n{message}\n\n"
            f"Known terms: {known}\n"
            f"Targets still to forecast: {', '.join(f'a({n})' for n in open_targets)}\n"
            f"Forecast correctly so far: {done}\n"
            f"Queryable indices: 1..{self.limit}, except targets.\n\n"
            "Actions: \\boxed{query N} to reveal a(N); \\boxed{predict N V} to forecast a(N)=V. "
            "One wrong forecast ends the game."
        )

    def step(self, action):
        """Apply one query or forecast."""
        if self.done:
            return "The episode is over.", 0.0, True, False, self.info()
        self.turn += 1
        text = extract_boxed(action) if isinstance(action, str) else None
        words = text.lower().replace("=", " ").replace(",", " ").split() if text else []
        reward, terminated = 0.0, False
        numbers = []
        for w in words[1:]:
            if w.lstrip("-").isdigit() and len(w) < 30:
                numbers.append(int(w))
        if not words:
            message = "No action found. Write \\boxed{query N} or \\boxed{predict N V}."
        elif words[0] == "query" and len(numbers) == 1 and len(words) == 2:
            n = numbers[0]
            if n < 1 or n > self.limit:
                message = f"Index {n} is outside 1..{self.limit}; query another index."
            elif n in self.targets:
                message = f"a({n}) is a target and cannot be queried; forecast it instead."
            else:
                self.known[n] = self.terms[n - 1]
                message = f"Query result: a({n}) = {self.terms[n - 1]}."
        elif words[0] == "predict" and len(numbers) == 2 and len(words) == 3:
            n, v = numbers
            if n not in self.targets:
                message = f"a({n}) is not a target; targets are {self.targets}."
            elif n in self.predicted:
                message = f"a({n}) is already forecast."
            elif v != self.terms[n - 1]:
                message = f"Wrong: a({n}) is not {v}. The oracle closes; you lose."
                terminated = True
            else:
                self.predicted[n] = v
                message = f"Correct: a({n}) = {v}."
                if len(self.predicted) == len(self.targets):
                    message += " All targets forecast. You win!"
                    reward, terminated = 1.0, True
        else:
            message = (
                f"Could not read '{(text or '')[:60]}'. Use \\boxed{{query N}} or "
                "\\boxed{predict N V} with integers."
            )
        self.done = terminated
        truncated = not terminated and self.turn >= self.max_turns
        if truncated:
            message += " Out of turns."
            self.done = True
        return self.render(message), reward, terminated, truncated, self.info()

    def solution(self):
        """Query a few early terms the way a careful player would, then forecast each target."""
        moves = []
        n = max(self.known) + 1
        while len(moves) < 3 and n <= self.limit:
            if n not in self.targets:
                moves.append(f"\\boxed{{query {n}}}")
            n += 1
        for t in self.targets:
            moves.append(f"\\boxed{{predict {t} {self.terms[t - 1]}}}")
        return moves

    def hint(self):
        """A nudge toward the method."""
        return (
            "Look at differences between consecutive terms, and at odd and even positions "
            "separately; query a few more early terms to confirm the rule before extrapolating."
        )
