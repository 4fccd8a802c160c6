from spadegym.program import extract_boxed
import random

class AltLockPickEnv:
    """Crack a three-digit padlock.

    After every attempt you learn how many of your digits sit in the correct slot.
    Answer with \\boxed{ddd}. The padlock springs open when you hit the code."""
    skill = 'Logical_Deduction'
    max_turns = 10

    def hint(self):
        return 'Change one digit at a time and watch the count.'

    def solution(self):
        return ['\\boxed{' + self.qCode + '}']

    def step(self, action):
        self.qTurn = self.qTurn + 1
        qGuess = extract_boxed(action)
        if qGuess is None or len(qGuess) != 3 or (not qGuess.isdigit()):
            return ('Answer with three digits in \\boxed{}.', 0.0, False, False, {})
        if qGuess == self.qCode:
            return ('The shackle pops open.', 1.0, True, False, {})
        qRight = sum((1 for qA, qB in zip(qGuess, self.qCode) if qA == qB))
        return (f'{qRight} digit(s) correctly placed.', 0.0, False, False, {})

    def reset(self, seed=None, options=None):
        self.qRng = random.Random(seed)
        self.qCode = ''.join((str(self.qRng.randrange(10)) for q in range(3)))
        self.qTurn = 0
        return ('A padlock with three digits. Try a code with \\boxed{ddd}.', {})
