import random
from spadegym.program import extract_boxed

qWords = ["crane", "slate", "pride", "ghost", "flame", "brick", "sound", "plant", "trick", "mango"]


class AltFiveLetterEnv:
    """Guess the hidden five-letter word from coloured feedback.

    After each guess, every letter is marked G (right place), Y (in the word elsewhere) or
    - (absent). Guess with \\boxed{word}. You have six guesses."""

    max_turns = 6
    skill = "Logical_Deduction"

    def reset(self, seed=None, options=None):
        self.qRng = random.Random(seed)
        self.qSecret = self.qRng.choice(qWords)
        return f"Guess the five-letter word. Possible words: {', '.join(qWords)}.", {}

    def qFeedback(self, qGuess):
        qMarks = []
        for qI, qCh in enumerate(qGuess):
            if self.qSecret[qI] == qCh:
                qMarks.append("G")
            elif qCh in self.qSecret:
                qMarks.append("Y")
            else:
                qMarks.append("-")
        return "".join(qMarks)

    def step(self, action):
        qGuess = (extract_boxed(action) or "").strip().lower()
        if len(qGuess) != 5 or not qGuess.isalpha():
            return "Guess a five-letter word in \\boxed{}.", 0.0, False, False, {}
        if qGuess == self.qSecret:
            return "GGGGG: you found the word.", 1.0, True, False, {}
        return f"{qGuess}: {self.qFeedback(qGuess)}", 0.0, False, False, {}

    def solution(self):
        return ["\\boxed{" + self.qSecret + "}"]
