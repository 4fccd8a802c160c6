import random

from spadegym.program import extract_boxed, read_difficulty


class NimEnv:
    """Nim: take the last stone to win.

    Two players take turns removing stones from heaps. A move takes one or more stones from a
    single heap, written as \\boxed{heap count} (heaps are numbered from 1). Whoever takes the
    last stone wins. An illegal or malformed move loses the game at once.
    """

    max_turns = 100
    skill = "Logical_Deduction"
    num_players = 2

    def reset(self, seed=None, options=None):
        self.rng = random.Random(seed)
        difficulty = read_difficulty(options, default=1)
        # At most 7 heaps of at most 13 stones: every game ends within max_turns moves.
        count = 2 + difficulty
        self.heaps = [self.rng.randint(1, 3 + 2 * difficulty) for _ in range(count)]
        self.player = 0
        self.done = False
        return self.describe("A new game of Nim."), {"player": 0}

    def describe(self, lead):
        heaps = ", ".join(f"heap {i + 1}: {n}" for i, n in enumerate(self.heaps))
        return (
            f"{lead}\nHeaps: {heaps}.\nPlayer {self.player} to move. Take stones from one "
            "heap with \\boxed{heap count}, for example \\boxed{1 2} takes 2 stones from "
            "heap 1. Taking the last stone wins; an illegal move loses."
        )

    def step(self, action):
        mover = self.player
        other = 1 - mover
        if self.done:
            return "The game is over.", 0.0, True, False, {"player": other}
        move = self.parse(action)
        if isinstance(move, str):
            return self.finish(mover, -1.0, f"Player {mover} loses: {move}")
        heap, count = move
        self.heaps[heap] = self.heaps[heap] - count
        self.player = other
        if sum(self.heaps) == 0:
            return self.finish(mover, 1.0, f"Player {mover} takes the last stone and wins.")
        lead = f"Player {mover} took {count} from heap {heap + 1}."
        return self.describe(lead), 0.0, False, False, {"player": other}

    def parse(self, action):
        """The move as (heap index, count), or a sentence saying why it is illegal."""
        boxed = extract_boxed(action)
        if boxed is None:
            return "no move in \\boxed{heap count}."
        parts = boxed.replace(",", " ").split()
        # isdecimal, not isdigit: int() refuses digits such as "²"; the length cap keeps
        # int() away from its limit on very long numbers.
        if len(parts) != 2 or not all(p.isdecimal() and len(p) <= 6 for p in parts):
            return f"'{boxed[:40]}' is not two whole numbers 'heap count'."
        heap = int(parts[0]) - 1
        count = int(parts[1])
        if heap < 0 or heap >= len(self.heaps):
            return f"there is no heap {heap + 1}."
        if count < 1 or count > self.heaps[heap]:
            return f"heap {heap + 1} holds {self.heaps[heap]}; {count} stones cannot be taken."
        return heap, count

    def finish(self, mover, reward, message):
        self.done = True
        outcome = [reward, -reward] if mover == 0 else [-reward, reward]
        info = {"player": 1 - mover, "outcome": outcome}
        return message, reward, True, False, info

    def hint(self):
        return (
            "Write each heap in binary and combine them with exclusive or; try to leave your "
            "opponent a position where that combination is zero."
        )
