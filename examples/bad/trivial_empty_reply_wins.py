import random

from spadegym.program import extract_boxed

WORDS = ["harbor", "lantern", "meadow", "pepper", "quartz", "saddle", "thimble", "velvet"]


class HiddenWordEnv:
    """Hidden word: find the secret word from letter clues.

    A secret word is hidden. Each turn, guess the word with \\boxed{word}; you are told which
    of your letters appear in the secret word.
    """

    max_turns = 8
    skill = "Logical_Deduction"

    def reset(self, seed=None, options=None):
        self.rng = random.Random(seed)
        self.word = self.rng.choice(WORDS)
        return (
            f"The secret word has {len(self.word)} letters. Guess it with \\boxed{{word}}; "
            "I will tell you which of your letters are in it."
        ), {}

    def step(self, action):
        guess = (extract_boxed(action) or "").lower()
        if guess in self.word:
            return "You found the word!", 1.0, True, False, {}
        common = sorted(set(guess) & set(self.word))
        return f"Letters in the word: {', '.join(common) or 'none'}.", 0.0, False, False, {}

    def solution(self):
        return ["\\boxed{" + self.word + "}"]

    def hint(self):
        return "Try words that use many different common letters first."
