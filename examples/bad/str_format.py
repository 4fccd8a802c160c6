import random

from spadegym.program import extract_boxed


class NumberHuntEnv:
    """Higher or lower: find the hidden number.

    A whole number is hidden between 1 and an upper bound. Guess it with \\boxed{N}; after
    each wrong guess you are told whether the hidden number is higher or lower.
    """

    max_turns = 12
    skill = "Logical_Deduction"

    def reset(self, seed=None, options=None):
        self.rng = random.Random(seed)
        difficulty = 1
        if isinstance(options, dict) and options.get("difficulty") in (1, 2, 3, 4, 5):
            difficulty = options["difficulty"]
        self.top = 50 * difficulty
        self.target = self.rng.randint(1, self.top)
        self.guesses = 0
        return (
            f"I am thinking of a whole number from 1 to {self.top}. Guess it with \\boxed{{N}}. "
            f"You have {self.max_turns} guesses; after each one I say higher or lower."
        ), {"top": self.top}

    def step(self, action):
        self.guesses += 1
        boxed = extract_boxed(action)
        if boxed is None or not boxed.isdecimal() or len(boxed) > 6:
            return "Guess one whole number in \\boxed{N}.", 0.0, False, False, {}
        guess = int(boxed)
        if guess == self.target:
            return f"Yes, it is {guess}. You win!", 1.0, True, False, {}
        direction = "higher" if self.target > guess else "lower"
        return "No: the number is {} than {}.".format(direction, guess), 0.0, False, False, {}  # noqa: UP032

    def solution(self):
        return [f"\\boxed{{{self.target}}}"]

    def hint(self):
        return "Halve the range that is left with every guess."
