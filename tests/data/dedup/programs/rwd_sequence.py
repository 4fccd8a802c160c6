"""Guess the law behind a number sequence by asking for terms."""

import random

from spadegym.program import extract_boxed

FAMILIES = {
    1: ["arithmetic", "quadratic"],
    2: ["quadratic", "interleaved", "recurrence", "arithmetic"],
    3: ["interleaved", "recurrence", "cycle", "affine"],
    4: ["cycle", "affine", "digits", "recurrence"],
    5: ["cycle", "digits", "interleaved", "affine"],
}


class HiddenLawEnv:
    """Hidden Law: work out a secret integer sequence and forecast distant terms.

    A secret law produces a(1), a(2), a(3), ... and the first few terms are on display. You
    may ask for the term at any other position, and you must forecast the term at each listed
    goal position. One wrong forecast ends the game; getting all goals right wins.
    Replies (one per turn, boxed): \\boxed{query N} shows a(N) for a position N that is not a
    goal, from 1 up to the query limit; \\boxed{predict N V} forecasts a(N) = V for a goal N."""

    skill = "Pattern_Recognition"
    max_turns = 12

    def generate(self, family, count):
        rng = self.rng
        seq = []
        if family == "arithmetic":
            start = rng.randint(-20, 30)
            step = rng.choice([-9, -7, -5, -4, -3, 3, 4, 5, 6, 7, 8, 9, 11])
            for n in range(count):
                seq.append(start + step * n)
        elif family == "quadratic":
            a, b, c = rng.randint(1, 3), rng.randint(-6, 6), rng.randint(-10, 10)
            seq = [a * n ** 2 + b * n + c for n in range(1, count + 1)]
        elif family == "interleaved":
            odd_start, odd_step = rng.randint(1, 20), rng.choice([2, 3, 4, 5, 7])
            even_start, even_step = rng.randint(30, 60), rng.choice([-3, -2, -1, 6, 9])
            for n in range(1, count + 1):
                k = (n - 1) // 2
                if n % 2:
                    seq.append(odd_start + odd_step * k)
                else:
                    seq.append(even_start + even_step * k)
        elif family == "recurrence":
            p, q = rng.choice([(1, 1), (2, -1), (1, 2), (2, 1), (3, -2)])
            seq = [rng.randint(1, 5), rng.randint(2, 9)]
            while len(seq) < count:
                seq.append(p * seq[-1] + q * seq[-2])
        elif family == "cycle":
            period = rng.choice([3, 4])
            jumps = [rng.randint(-6, 12) for k in range(period)]
            while len(set(jumps)) == 1:
                jumps = [rng.randint(-6, 12) for k in range(period)]
            seq = [rng.randint(0, 20)]
            while len(seq) < count:
                seq.append(seq[-1] + jumps[len(seq) % period])
        elif family == "affine":
            ratio, shift = rng.choice([2, 3]), rng.randint(-4, 5)
            seq = [rng.randint(1, 4)]
            while len(seq) < count:
                seq.append(seq[-1] * ratio + shift)
        else:
            seq = [rng.randint(10, 99)]
            while len(seq) < count:
                last = seq[-1]
                seq.append(last + sum([int(d) for d in str(abs(last))]))
        return seq[:count]

    def reset(self, seed=None, options=None):
        """Pick a secret law."""
        self.rng = random.Random(seed)
        level = 2
        if isinstance(options, dict) and isinstance(options.get("difficulty", 2), int):
            level = max(1, min(5, options.get("difficulty", 2)))
        self.level = level
        self.family = self.rng.choice(FAMILIES[level])
        fast = self.family == "recurrence" or self.family == "affine"
        self.top = 14 if fast else 30
        goals = 2 if level <= 2 else 3
        self.goals = sorted(self.rng.sample(range(9 if fast else 12, self.top + 1), goals))
        self.seq = self.generate(self.family, self.top)
        visible = 5 if level <= 3 else 4
        self.revealed = {}
        for n in range(1, visible + 1):
            self.revealed[n] = self.seq[n - 1]
        self.forecast = {}
        self.t = 0
        self.over = False
        return self.display("A fresh sequence. Examine the visible terms."), self.meta()

    def meta(self):
        return {"turn": self.t, "difficulty": self.level, "predicted": len(self.forecast)}

    def display(self, note):
        seen = ", ".join([f"a({n})={v}" for n, v in sorted(self.revealed.items())])
        pending = ", ".join([f"a({n})" for n in self.goals if n not in self.forecast])
        right = ", ".join([f"a({n})={v}" for n, v in sorted(self.forecast.items())])
        return (f"{note}\n{self.max_turns - self.t} turn(s) left.\n\n"
                f"Visible terms: {seen}\nGoals still open: {pending}\n"
                f"Correct forecasts: {right or 'none'}\n"
                f"Positions you may query: 1..{self.top}, goals excluded.\n\n"
                "Replies: \\boxed{query N} reveals a(N); \\boxed{predict N V} forecasts a(N)=V. "
                "A single wrong forecast ends the game.")

    def step(self, action):
        """Answer a query or judge a forecast."""
        if self.over:
            return "Game over.", 0.0, True, False, self.meta()
        self.t += 1
        content = extract_boxed(action) if isinstance(action, str) else None
        tokens = content.lower().replace("=", " ").replace(",", " ").split() if content else []
        nums = [int(t) for t in tokens[1:] if t.lstrip("-").isdigit() and len(t) < 30]
        reward = 0.0
        ended = False
        head = tokens[0] if tokens else None
        if head is None:
            note = "No reply found. Write \\boxed{query N} or \\boxed{predict N V}."
        elif head == "predict" and len(tokens) == 3 and len(nums) == 2:
            n, v = nums
            if n not in self.goals:
                note = f"a({n}) is not a goal; goals are {self.goals}."
            elif n in self.forecast:
                note = f"a({n}) already has a forecast."
            elif v == self.seq[n - 1]:
                self.forecast[n] = v
                note = f"Right: a({n}) = {v}."
                if len(self.forecast) == len(self.goals):
                    note += " Every goal forecast. Victory!"
                    reward = 1.0
                    ended = True
            else:
                note = f"Wrong: a({n}) is not {v}. The game ends in defeat."
                ended = True
        elif head == "query" and len(tokens) == 2 and len(nums) == 1:
            n = nums[0]
            if n in self.goals:
                note = f"a({n}) is a goal and cannot be queried; forecast it."
            elif 1 <= n <= self.top:
                self.revealed[n] = self.seq[n - 1]
                note = f"a({n}) = {self.seq[n - 1]}."
            else:
                note = f"Position {n} lies outside 1..{self.top}; choose another."
        else:
            note = (f"Unreadable '{(content or '')[:60]}'. Use \\boxed{{query N}} or "
                    "\\boxed{predict N V} with whole numbers.")
        self.over = ended
        cut = not ended and self.t >= self.max_turns
        if cut:
            note += " No turns remain."
            self.over = True
        return self.display(note), reward, ended, cut, self.meta()

    def solution(self):
        """Three early queries, then every forecast."""
        replies = []
        n = max(self.revealed) + 1
        while n <= self.top and len(replies) < 3:
            if n not in self.goals:
                replies.append("\\boxed{query %d}" % n)
            n += 1
        for goal in self.goals:
            replies.append("\\boxed{predict %d %d}" % (goal, self.seq[goal - 1]))
        return replies

    def hint(self):
        """Method only."""
        return ("Check the gaps between neighbouring terms and treat odd and even positions "
                "separately; ask for a few more early terms to confirm the law before jumping ahead.")
