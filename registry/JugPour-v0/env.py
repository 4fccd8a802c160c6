"""JugPour: measure an exact volume with unmarked jugs (Mathematical_Reasoning)."""

import random
from collections import deque

from spadegym.program import extract_boxed, read_difficulty

JUG_COUNT = {1: 2, 2: 2, 3: 3, 4: 3, 5: 3}
CAPACITY = {1: (3, 12), 2: (4, 15), 3: (3, 12), 4: (5, 13), 5: (6, 15)}
DEPTH = {1: (3, 4), 2: (4, 6), 3: (5, 7), 4: (6, 8), 5: (7, 10)}
SLACK = 3


def moves_from(state, caps):
    """Every legal move from ``state`` as (move tuple, next state) pairs."""
    out = []
    n = len(caps)
    for i in range(n):
        if state[i] < caps[i]:
            nxt = list(state)
            nxt[i] = caps[i]
            out.append((("fill", i, -1), tuple(nxt)))
        if state[i] > 0:
            nxt = list(state)
            nxt[i] = 0
            out.append((("empty", i, -1), tuple(nxt)))
        for j in range(n):
            if i != j and state[i] > 0 and state[j] < caps[j]:
                amount = min(state[i], caps[j] - state[j])
                nxt = list(state)
                nxt[i] -= amount
                nxt[j] += amount
                out.append((("pour", i, j), tuple(nxt)))
    return out


def search(start, caps, max_depth):
    """Breadth-first search to ``max_depth`` moves: parent links and depths of the states."""
    prev = {start: None}
    depth = {start: 0}
    queue = deque([start])
    while queue:
        state = queue.popleft()
        if depth[state] >= max_depth:
            continue
        for move, nxt in moves_from(state, caps):
            if nxt not in prev:
                prev[nxt] = (state, move)
                depth[nxt] = depth[state] + 1
                queue.append(nxt)
    return prev, depth


class JugPourEnv:
    """Jug Pour: measure an exact volume using unmarked jugs, a tap and a drain.

    You have two or three partly filled jugs with known capacities and no markings. Each turn
    do one thing: fill a jug from the tap, empty a jug into the drain, or pour one jug into
    another until the first is empty or the second is full. Win when the named jug holds
    exactly the target volume, within the turn limit. Answer in a box: \\boxed{fill A}, \\boxed{empty B} or \\boxed{pour A B}.
    """

    max_turns = 14
    skill = "Mathematical_Reasoning"

    def reset(self, seed=None, options=None):
        """Build a new measuring task from ``seed`` and the difficulty in ``options``."""
        self.rng = random.Random(seed)
        self.difficulty = read_difficulty(options, default=2)
        lo, hi = CAPACITY[self.difficulty]
        low_depth, high_depth = DEPTH[self.difficulty]
        n = JUG_COUNT[self.difficulty]
        while True:
            self.caps = tuple(sorted(self.rng.sample(range(lo, hi + 1), n)))
            # a random partly filled start keeps one instance's moves from solving another
            self.start = tuple(self.rng.randrange(0, c) for c in self.caps)
            self.goal_jug = self.rng.randrange(n)
            prev, depth = search(self.start, self.caps, high_depth)
            best = {}
            for state in sorted(depth):
                volume = state[self.goal_jug]
                if volume > 0 and (volume not in best or depth[state] < best[volume]):
                    best[volume] = depth[state]
            targets = sorted(v for v, d in best.items() if low_depth <= d <= high_depth)
            if targets:
                self.target = self.rng.choice(targets)
                self.optimal = best[self.target]
                break
        self.limit = self.optimal + SLACK
        self.state = self.start
        self.turn = 0
        self.done = False
        return self.render("The jugs start partly filled."), self.info()

    def names(self):
        """Jug letters in order."""
        return [chr(ord("A") + i) for i in range(len(self.caps))]

    def info(self):
        """A small JSON-able summary of the state."""
        return {"turn": self.turn, "jugs": list(self.state), "limit": self.limit,
                "difficulty": self.difficulty}

    def render(self, result):
        """The observation text: result, state, actions and progress."""
        jugs = ", ".join(f"{name}: {v}/{c} L" for name, v, c in zip(self.names(), self.state, self.caps))
        names = self.names()
        return "\n".join([
            f"Turn {self.turn} of {self.limit}.",
            result,
            f"Jugs (content/capacity): {jugs}.",
            f"Goal: jug {self.names()[self.goal_jug]} holds exactly {self.target} L.",
            f"Actions (one per turn): \\boxed{{fill X}}, \\boxed{{empty X}}, \\boxed{{pour X Y}} with X, Y in {', '.join(names)}.",
        ])

    def parse(self, text):
        """A move tuple from the boxed reply, or an error string."""
        box = extract_boxed(text)
        if box is None:
            return "No \\boxed{...} answer found."
        words = box.replace(",", " ").replace("->", " ").upper().split()
        names = self.names()
        if words and words[0] == "POUR" and len(words) == 4 and words[2] == "INTO":
            words = [words[0], words[1], words[3]]
        if not words or words[0] not in ("FILL", "EMPTY", "POUR"):
            return f"'{box[:40]}' is not a move; start with fill, empty or pour."
        if words[0] in ("FILL", "EMPTY"):
            if len(words) != 2 or words[1] not in names:
                return f"{words[0].lower()} needs exactly one jug letter from {', '.join(names)}."
            return (words[0].lower(), names.index(words[1]), -1)
        if len(words) != 3 or words[1] not in names or words[2] not in names or words[1] == words[2]:
            return f"pour needs two different jug letters from {', '.join(names)}, e.g. pour A B."
        return ("pour", names.index(words[1]), names.index(words[2]))

    def step(self, action):
        """Do one fill, empty or pour."""
        if self.done:
            return "The episode is over; call reset() to play again.", 0.0, True, False, self.info()
        self.turn += 1
        move = self.parse(action)
        if isinstance(move, str):
            result = move + " Nothing happened."
        else:
            legal = dict(moves_from(self.state, self.caps))
            names = self.names()
            if move not in legal:
                result = "That move changes nothing (the jug is already full or empty). Turn used."
            else:
                self.state = legal[move]
                kind, i, j = move
                if kind == "pour":
                    result = f"You poured {names[i]} into {names[j]}."
                elif kind == "fill":
                    result = f"You filled {names[i]}."
                else:
                    result = f"You emptied {names[i]}."
                if self.state[self.goal_jug] == self.target:
                    self.done = True
                    return self.render(result + " Exactly the target volume. Solved!"), 1.0, True, False, self.info()
        if self.turn >= self.limit:
            self.done = True
            return self.render(result + " Out of turns."), 0.0, True, False, self.info()
        return self.render(result), 0.0, False, False, self.info()

    def solution(self):
        """The shortest move sequence, found by breadth-first search from the start."""
        prev, depth = search(self.start, self.caps, self.optimal)
        goal = min((s for s in depth if s[self.goal_jug] == self.target), key=lambda s: (depth[s], s))
        moves = []
        while prev[goal] is not None:
            goal, move = prev[goal]
            moves.append(move)
        names = self.names()
        out = []
        for kind, i, j in reversed(moves):
            if kind == "pour":
                out.append("\\boxed{pour " + names[i] + " " + names[j] + "}")
            else:
                out.append("\\boxed{" + kind + " " + names[i] + "}")
        return out

    def hint(self):
        """A nudge about the approach."""
        return ("Track how each move changes the contents: pouring stops when the source is empty "
                "or the destination is full, so differences of capacities and current contents "
                "are what you can isolate. Plan backwards from the goal jug holding the target.")
