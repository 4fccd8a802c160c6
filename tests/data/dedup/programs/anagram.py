import random
from spadegym.program import extract_boxed

WORDS = ["planet", "garden", "silver", "pencil", "winter", "castle", "bridge", "rocket"]


class AnagramEnv:
    """Unscramble the letters into an English word.

    You see a word with its letters shuffled. Answer with the original word in \\boxed{}.
    Each wrong answer reveals one more letter in its right place."""

    max_turns = 4
    skill = "Pattern_Recognition"

    def reset(self, seed=None, options=None):
        self.rng = random.Random(seed)
        self.word = self.rng.choice(WORDS)
        letters = list(self.word)
        self.rng.shuffle(letters)
        self.scrambled = "".join(letters)
        self.revealed = 0
        return f"Unscramble: {self.scrambled}. Answer with \\boxed{{word}}.", {}

    def step(self, action):
        guess = (extract_boxed(action) or "").strip().lower()
        if guess == self.word:
            return "That is the word.", 1.0, True, False, {}
        self.revealed = min(self.revealed + 1, len(self.word))
        clue = self.word[: self.revealed] + "_" * (len(self.word) - self.revealed)
        return f"Not it. The word starts: {clue}. Letters: {self.scrambled}.", 0.0, False, False, {}

    def solution(self):
        return ["\\boxed{" + self.word + "}"]
