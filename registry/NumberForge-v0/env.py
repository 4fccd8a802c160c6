"""NumberForge: combine numbers pairwise with arithmetic to forge a target (Mathematical_Reasoning)."""

import random

from spadegym.program import extract_boxed, read_difficulty

POOL_SIZE = {1: 3, 2: 4, 3: 4, 4: 5, 5: 6}
BIG_COUNT = {1: 0, 2: 0, 3: 1, 4: 1, 5: 2}
BIG_NUMBERS = [12, 15, 20, 25, 50, 75, 100]
SLACK = 3
OPS = ["+", "-", "*", "/"]


def combine(a, op, b):
    """``a op b`` when it stays a positive integer, else None."""
    if op == "+":
        return a + b
    if op == "*":
        return a * b
    if op == "-":
        return a - b if a > b else None
    if op == "/":
        return a // b if b > 1 and a % b == 0 else None
    return None


def one_step_values(pool):
    """Every value reachable from ``pool`` with a single operation."""
    out = set()
    for i in range(len(pool)):
        for j in range(len(pool)):
            if i != j:
                for op in OPS:
                    v = combine(pool[i], op, pool[j])
                    if v is not None:
                        out.add(v)
    return out


class NumberForgeEnv:
    """Number Forge: combine numbers two at a time with + - * / until the target appears.

    You hold a pool of positive integers. Each turn pick two numbers from the pool and an
    operation; both are removed and the result is added. Subtraction must stay positive and
    division must be exact. You win as soon as the target number is in the pool, within the
    turn limit. Answer like \\boxed{25 * 4} (or \\boxed{undo} to take back your last operation).
    """

    max_turns = 9
    skill = "Mathematical_Reasoning"

    def reset(self, seed=None, options=None):
        """Build a new pool and target from ``seed`` and the difficulty in ``options``."""
        self.rng = random.Random(seed)
        self.difficulty = read_difficulty(options, default=2)
        size = POOL_SIZE[self.difficulty]
        while True:
            pool = [self.rng.randint(1, 10) for i in range(size)]
            for k in range(BIG_COUNT[self.difficulty]):
                pool[k] = self.rng.choice(BIG_NUMBERS)
            self.rng.shuffle(pool)
            work = list(pool)
            recipe = []
            ok = True
            while len(work) > 1 and ok:
                i, j = self.rng.sample(range(len(work)), 2)
                a, b = work[i], work[j]
                choices = [op for op in OPS if combine(a, op, b) is not None
                           and not (op in "*/" and 1 in (a, b))]
                if not choices:
                    ok = False
                    break
                op = self.rng.choice(choices)
                value = combine(a, op, b)
                recipe.append((a, op, b))
                work = [x for k, x in enumerate(work) if k not in (i, j)] + [value]
            target = work[0] if ok else 0
            if (ok and 10 < target <= 999 and target not in pool
                    and target not in one_step_values(pool)):
                break
        self.initial = list(pool)
        self.recipe = recipe
        self.target = target
        self.limit = len(recipe) + SLACK
        self.pool = list(pool)
        self.history = []
        self.turn = 0
        self.done = False
        return self.render("A fresh pool."), self.info()

    def info(self):
        """A small JSON-able summary of the state."""
        return {"turn": self.turn, "pool": list(self.pool), "target": self.target,
                "limit": self.limit, "difficulty": self.difficulty}

    def render(self, result):
        """The observation text: result, state, actions and progress."""
        return "\n".join([
            f"Turn {self.turn} of {self.limit}.",
            result,
            f"Pool: {' '.join(str(x) for x in self.pool)}",
            f"Target: {self.target}",
            "Action: \\boxed{a op b} with a and b in the pool and op one of + - * / "
            "(a - b > 0, a / b exact), or \\boxed{undo}.",
        ])

    def parse(self, box):
        """(a, op, b) from the boxed text, or an error string."""
        text = box.replace("×", "*").replace("x", "*").replace("÷", "/").replace("−", "-")
        for op in OPS:
            parts = text.split(op)
            if len(parts) == 2:
                left, right = parts[0].strip(), parts[1].strip()
                if left.isdigit() and right.isdigit() and len(left) < 7 and len(right) < 7:
                    return int(left), op, int(right)
        return f"'{box[:40]}' is not of the form a op b with whole numbers, e.g. 7 * 3."

    def step(self, action):
        """Apply one operation (or undo)."""
        if self.done:
            return "The episode is over; call reset() to play again.", 0.0, True, False, self.info()
        self.turn += 1
        box = extract_boxed(action)
        if box is None:
            result = "No \\boxed{...} answer found; the pool is unchanged."
        elif box.strip().lower() == "undo":
            if self.history:
                self.pool = self.history.pop()
                result = "Undone: the pool is back to how it was."
            else:
                result = "Nothing to undo."
        else:
            parsed = self.parse(box)
            if isinstance(parsed, str):
                result = parsed + " The pool is unchanged."
            else:
                a, op, b = parsed
                rest = list(self.pool)
                missing = False
                for x in (a, b):
                    if x in rest:
                        rest.remove(x)
                    else:
                        missing = True
                value = combine(a, op, b)
                if missing:
                    result = f"{a} and {b} are not both in the pool; use numbers you hold."
                elif value is None:
                    result = f"{a} {op} {b} is not allowed: results must be positive whole numbers (no dividing by 1)."
                else:
                    self.history.append(list(self.pool))
                    self.pool = rest + [value]
                    result = f"{a} {op} {b} = {value}."
                    if self.target in self.pool:
                        self.done = True
                        return self.render(result + " Target forged. Solved!"), 1.0, True, False, self.info()
        if self.turn >= self.limit:
            self.done = True
            return self.render(result + " Out of turns."), 0.0, True, False, self.info()
        return self.render(result), 0.0, False, False, self.info()

    def solution(self):
        """The operations that built the target when the instance was generated."""
        return ["\\boxed{" + f"{a} {op} {b}" + "}" for a, op, b in self.recipe]

    def hint(self):
        """A nudge about the approach."""
        return ("Look at the target's factors and its distance from products of pool numbers; "
                "aim for an intermediate value that one final operation turns into the target, "
                "and keep every number in play.")
