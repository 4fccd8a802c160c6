import random
from spadegym.program import extract_boxed

VOCABULARY = ("crane", "slate", "pride", "ghost", "flame", "brick", "sound", "plant", "trick", "mango")


class WordDeductionEnv:
    """Work out a secret five-letter word from per-letter clues.

    Each guess is answered with one mark per letter: G when the letter is in the right spot,
    Y when the word contains it somewhere else, - when it does not appear. Six tries; reply
    with \\boxed{word}."""

    max_turns = 6
    skill = "Logical_Deduction"

    def reset(self, seed=None, options=None):
        self.answer = random.Random(seed).choice(VOCABULARY)
        self.history = []
        words = ", ".join(VOCABULARY)
        return "A secret five-letter word is chosen from: " + words + ". Make a guess.", {}

    def step(self, action):
        word = extract_boxed(action)
        word = word.strip().lower() if word else ""
        if not (len(word) == 5 and word.isalpha()):
            return "Your guess must be five letters inside \\boxed{}.", 0.0, False, False, {}
        if word == self.answer:
            return "All letters green. Solved!", 1.0, True, False, {}
        marks = "".join(
            "G" if a == b else ("Y" if a in self.answer else "-")
            for a, b in zip(word, self.answer)
        )
        self.history.append(word + " " + marks)
        return "Clues so far:\n" + "\n".join(self.history), 0.0, False, False, {}

    def solution(self):
        return ["\\boxed{" + self.answer + "}"]
