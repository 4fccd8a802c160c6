"""A strongroom lock that counts in residues."""

import random
from collections import deque

from spadegym.program import extract_boxed

PRIMES = [11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47, 53, 59, 61, 67, 71, 73, 79, 83, 89, 97,
          101, 103, 107, 109, 113, 127, 131, 137, 139, 149]
BOUNDS = [(11, 19), (23, 37), (41, 61), (67, 97), (101, 149)]
SPAN = [(3, 4), (4, 5), (5, 6), (5, 7), (6, 8)]
KEYS = [3, 3, 3, 4, 4]


def press(key, value, modulus):
    """The counter after pressing ``key`` at ``value``."""
    kind, amount = key
    if kind == "add":
        value = value + amount
    elif kind == "sub":
        value = value - amount
    elif kind == "mul":
        value = value * amount
    else:
        value = value * value
    return value % modulus


class ResidueStrongroomEnv:
    """Residue Strongroom: steer a modular counter to the unlock code.

    The strongroom's counter holds a value x modulo a prime m. Each lettered key rewrites x
    (for instance x -> (x * 5) mod m). Press a single key per turn and bring the counter to the
    unlock code before the allowed presses are used up; find the fewest presses. Reply with a
    key letter in a box, such as \\boxed{B}. The strongroom opens when the counter equals the
    code.
    """

    skill = "Mathematical_Reasoning"
    max_turns = 12

    def hint(self):
        """Approach."""
        return ("Search from both ends: note which values each key reaches from the start in one or "
                "two presses and which lead into the code, and find where they meet.")

    def solution(self):
        """Fewest presses, by breadth-first search."""
        came = {self.origin: None}
        todo = deque([self.origin])
        while todo:
            value = todo.popleft()
            if value == self.code:
                break
            for index, key in enumerate(self.keys):
                nxt = press(key, value, self.mod)
                if nxt not in came:
                    came[nxt] = (value, index)
                    todo.append(nxt)
        sequence = []
        value = self.code
        while came[value] is not None:
            value, index = came[value]
            sequence.insert(0, index)
        return ["\\boxed{" + chr(65 + index) + "}" for index in sequence]

    def reset(self, seed=None, options=None):
        """Build a strongroom."""
        self.rng = random.Random(seed)
        level = 2
        if isinstance(options, dict):
            raw = options.get("difficulty", 2)
            if isinstance(raw, (int, float)) and not isinstance(raw, bool):
                level = max(1, min(5, int(raw)))
        self.level = level
        low, high = BOUNDS[level - 1]
        near, far = SPAN[level - 1]
        while True:
            self.mod = self.rng.choice([p for p in PRIMES if low <= p <= high])
            self.keys = []
            for kind in ["add", "mul", "sub", "square"][: KEYS[level - 1]]:
                if kind == "mul":
                    self.keys.append((kind, self.rng.randrange(2, self.mod - 1)))
                elif kind == "square":
                    self.keys.append((kind, 2))
                else:
                    self.keys.append((kind, self.rng.randrange(2, self.mod // 2 + 1)))
            self.origin = self.rng.randrange(1, self.mod)
            self.rng.shuffle(self.keys)
            depth = {self.origin: 0}
            frontier = deque([self.origin])
            while frontier:
                value = frontier.popleft()
                for key in self.keys:
                    nxt = press(key, value, self.mod)
                    if nxt in depth:
                        continue
                    depth[nxt] = depth[value] + 1
                    frontier.append(nxt)
            reachable = sorted([v for v in depth if near <= depth[v] <= far])
            if len(reachable) > 0:
                self.code = self.rng.choice(reachable)
                self.best = depth[self.code]
                break
        self.allowed = self.best + 3
        self.counter = self.origin
        self.t = 0
        self.pressed = []
        self.opened = False
        return self.panel("The strongroom is armed; the counter is live."), self.meta()

    def meta(self):
        return {"turn": self.t, "value": self.counter, "limit": self.allowed, "difficulty": self.level}

    def panel(self, note):
        rows = [f"{self.allowed - self.t} press(es) left of {self.allowed}.", note,
                f"Modulus m = {self.mod}. Counter: {self.counter}. Unlock code: {self.code}.",
                "Keys:"]
        for index, (kind, amount) in enumerate(self.keys):
            if kind == "add":
                rule = f"x -> (x + {amount}) mod {self.mod}"
            elif kind == "sub":
                rule = f"x -> (x - {amount}) mod {self.mod}"
            elif kind == "mul":
                rule = f"x -> (x * {amount}) mod {self.mod}"
            else:
                rule = f"x -> (x * x) mod {self.mod}"
            rows.append("  " + chr(65 + index) + ": " + rule)
        rows.append("Pressed so far: " + (" ".join(self.pressed) or "(none)"))
        rows.append("Press one key per turn by boxing its letter, e.g. \\boxed{A}.")
        return "\n".join(rows)

    def step(self, action):
        """Press one key."""
        if self.opened:
            return "Game over; reset to play again.", 0.0, True, False, self.meta()
        self.t += 1
        raw = extract_boxed(action)
        letters = [chr(65 + k) for k in range(len(self.keys))]
        if raw is None:
            note = "No \\boxed{...} reply; no key was pressed."
        elif raw.strip().upper() in letters:
            letter = raw.strip().upper()
            before = self.counter
            self.counter = press(self.keys[letters.index(letter)], self.counter, self.mod)
            self.pressed.append(letter)
            note = f"Key {letter}: {before} -> {self.counter}."
            if self.counter == self.code:
                self.opened = True
                return self.panel(note + " The bolts slide back: open!"), 1.0, True, False, self.meta()
        else:
            note = f"'{raw[:40]}' is no key; use one of {', '.join(letters)}. Nothing happened."
        if self.t >= self.allowed:
            self.opened = True
            return self.panel(note + " The strongroom locks down: no presses left."), 0.0, True, False, self.meta()
        return self.panel(note), 0.0, False, False, self.meta()
