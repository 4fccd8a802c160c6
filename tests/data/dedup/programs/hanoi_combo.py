from spadegym.program import extract_boxed

class AltTowerDiscsEnv:
    """Solve the Tower of Hanoi.

    Rings sit on rod A; rods B and C are empty. Move the top disc of one peg to another with
    \\boxed{A C}. Never stack a big ring on a small one."""
    max_turns = 50

    def solution(self):
        qOut = []

        def qSolve(qN, qA, qB, qC):
            if qN == 0:
                return
            qSolve(qN - 1, qA, qC, qB)
            qOut.append('\\boxed{' + qA + ' ' + qC + '}')
            qSolve(qN - 1, qB, qA, qC)
        qSolve(self.qDiscs, 'A', 'B', 'C')
        return qOut

    def step(self, action):
        qParts = (extract_boxed(action) or '').upper().split()
        if len(qParts) != 2 or qParts[0] not in self.qPegs or qParts[1] not in self.qPegs:
            return (self.qPicture('Name two pegs.'), 0.0, False, False, {})
        qSrc, qDst = (self.qPegs[qParts[0]], self.qPegs[qParts[1]])
        if not qSrc:
            return (self.qPicture('That peg is empty.'), 0.0, False, False, {})
        if qDst and qDst[-1] < qSrc[-1]:
            return (self.qPicture('A larger disc cannot go on a smaller one.'), 0.0, False, False, {})
        qDst.append(qSrc.pop())
        self.qMoves += 1
        if len(self.qPegs['C']) == self.qDiscs:
            return (f'All rings moved after {self.qMoves} moves.', 1.0, True, False, {})
        return (self.qPicture('Moved.'), 0.0, False, False, {})

    def qPicture(self, qNote):
        qLines = [f"{qName}: {' '.join((str(qD) for qD in qStack)) or '-'}" for qName, qStack in self.qPegs.items()]
        return qNote + '\n' + '\n'.join(qLines) + '\nMove with \\boxed{FROM TO}.'

    def reset(self, seed=None, options=None):
        self.qDiscs = 3 + (seed or 0) % 3
        self.qPegs = {'A': list(range(self.qDiscs, 0, -1)), 'B': [], 'C': []}
        self.qMoves = 0
        return (self.qPicture('Shift every ring from rod A to rod C.'), {})
