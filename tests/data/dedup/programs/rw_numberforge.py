"""Build a goal value out of a handful of integers, one operation at a time."""

import random

from spadegym.program import extract_boxed

SIGNS = ["+", "-", "*", "/"]
LARGE = [12, 15, 20, 25, 50, 75, 100]


def apply(x, sign, y):
    """The result of x sign y when it is a positive whole number, otherwise None."""
    if sign == "+":
        return x + y
    if sign == "-":
        return None if x <= y else x - y
    if sign == "*":
        return x * y
    if sign == "/":
        if y > 1 and x % y == 0:
            return x // y
        return None
    return None


class IntegerSmithEnv:
    """Integer Smith: merge two numbers at a time with + - * / until the goal shows up.

    You start with a handful of positive integers. A turn takes two of them and an operator;
    both disappear and the result joins the handful. Differences must be positive and
    quotients exact. The moment the goal value is among your numbers you win, provided the
    turns have not run out. Reply like \\boxed{25 * 4}, or \\boxed{undo} to reverse the
    previous operation.
    """

    skill = "Mathematical_Reasoning"
    max_turns = 9

    def solution(self):
        """Replay the generating recipe."""
        return ["\\boxed{" + str(x) + " " + s + " " + str(y) + "}" for x, s, y in self.steps]

    def hint(self):
        """Approach."""
        return ("Consider how the goal factors and how far it sits from products of your numbers; "
                "head for a value one last operation converts into the goal, and use every number.")

    def reset(self, seed=None, options=None):
        """Draw numbers and a goal reachable from them."""
        self.rng = random.Random(seed)
        level = 2
        if isinstance(options, dict):
            raw = options.get("difficulty", 2)
            if isinstance(raw, (int, float)) and not isinstance(raw, bool):
                level = max(1, min(5, int(raw)))
        self.level = level
        count = [3, 4, 4, 5, 6][level - 1]
        bigs = [0, 0, 1, 1, 2][level - 1]
        found = False
        while not found:
            start = [self.rng.randint(1, 10) for i in range(count)]
            for k in range(bigs):
                start[k] = self.rng.choice(LARGE)
            self.rng.shuffle(start)
            live = start[:]
            steps = []
            failed = False
            while len(live) > 1:
                i, j = self.rng.sample(range(len(live)), 2)
                x, y = live[i], live[j]
                usable = []
                for s in SIGNS:
                    if apply(x, s, y) is None:
                        continue
                    if s in "*/" and (x == 1 or y == 1):
                        continue
                    usable.append(s)
                if not usable:
                    failed = True
                    break
                s = self.rng.choice(usable)
                steps.append((x, s, y))
                live = [v for k, v in enumerate(live) if k != i and k != j]
                live.append(apply(x, s, y))
            if failed:
                continue
            goal = live[0]
            quick = set()
            for a in range(len(start)):
                for b in range(len(start)):
                    if a == b:
                        continue
                    for s in SIGNS:
                        v = apply(start[a], s, start[b])
                        if v is not None:
                            quick.add(v)
            found = 10 < goal <= 999 and goal not in start and goal not in quick
        self.steps = steps
        self.goal = goal
        self.hand = start[:]
        self.undo_stack = []
        self.cap = len(steps) + 3
        self.t = 0
        self.over = False
        return self.show("A new handful of numbers."), self.meta()

    def meta(self):
        return {"turn": self.t, "pool": self.hand[:], "target": self.goal, "limit": self.cap,
                "difficulty": self.level}

    def show(self, note):
        return (f"{note}\nTurns used {self.t} of {self.cap}.\n"
                f"Numbers: {' '.join(map(str, self.hand))}\nGoal: {self.goal}\n"
                "Reply \\boxed{a op b} using two of your numbers and one of + - * / "
                "(a - b must be positive, a / b exact), or \\boxed{undo}.")

    def step(self, action):
        """Carry out one operation, or undo."""
        if self.over:
            return "Game over; reset to play again.", 0.0, True, False, self.meta()
        self.t += 1
        box = extract_boxed(action)
        if box is None:
            note = "No \\boxed{...} reply; your numbers stay as they were."
        elif box.strip().lower() == "undo":
            if not self.undo_stack:
                note = "There is nothing to undo."
            else:
                self.hand = self.undo_stack.pop()
                note = "Reversed: your numbers are as before."
        else:
            expr = box.replace("×", "*").replace("x", "*").replace("÷", "/").replace("−", "-")
            parsed = None
            for s in SIGNS:
                sides = expr.split(s)
                if len(sides) != 2:
                    continue
                left, right = sides[0].strip(), sides[1].strip()
                if left.isdigit() and right.isdigit() and len(left) < 7 and len(right) < 7:
                    parsed = (int(left), s, int(right))
                    break
            if parsed is None:
                note = f"'{box[:40]}' does not look like a op b with whole numbers, e.g. 7 * 3. Numbers unchanged."
            else:
                x, s, y = parsed
                left_over = self.hand[:]
                absent = False
                for v in (x, y):
                    if v in left_over:
                        left_over.remove(v)
                    else:
                        absent = True
                value = apply(x, s, y)
                if absent:
                    note = f"You do not hold both {x} and {y}; use your own numbers."
                elif value is None:
                    note = f"{x} {s} {y} is forbidden: results must be positive whole numbers (no dividing by 1)."
                else:
                    self.undo_stack.append(self.hand[:])
                    self.hand = left_over + [value]
                    note = f"{x} {s} {y} = {value}."
                    if self.goal in self.hand:
                        self.over = True
                        return self.show(note + " The goal is forged. Well done!"), 1.0, True, False, self.meta()
        if self.t >= self.cap:
            self.over = True
            return self.show(note + " No turns remain."), 0.0, True, False, self.meta()
        return self.show(note), 0.0, False, False, self.meta()
