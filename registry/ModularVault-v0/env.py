"""ModularVault: open a safe whose dial lives in modular arithmetic (Mathematical_Reasoning)."""

import random
from collections import deque

from spadegym.program import extract_boxed, read_difficulty

PRIMES = [11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47, 53, 59, 61, 67, 71, 73, 79, 83, 89, 97,
          101, 103, 107, 109, 113, 127, 131, 137, 139, 149]
MOD_RANGE = {1: (11, 19), 2: (23, 37), 3: (41, 61), 4: (67, 97), 5: (101, 149)}
DEPTH = {1: (3, 4), 2: (4, 5), 3: (5, 6), 4: (5, 7), 5: (6, 8)}
BUTTON_COUNT = {1: 3, 2: 3, 3: 3, 4: 4, 5: 4}
SLACK = 3


def apply_button(button, x, m):
    """The dial value after pressing ``button`` (a (kind, k) pair) on value ``x`` mod ``m``."""
    kind, k = button
    if kind == "add":
        return (x + k) % m
    if kind == "sub":
        return (x - k) % m
    if kind == "mul":
        return (x * k) % m
    return (x * x) % m


def describe_button(button, m):
    """How a button changes the dial, in words."""
    kind, k = button
    if kind == "add":
        return f"x -> (x + {k}) mod {m}"
    if kind == "sub":
        return f"x -> (x - {k}) mod {m}"
    if kind == "mul":
        return f"x -> (x * {k}) mod {m}"
    return f"x -> (x * x) mod {m}"


def shortest_presses(start, target, buttons, m):
    """Breadth-first search over dial values; the list of button indices, or None."""
    prev = {start: None}
    queue = deque([start])
    while queue:
        x = queue.popleft()
        if x == target:
            path = []
            while prev[x] is not None:
                x, b = prev[x]
                path.append(b)
            return path[::-1]
        for b, button in enumerate(buttons):
            y = apply_button(button, x, m)
            if y not in prev:
                prev[y] = (x, b)
                queue.append(y)
    return None


class ModularVaultEnv:
    """Modular Vault: reach the secret residue on a modular safe dial.

    The vault's dial shows a number x modulo a prime m. Each lettered button transforms x
    (for example x -> (x * 5) mod m). Press one button per turn to bring the dial to the target
    value before the vault's press limit runs out; plan the shortest sequence of presses.
    Answer with the button letter in a box, e.g. \\boxed{B}. You win when the dial shows the target.
    """

    max_turns = 12
    skill = "Mathematical_Reasoning"

    def reset(self, seed=None, options=None):
        """Build a new vault from ``seed`` and the difficulty in ``options``."""
        self.rng = random.Random(seed)
        self.difficulty = read_difficulty(options, default=2)
        lo, hi = MOD_RANGE[self.difficulty]
        low_depth, high_depth = DEPTH[self.difficulty]
        while True:
            self.m = self.rng.choice([p for p in PRIMES if lo <= p <= hi])
            kinds = ["add", "mul", "sub", "square"][: BUTTON_COUNT[self.difficulty]]
            self.buttons = []
            for kind in kinds:
                if kind == "square":
                    self.buttons.append((kind, 2))
                elif kind == "mul":
                    self.buttons.append((kind, self.rng.randrange(2, self.m - 1)))
                else:
                    self.buttons.append((kind, self.rng.randrange(2, self.m // 2 + 1)))
            self.rng.shuffle(self.buttons)
            self.start = self.rng.randrange(1, self.m)
            dist = {self.start: 0}
            queue = deque([self.start])
            while queue:
                x = queue.popleft()
                for button in self.buttons:
                    y = apply_button(button, x, self.m)
                    if y not in dist:
                        dist[y] = dist[x] + 1
                        queue.append(y)
            targets = sorted(v for v, d in dist.items() if low_depth <= d <= high_depth)
            if targets:
                self.target = self.rng.choice(targets)
                self.optimal = dist[self.target]
                break
        self.limit = self.optimal + SLACK
        self.value = self.start
        self.turn = 0
        self.presses = []
        self.done = False
        return self.render("The vault hums. The dial is ready."), self.info()

    def letters(self):
        """The button letters in order."""
        return [chr(ord("A") + i) for i in range(len(self.buttons))]

    def info(self):
        """A small JSON-able summary of the state."""
        return {"turn": self.turn, "value": self.value, "limit": self.limit,
                "difficulty": self.difficulty}

    def render(self, result):
        """The observation text: result, state, actions and progress."""
        lines = [
            f"Turn {self.turn} of {self.limit} (the vault seals after {self.limit} turns).",
            result,
            f"Dial modulus m = {self.m}. Current dial value: {self.value}. Target value: {self.target}.",
            "Buttons:",
        ]
        for letter, button in zip(self.letters(), self.buttons):
            lines.append(f"  {letter}: {describe_button(button, self.m)}")
        history = " ".join(self.presses) if self.presses else "(none)"
        lines.append(f"Presses so far: {history}")
        lines.append("Press one button per turn: reply with its letter in a box, e.g. \\boxed{A}.")
        return "\n".join(lines)

    def step(self, action):
        """Press one button (or explain why the reply was not a press)."""
        if self.done:
            return "The episode is over; call reset() to play again.", 0.0, True, False, self.info()
        self.turn += 1
        choice = extract_boxed(action)
        letters = self.letters()
        if choice is None:
            result = "No \\boxed{...} answer found; nothing was pressed."
        elif choice.strip().upper() not in letters:
            shown = choice[:40]
            result = f"'{shown}' is not a button; choose one of {', '.join(letters)}. Nothing was pressed."
        else:
            letter = choice.strip().upper()
            button = self.buttons[letters.index(letter)]
            before = self.value
            self.value = apply_button(button, self.value, self.m)
            self.presses.append(letter)
            result = f"You pressed {letter}: {before} -> {self.value}."
            if self.value == self.target:
                self.done = True
                return self.render(result + " Click! The vault opens."), 1.0, True, False, self.info()
        if self.turn >= self.limit:
            self.done = True
            return self.render(result + " The vault seals: out of turns."), 0.0, True, False, self.info()
        return self.render(result), 0.0, False, False, self.info()

    def solution(self):
        """The shortest press sequence from the starting value, found by search."""
        path = shortest_presses(self.start, self.target, self.buttons, self.m)
        letters = self.letters()
        return ["\\boxed{" + letters[b] + "}" for b in path]

    def hint(self):
        """A nudge about the approach."""
        return ("Work backwards from the target as well as forwards from the start: list which "
                "values each button can reach in one or two presses and look for where the two "
                "frontiers meet.")
