import random
from spadegym.program import extract_boxed
qWords = ['crane', 'slate', 'pride', 'ghost', 'flame', 'brick', 'sound', 'plant', 'trick', 'mango']

class AltFiveLetterEnv:
    """Deduce a secret word of five letters.

    Each attempt is scored letter by letter: G for a hit, Y for a letter misplaced and
    - for a letter not in the word. Guess with \\boxed{word}. You have six guesses."""
    skill = 'Logical_Deduction'
    max_turns = 7

    def solution(self):
        return ['\\boxed{' + self.qSecret + '}']

    def step(self, action):
        qGuess = (extract_boxed(action) or '').strip().lower()
        if len(qGuess) != 5 or not qGuess.isalpha():
            return ('Guess a five-letter word in \\boxed{}.', 0.0, False, False, {})
        if qGuess == self.qSecret:
            return ('GGGGG: solved.', 1.0, True, False, {})
        return (f'{qGuess}: {self.qFeedback(qGuess)}', 0.0, False, False, {})

    def qFeedback(self, qGuess):
        qMarks = []
        for qI, qCh in enumerate(qGuess):
            if self.qSecret[qI] == qCh:
                qMarks.append('G')
            elif qCh in self.qSecret:
                qMarks.append('Y')
            else:
                qMarks.append('-')
        return ''.join(qMarks)

    def reset(self, seed=None, options=None):
        self.qRng = random.Random(seed)
        self.qSecret = self.qRng.choice(qWords)
        return (f"A secret word is hidden. Possible words: {', '.join(qWords)}.", {})
