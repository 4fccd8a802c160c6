import os
import random

from spadegym.program import extract_boxed

WORD_FILE = "/usr/share/dict/words"
FALLBACK = ["planet", "garden", "silver", "window", "forest", "bridge", "rocket", "marble"]


def load_words():
    """Six-letter words from the system dictionary, or a built-in list."""
    if not os.path.exists(WORD_FILE):
        return FALLBACK
    handle = os.open(WORD_FILE, os.O_RDONLY)
    data = os.read(handle, 1 << 20).decode("utf-8", "ignore")
    os.close(handle)
    words = [w for w in data.split() if len(w) == 6 and w.isalpha() and w.islower()]
    return words or FALLBACK


class UnscrambleEnv:
    """Unscramble: put the letters back in order.

    You see the letters of a six-letter English word in a shuffled order. Answer with the
    word in \\boxed{word}. After each wrong answer you learn which letters are in place.
    """

    max_turns = 6
    skill = "Pattern_Recognition"

    def reset(self, seed=None, options=None):
        self.rng = random.Random(seed)
        self.word = self.rng.choice(sorted(load_words()))
        letters = list(self.word)
        self.rng.shuffle(letters)
        self.shown = "".join(letters)
        return (
            f"Unscramble these letters into a six-letter word: {self.shown}. "
            "Answer with \\boxed{word}."
        ), {}

    def step(self, action):
        guess = extract_boxed(action)
        if guess is None or len(guess) != 6:
            return "Answer with one six-letter word in \\boxed{}.", 0.0, False, False, {}
        guess = guess.lower()
        if guess == self.word:
            return "That's the word. You win!", 1.0, True, False, {}
        marks = "".join(a if a == b else "_" for a, b in zip(guess, self.word, strict=True))
        return f"Not quite. Letters in place: {marks}", 0.0, False, False, {}

    def solution(self):
        return ["\\boxed{" + self.word + "}"]

    def hint(self):
        return "Look for common endings such as -er, -et or -en first."
