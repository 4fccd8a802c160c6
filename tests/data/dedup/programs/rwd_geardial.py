"""Cogwheel counters that must all return to zero."""

import random

from spadegym.program import extract_boxed

COUNTERS = [2, 3, 4, 4, 5]
PRIME = [5, 7, 7, 11, 11]
LINK_CHANCE = [0.0, 0.0, 0.3, 0.5, 0.6]


class CogCounterEnv:
    """Cog Counters: zero every counter by cranking linked handles.

    Several counters each show a residue modulo m. Each handle is geared to some counters:
    one crank of handle X adds the listed amounts to them (mod m). A turn cranks a single
    handle n times, 1 <= n <= m-1. Reset all counters to 0 before the turns run out.
    Reply in the form \\boxed{pull B 3}.
    """

    skill = "Mathematical_Reasoning"
    max_turns = 10

    def hint(self):
        """Approach."""
        return ("Look for a counter that a single handle turns: one congruence fixes that handle. "
                "Settle it, then repeat with a counter that only one unsettled handle turns.")

    def solution(self):
        """Back-substitute through the triangular system, one crank action per handle."""
        size, mod = len(self.handles), self.mod
        cranks = [0 for _ in range(size)]
        need = [(-v) % mod for v in self.initial]
        fixed = []
        while len(fixed) < size:
            for counter in range(size):
                free = [h for h in range(size) if h not in fixed and self.handles[h][counter]]
                if len(free) != 1:
                    continue
                h = free[0]
                inverse = pow(self.handles[h][counter], mod - 2, mod)
                cranks[h] = need[counter] * inverse % mod
                need = [(r - cranks[h] * g) % mod for r, g in zip(need, self.handles[h])]
                fixed.append(h)
                break
        names = self.names()
        out = []
        for h in range(size):
            if cranks[h]:
                out.append("\\boxed{pull %s %d}" % (names[h], cranks[h]))
        return out

    def reset(self, seed=None, options=None):
        """Assemble a new gearbox."""
        self.rng = random.Random(seed)
        level = 2
        if isinstance(options, dict):
            raw = options.get("difficulty", 2)
            if isinstance(raw, (int, float)) and not isinstance(raw, bool):
                level = min(5, max(1, int(raw)))
        self.level = level
        size = COUNTERS[level - 1]
        self.mod = mod = PRIME[level - 1]
        secret = [self.rng.randrange(1, mod) for _ in range(size)]
        gears = []
        for h in range(size):
            gear = [0 for _ in range(size)]
            gear[h] = self.rng.randrange(1, mod)
            if h + 1 < size:
                gear[h + 1] = self.rng.randrange(1, mod)
            j = h + 2
            while j < size:
                if self.rng.random() < LINK_CHANCE[level - 1]:
                    gear[j] = self.rng.randrange(1, mod)
                j += 1
            gears.append(gear)
        perm = list(range(size))
        if level >= 3:
            self.rng.shuffle(perm)
        self.handles = [gears[p] for p in perm]
        self.initial = []
        for c in range(size):
            acc = 0
            for h in range(size):
                acc += gears[h][c] * secret[h]
            self.initial.append(-acc % mod)
        self.counters = self.initial[:]
        self.cap = size + 3
        self.t = 0
        self.over = False
        return self.text("The gearbox is at rest."), self.meta()

    def step(self, action):
        """Crank one handle."""
        if self.over:
            return "Finished; reset to play again.", 0.0, True, False, self.meta()
        self.t += 1
        move = self.read(action)
        if isinstance(move, str):
            note = move + " Nothing turned."
        else:
            h, n = move
            gear = self.handles[h]
            self.counters = [(v + n * g) % self.mod for v, g in zip(self.counters, gear)]
            note = f"Handle {self.names()[h]} cranked {n} time(s)."
            if not any(self.counters):
                self.over = True
                return self.text(note + " Every counter reads zero. Done!"), 1.0, True, False, self.meta()
        if self.t >= self.cap:
            self.over = True
            return self.text(note + " The gearbox locks: no turns left."), 0.0, True, False, self.meta()
        return self.text(note), 0.0, False, False, self.meta()

    def names(self):
        return [chr(65 + h) for h in range(len(self.handles))]

    def meta(self):
        return {"turn": self.t, "dials": self.counters[:], "limit": self.cap, "difficulty": self.level}

    def read(self, reply):
        """(handle, n) or a complaint."""
        box = extract_boxed(reply)
        if box is None:
            return "Found no \\boxed{...} reply."
        tokens = box.upper().replace(",", " ").split()
        if tokens and tokens[0] == "PULL":
            del tokens[0]
        names = self.names()
        if len(tokens) == 1:
            tokens = tokens + ["1"]
        if len(tokens) != 2 or tokens[0] not in names:
            return f"'{box[:40]}' should read 'pull X n' with X one of {', '.join(names)}."
        amount = tokens[1]
        if not (amount.isdigit() and len(amount) <= 3 and 1 <= int(amount) < self.mod):
            return f"n must be a whole number between 1 and {self.mod - 1}."
        return names.index(tokens[0]), int(amount)

    def text(self, note):
        rows = [note, f"{self.cap - self.t} turn(s) remain.",
                f"Counters modulo {self.mod}: " + ", ".join(f"D{c + 1}={v}" for c, v in enumerate(self.counters)),
                "One crank of each handle adds:"]
        for name, gear in zip(self.names(), self.handles):
            rows.append("  " + name + ": " + ", ".join([f"D{c + 1} +{g}" for c, g in enumerate(gear) if g]))
        rows.append(f"Aim: all counters at 0. Reply \\boxed{{pull X n}}, X a handle, 1 <= n <= {self.mod - 1}.")
        return "\n".join(rows)
