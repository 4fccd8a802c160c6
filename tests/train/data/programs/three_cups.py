"""A pure-luck game (issue 23): nothing observable tells the cups apart, so no policy beats a
uniform guesser, who scores 0.5 with the two-try scheme. Designer rewards must give it 0."""

import random

from spadegym.program import extract_boxed

COLOURS = (
    "red blue green yellow purple orange white black pink brown grey gold silver teal"
).split()


class ThreeCupsEnv:
    """Three cups of different colours: one hides a ball. Name a cup with \\boxed{colour}.

    Two tries: the first right guess scores 1, a right second guess 0.5."""

    max_turns = 2
    skill = "Probabilistic_Reasoning"

    def reset(self, seed=None, options=None):
        rng = random.Random(seed)
        self.cups = rng.sample(COLOURS, 3)
        self.ball = rng.choice(self.cups)
        self.tries = 0
        listed = ", ".join(self.cups)
        return f"Three cups: {listed}. Which one hides the ball? Answer with \\boxed{{colour}}.", {}

    def step(self, action):
        guess = (extract_boxed(action) or "").strip().lower()
        if guess not in self.cups:
            return f"Name a cup: {', '.join(self.cups)}, in \\boxed{{}}.", 0.0, False, False, {}
        self.tries += 1
        if guess == self.ball:
            return "The ball is there.", 1.0 if self.tries == 1 else 0.5, True, False, {}
        if self.tries >= 2:
            return f"Empty. The ball was under {self.ball}.", 0.0, True, False, {}
        return f"Empty. One more try: {', '.join(self.cups)}.", 0.0, False, False, {}

    def solution(self):
        return ["\\boxed{" + self.ball + "}"]
