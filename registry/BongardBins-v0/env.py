"""BongardBins: learn a hidden acceptance concept from labelled tokens while sorting new ones."""

import random

from spadegym.program import extract_boxed, read_difficulty

COLORS = ["red", "green", "blue", "yellow"]
SHAPES = ["circle", "square", "triangle", "star"]
SIZES = ["small", "large"]


def random_atom(rng, kinds):
    """One elementary test on a token."""
    kind = rng.choice(kinds)
    if kind == "color":
        return ("color", rng.randrange(4))
    if kind == "shape":
        return ("shape", rng.randrange(4))
    if kind == "size":
        return ("size", rng.randrange(2))
    if kind == "atleast":
        return ("atleast", rng.randint(3, 7))
    return ("even", 0)


def holds(atom, token):
    """Whether a token (color, shape, size, number) passes an elementary test."""
    kind, value = atom
    color, shape, size, number = token
    if kind == "color":
        return color == value
    if kind == "shape":
        return shape == value
    if kind == "size":
        return size == value
    if kind == "atleast":
        return number >= value
    return number % 2 == 0


class BongardBinsEnv:
    """Bongard Bins: sort tokens into ACCEPT and REJECT by a hidden concept.

    Each token has a colour, a shape, a size and a printed number. A hidden concept (one
    feature test, or two tests joined by AND, OR or XOR at higher difficulty) decides whether
    a token is accepted. Labelled examples are shown; each turn a new token arrives and you
    sort it. After each answer the true label is shown and the token joins the examples.
    Reach the required number of correct sorts before you make too many mistakes.
    Action: \\boxed{accept} or \\boxed{reject} for the current token."""

    max_turns = 22
    skill = "Pattern_Recognition"

    def reset(self, seed=None, options=None):
        """Draw a hidden concept, the labelled examples and the stream of tokens."""
        self.rng = random.Random(seed)
        self.difficulty = read_difficulty(options, default=2)
        d = self.difficulty
        kinds = (
            ["color", "shape", "size"] if d == 1 else ["color", "shape", "atleast", "even", "size"]
        )
        first = random_atom(self.rng, kinds)
        if d <= 2:
            self.concept = ("one", first, first)
        else:
            second = random_atom(self.rng, kinds)
            while second[0] == first[0]:
                second = random_atom(self.rng, kinds)
            joins = {3: ["and", "or"], 4: ["and", "or"], 5: ["or", "xor", "and"]}[d]
            self.concept = (self.rng.choice(joins), first, second)
        self.need = 10 + d
        self.allowed = 2 + (d + 1) // 2
        shown = 6 + 2 * d
        tokens = [self.balanced_token() for k in range(shown + self.max_turns + 1)]
        self.examples = tokens[:shown]
        self.stream = tokens[shown:]
        self.index = 0
        self.correct = 0
        self.wrong = 0
        self.turn = 0
        self.done = False
        return self.render("A new concept. Study the labelled tokens."), self.info()

    def accepts(self, token):
        """Whether the hidden concept accepts a token."""
        join, a, b = self.concept
        if join == "one":
            return holds(a, token)
        if join == "and":
            return holds(a, token) and holds(b, token)
        if join == "or":
            return holds(a, token) or holds(b, token)
        return holds(a, token) != holds(b, token)

    def balanced_token(self):
        """A random token, with ACCEPT and REJECT equally likely, so no fixed answer pays."""
        want = self.rng.random() < 0.5
        token = None
        for k in range(400):  # noqa: B007 (no leading-underscore names allowed)
            token = (
                self.rng.randrange(4),
                self.rng.randrange(4),
                self.rng.randrange(2),
                self.rng.randint(1, 9),
            )
            if self.accepts(token) == want:
                return token
        return token

    def info(self):
        """Small JSON info for logs."""
        return {"turn": self.turn, "correct": self.correct, "wrong": self.wrong}

    def describe(self, token):
        """A token in words."""
        color, shape, size, number = token
        return f"{SIZES[size]} {COLORS[color]} {SHAPES[shape]} #{number}"

    def render(self, message):
        """The observation: progress, last result, state and actions."""
        lines = []
        for token in self.examples[-24:]:
            label = "ACCEPT" if self.accepts(token) else "REJECT"
            lines.append(f"  {label}: {self.describe(token)}")
        return (
            f"Turn {self.turn} of {self.max_turns}. Correct {self.correct} of {self.need} needed; "
            f"mistakes {self.wrong} of {self.allowed} allowed.\n{message}\n\n"
            f"Labelled tokens (latest last):\n" + "\n".join(lines) + "\n\n"
            f"Current token: {self.describe(self.stream[self.index])}\n"
            "Action: \\boxed{accept} or \\boxed{reject}."
        )

    def step(self, action):
        """Sort the current token; its true label is then revealed."""
        if self.done:
            return "The episode is over.", 0.0, True, False, self.info()
        self.turn += 1
        text = extract_boxed(action) if isinstance(action, str) else None
        word = text.strip().lower() if text else ""
        reward, terminated = 0.0, False
        if word not in ("accept", "reject"):
            message = "Invalid action: write \\boxed{accept} or \\boxed{reject}. Turn lost."
        else:
            token = self.stream[self.index]
            truth = self.accepts(token)
            self.examples.append(token)
            self.index += 1
            label = "ACCEPT" if truth else "REJECT"
            if (word == "accept") == truth:
                self.correct += 1
                message = f"Right: {self.describe(token)} is {label}."
                if self.correct >= self.need:
                    message += " You win!"
                    reward, terminated = 1.0, True
            else:
                self.wrong += 1
                message = f"Wrong: {self.describe(token)} is {label}."
                if self.wrong >= self.allowed:
                    message += " Too many mistakes. You lose."
                    terminated = True
        self.done = terminated
        truncated = not terminated and self.turn >= self.max_turns
        if truncated:
            message += " Out of turns."
            self.done = True
        return self.render(message), reward, terminated, truncated, self.info()

    def solution(self):
        """Label each upcoming token with the hidden concept."""
        upcoming = self.stream[self.index : self.index + self.need - self.correct]
        return ["\\boxed{accept}" if self.accepts(t) else "\\boxed{reject}" for t in upcoming]

    def hint(self):
        """A nudge toward the method."""
        return (
            "For each feature, compare how its values split between the two labels; if no "
            "single feature explains every label, look for two tests combined by and, or, or "
            "exclusive or."
        )
