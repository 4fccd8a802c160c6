import random
from spadegym.program import extract_boxed

class AltNextTermEnv:
    """Continue the number pattern.

    The numbers are produced by a secret rule: a constant step, a ratio, or two steps taken in turn. Answer the
    next term with \\boxed{n}. Miss, and one more number is shown."""
    skill = 'Pattern_Recognition'
    max_turns = 4

    def solution(self):
        return ['\\boxed{' + str(self.qTerms[self.qShown]) + '}']

    def step(self, action):
        qText = (extract_boxed(action) or '').strip()
        if qText.lstrip('-').isdigit() and int(qText) == self.qTerms[self.qShown]:
            return ('Correct.', 1.0, True, False, {})
        self.qShown += 1
        return (f'No. Sequence: {self.qTerms[:self.qShown]}. What comes next?', 0.0, False, False, {})

    def reset(self, seed=None, options=None):
        self.qRng = random.Random(seed)
        qStart = self.qRng.randint(1, 9)
        qKind = self.qRng.choice(['add', 'mul', 'alt'])
        qA, qB = (self.qRng.randint(2, 5), self.qRng.randint(1, 4))
        self.qTerms = [qStart]
        for qI in range(8):
            qLast = self.qTerms[-1]
            if qKind == 'add':
                self.qTerms.append(qLast + qA)
            elif qKind == 'mul':
                self.qTerms.append(qLast * qA)
            else:
                self.qTerms.append(qLast + qA if qI % 2 == 0 else qLast - qB)
        self.qShown = 5
        return (f'Sequence: {self.qTerms[:self.qShown]}. What comes next? Answer \\boxed{{n}}.', {})
