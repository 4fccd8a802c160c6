import random
from spadegym.program import extract_boxed
WORDS = ['crane', 'slate', 'pride', 'ghost', 'flame', 'brick', 'sound', 'plant', 'trick', 'mango']

class FiveLetterEnv:
    """Guess the hidden five-letter word from coloured feedback.

    After each guess, every letter is marked G (right place), Y (in the word elsewhere) or
    - (absent). Guess with \\boxed{word}. You have six guesses."""
    skill = 'Logical_Deduction'
    max_turns = 6

    def solution(self):
        return ['\\boxed{' + self.secret + '}']

    def step(self, action):
        guess = (extract_boxed(action) or '').strip().lower()
        if len(guess) != 5 or not guess.isalpha():
            return ('Guess a five-letter word in \\boxed{}.', 0.0, False, False, {})
        if guess == self.secret:
            return ('GGGGG: you found the word.', 1.0, True, False, {})
        return (f'{guess}: {self.feedback(guess)}', 0.0, False, False, {})

    def feedback(self, guess):
        marks = []
        for i, ch in enumerate(guess):
            if self.secret[i] == ch:
                marks.append('G')
            elif ch in self.secret:
                marks.append('Y')
            else:
                marks.append('-')
        return ''.join(marks)

    def reset(self, seed=None, options=None):
        self.rng = random.Random(seed)
        self.secret = self.rng.choice(WORDS)
        return (f"Guess the five-letter word. Possible words: {', '.join(WORDS)}.", {})
