"""CodePegBreaker: crack a hidden colour code from black/white peg feedback (Logical_Deduction)."""

import itertools
import random

from spadegym.program import extract_boxed, read_difficulty

PALETTE = "RGBYOPW"
COLOUR_NAMES = {"R": "red", "G": "green", "B": "blue", "Y": "yellow", "O": "orange", "P": "purple",
                "W": "white"}
SHAPE = {1: (3, 4), 2: (4, 5), 3: (4, 6), 4: (4, 7), 5: (5, 6)}
LIMIT = {1: 6, 2: 7, 3: 8, 4: 9, 5: 10}


def score(guess, code):
    """(black, white): right colour in the right place, right colour in the wrong place."""
    black = sum(1 for a, b in zip(guess, code) if a == b)
    common = sum(min(guess.count(c), code.count(c)) for c in set(code))
    return black, common - black


def consistent_play(code, colours, pegs, notes):
    """Guesses of the 'always play a code consistent with all feedback' strategy.

    ``notes`` are (guess, feedback) pairs the player is shown before the first turn.
    """
    candidates = ["".join(p) for p in itertools.product(colours, repeat=pegs)]
    for noted, feedback in notes:
        candidates = [c for c in candidates if score(noted, c) == feedback]
    # an opening with two colours in blocks splits the space well
    guess = (colours[0] * ((pegs + 1) // 2) + colours[1] * pegs)[:pegs]
    if guess not in candidates:
        guess = candidates[0]
    guesses = []
    while True:
        guesses.append(guess)
        feedback = score(guess, code)
        if feedback[0] == pegs:
            return guesses
        candidates = [c for c in candidates if score(guess, c) == feedback]
        guess = candidates[0]


class CodePegBreakerEnv:
    """Code Peg Breaker: deduce a hidden code of coloured pegs from black and white feedback.

    A hidden code is a row of coloured pegs (colours may repeat). After each guess you get
    black pegs (right colour in the right place) and white pegs (right colour, wrong place).
    Use the feedback to narrow the possibilities and find the code within the guess limit.
    Answer with one letter per peg, e.g. \\boxed{RGBY}.
    """

    max_turns = 10
    skill = "Logical_Deduction"

    def reset(self, seed=None, options=None):
        """Hide a new code from ``seed``; the difficulty in ``options`` sets length and colours."""
        self.rng = random.Random(seed)
        self.difficulty = read_difficulty(options, default=2)
        self.pegs, count = SHAPE[self.difficulty]
        self.colours = "".join(sorted(self.rng.sample(PALETTE, count)))
        self.limit = LIMIT[self.difficulty]
        while True:
            self.code = "".join(self.rng.choice(self.colours) for i in range(self.pegs))
            noted = "".join(self.rng.choice(self.colours) for i in range(self.pegs))
            self.notes = [(noted, score(noted, self.code))] if noted != self.code else []
            # keep only codes the reference strategy cracks in time, so solution() always wins
            plays = consistent_play(self.code, self.colours, self.pegs, self.notes)
            if self.notes and len(plays) <= self.limit - 1:
                break
        self.history = list(self.notes)
        self.turn = 0
        self.done = False
        return self.render("A new code has been hidden."), self.info()

    def info(self):
        """A small JSON-able summary of the state."""
        return {"turn": self.turn, "guesses": len(self.history), "limit": self.limit,
                "difficulty": self.difficulty}

    def render(self, result):
        """The observation text: result, history, actions and progress."""
        legend = ", ".join(f"{c}={COLOUR_NAMES[c]}" for c in self.colours)
        lines = [f"Turn {self.turn} of {self.limit}.", result,
                 f"Code: {self.pegs} pegs; colours {legend} (repeats allowed)."]
        if self.history:
            lines.append("Guesses so far (black = right place, white = right colour wrong place; "
                         "the first was made by a previous codebreaker):")
            for guess, (black, white) in self.history:
                lines.append(f"  {guess}: {black} black, {white} white")
        example = (self.colours * self.pegs)[: self.pegs]
        lines.append(f"Action: a guess such as \\boxed{{{example}}}: exactly {self.pegs} letters from {self.colours}.")
        return "\n".join(lines)

    def step(self, action):
        """Score one guess."""
        if self.done:
            return "The episode is over; call reset() to play again.", 0.0, True, False, self.info()
        self.turn += 1
        box = extract_boxed(action)
        guess = "".join(ch for ch in box.upper() if ch not in " ,-") if box is not None else ""
        if box is None:
            result = "No \\boxed{...} answer found; that turn was spent without a guess."
        elif len(guess) != self.pegs or any(ch not in self.colours for ch in guess):
            result = f"'{box[:40]}' is not {self.pegs} letters from {self.colours}; no feedback given."
        else:
            feedback = score(guess, self.code)
            self.history.append((guess, feedback))
            result = f"{guess}: {feedback[0]} black, {feedback[1]} white."
            if feedback[0] == self.pegs:
                self.done = True
                return self.render(result + " Code cracked!"), 1.0, True, False, self.info()
        if self.turn >= self.limit:
            self.done = True
            return self.render(result + " Out of guesses."), 0.0, True, False, self.info()
        return self.render(result), 0.0, False, False, self.info()

    def solution(self):
        """The guesses of a consistent-guess strategy played against the hidden code."""
        plays = consistent_play(self.code, self.colours, self.pegs, self.notes)
        return ["\\boxed{" + g + "}" for g in plays]

    def hint(self):
        """A nudge about the approach."""
        return ("Open with guesses that test few colours in blocks, then only ever guess a code "
                "that agrees with every piece of feedback so far; compare black counts between "
                "guesses that differ in one position to locate colours.")
