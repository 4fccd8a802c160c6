import random
from spadegym.program import extract_boxed

class NextTermEnv:
    """Find the next term of a number sequence.

    A sequence follows a hidden rule (adding, multiplying or alternating steps). Answer the
    next term with \\boxed{n}. After a wrong answer you get one more term as a clue."""
    skill = 'Pattern_Recognition'
    max_turns = 3

    def solution(self):
        return ['\\boxed{' + str(self.terms[self.shown]) + '}']

    def step(self, action):
        text = (extract_boxed(action) or '').strip()
        if text.lstrip('-').isdigit() and int(text) == self.terms[self.shown]:
            return ('Correct.', 1.0, True, False, {})
        self.shown += 1
        return (f'No. Sequence: {self.terms[:self.shown]}. Next term?', 0.0, False, False, {})

    def reset(self, seed=None, options=None):
        self.rng = random.Random(seed)
        start = self.rng.randint(1, 9)
        kind = self.rng.choice(['add', 'mul', 'alt'])
        a, b = (self.rng.randint(2, 5), self.rng.randint(1, 4))
        self.terms = [start]
        for i in range(8):
            last = self.terms[-1]
            if kind == 'add':
                self.terms.append(last + a)
            elif kind == 'mul':
                self.terms.append(last * a)
            else:
                self.terms.append(last + a if i % 2 == 0 else last - b)
        self.shown = 5
        return (f'Sequence: {self.terms[:self.shown]}. Next term? Answer \\boxed{{n}}.', {})
