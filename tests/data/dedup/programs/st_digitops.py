"""Put + and * between fixed digits to hit a target value."""

import random

from spadegym.program import extract_boxed


def level_of(options, default):
    """The difficulty 1..5 in ``options``, else ``default``."""
    value = options.get("difficulty", default) if isinstance(options, dict) else default
    if isinstance(value, bool) or not isinstance(value, int):
        return default
    return min(5, max(1, value))


def evaluate(digits, ops):
    """Value of digits joined by ops, * before +."""
    total, term = 0, digits[0]
    for op, d in zip(ops, digits[1:]):
        if op == "*":
            term *= d
        else:
            total += term
            term = d
    return total + term


class DigitOperatorsEnv:
    """Digit Operators: insert + or * between the digits, in order, to reach the target.

    The digits stay in the order shown; between each neighbouring pair put + or *. Usual
    precedence: * before +. Answer the full expression, e.g. \\boxed{3*4+2+5}. Three tries.
    """

    max_turns = 3
    skill = "Mathematical_Reasoning"

    def reset(self, seed=None, options=None):
        self.rng = random.Random(seed)
        level = level_of(options, 2)
        self.digits = [self.rng.randint(1, 9) for _ in range(4 + level)]
        self.ops = [self.rng.choice("+*") for _ in range(len(self.digits) - 1)]
        self.target = evaluate(self.digits, self.ops)
        self.tries = 0
        return self.render("New digits."), {"tries": 0}

    def render(self, note):
        return (f"{note}\nDigits: {' '.join(map(str, self.digits))}\nTarget: {self.target}\n"
                f"Answer the expression. Tries used {self.tries} of 3.")

    def step(self, action):
        self.tries += 1
        text = (extract_boxed(action) or "").replace(" ", "")
        ops = [ch for ch in text if ch in "+*"]
        digits = [int(ch) for ch in text if ch in "0123456789"]
        ok = (digits == self.digits and len(ops) == len(digits) - 1
              and len(text) == len(ops) + len(digits) and evaluate(digits, ops) == self.target)
        if ok:
            return "Target hit. You win!", 1.0, True, False, {"tries": self.tries}
        if self.tries >= 3:
            return "Out of tries.", 0.0, True, False, {"tries": self.tries}
        return self.render("Not the target."), 0.0, False, False, {"tries": self.tries}

    def solution(self):
        text = str(self.digits[0])
        for op, d in zip(self.ops, self.digits[1:]):
            text += op + str(d)
        return ["\\boxed{" + text + "}"]
