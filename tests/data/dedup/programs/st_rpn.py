"""Evaluate a reverse Polish expression."""

import random

from spadegym.program import extract_boxed


def level_of(options, default):
    """The difficulty 1..5 in ``options``, else ``default``."""
    value = options.get("difficulty", default) if isinstance(options, dict) else default
    if isinstance(value, bool) or not isinstance(value, int):
        return default
    return min(5, max(1, value))


class PostfixValueEnv:
    """Postfix Value: compute the value of an expression written in reverse Polish notation.

    Numbers are pushed; + - * pop two values (a then b from the top: a op b uses the deeper
    one first) and push the result. Answer the final value, e.g. \\boxed{-14}. Two tries.
    """

    max_turns = 2
    skill = "Program_Reasoning"

    def reset(self, seed=None, options=None):
        self.rng = random.Random(seed)
        level = level_of(options, 2)
        tokens = [str(self.rng.randint(1, 9))]
        depth = 1
        while len(tokens) < 5 + 2 * level or depth > 1:
            if depth >= 2 and (self.rng.random() < 0.5 or len(tokens) >= 5 + 2 * level):
                tokens.append(self.rng.choice("+-*"))
                depth -= 1
            else:
                tokens.append(str(self.rng.randint(1, 9)))
                depth += 1
        self.tokens = tokens
        stack = []
        for tok in tokens:
            if tok in "+-*":
                b, a = stack.pop(), stack.pop()
                stack.append(a + b if tok == "+" else a - b if tok == "-" else a * b)
            else:
                stack.append(int(tok))
        self.value = stack[0]
        self.tries = 0
        return self.render("An expression."), {"tries": 0}

    def render(self, note):
        return f"{note}\nExpression: {' '.join(self.tokens)}\nAnswer its value. Tries used {self.tries} of 2."

    def step(self, action):
        self.tries += 1
        said = (extract_boxed(action) or "").strip()
        if said == str(self.value):
            return "Correct. You win!", 1.0, True, False, {"tries": self.tries}
        if self.tries >= 2:
            return "Out of tries.", 0.0, True, False, {"tries": self.tries}
        return self.render("Not the value."), 0.0, False, False, {"tries": self.tries}

    def solution(self):
        return ["\\boxed{" + str(self.value) + "}"]
