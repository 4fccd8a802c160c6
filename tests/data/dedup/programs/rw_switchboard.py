"""Relay panel wiring: discover which toggle powers which bulb."""

import random

from spadegym.program import extract_boxed

BULBS = ("amber azure beige coral cream cyan gold indigo ivory jade khaki lilac lime mauve navy "
         "olive peach plum rose ruby sand teal umber violet").split()
SIZES = {1: 4, 2: 6, 3: 8, 4: 12, 5: 16}


class RelayPanelEnv:
    """Relay Panel: work out the hidden toggle-to-bulb wiring with as few trials as possible.

    Every toggle (A, B, C, ...) feeds exactly one bulb and every bulb has one toggle; the wiring
    is secret. On a turn you may switch on any set of toggles (the rest stay off) and observe the
    lit bulbs: \\boxed{test A C D}, or \\boxed{test none} to switch all off. Trials are scarce,
    so plan them so that each toggle behaves differently. End with the complete wiring,
    \\boxed{map A=teal, B=gold, ...}. A wrong wiring ends the game with no reward.
    """

    skill = "Logical_Deduction"
    max_turns = 8

    def solution(self):
        """Binary trials (trial k powers the toggles whose index has bit k), then the wiring."""
        rest = [t for t in self.toggles if t != self.clue[0]]
        width = 0
        while 2 ** width < len(rest):
            width += 1
        plan = []
        for bit in range(width):
            chosen = [t for index, t in enumerate(rest) if index >> bit & 1]
            plan.append("\\boxed{test %s}" % (" ".join(chosen) if chosen else "none"))
        pairs = [t + "=" + self.wiring[t] for t in self.toggles]
        plan.append("\\boxed{map " + ", ".join(pairs) + "}")
        return plan

    def reset(self, seed=None, options=None):
        """Wire a new panel."""
        self.rng = random.Random(seed)
        level = options.get("difficulty", 2) if isinstance(options, dict) else 2
        if isinstance(level, bool) or not isinstance(level, (int, float)):
            level = 2
        self.level = min(5, max(1, int(level)))
        count = SIZES[self.level]
        self.toggles = [chr(65 + k) for k in range(count)]
        self.bulbs = sorted(self.rng.sample(BULBS, count))
        order = self.bulbs[:]
        self.rng.shuffle(order)
        self.wiring = {}
        for toggle, bulb in zip(self.toggles, order):
            self.wiring[toggle] = bulb
        known = self.rng.choice(self.toggles)
        self.clue = (known, self.wiring[known])
        self.trials = []
        bits = 0
        while 2 ** bits < count - 1:
            bits += 1
        self.budget = bits + 2
        self.used = 0
        self.over = False
        return self.describe("All bulbs are off."), self.summary()

    def hint(self):
        """Approach only."""
        return ("Give each unknown toggle its own on/off pattern over the trials, like the digits of "
                "a binary number; the pattern of each bulb then points at its toggle.")

    def step(self, action):
        """Run a trial or check a wiring."""
        if self.over:
            return "This game has finished; reset to start again.", 0.0, True, False, self.summary()
        self.used += 1
        boxed = extract_boxed(action)
        content = "" if boxed is None else boxed.strip()
        if boxed is None:
            note = "There was no \\boxed{...}; nothing changes."
        elif content.lower().startswith("test"):
            names = content[4:].upper().replace(",", " ").split()
            if names == ["NONE"]:
                names = []
            unknown = [n for n in names if n not in self.toggles]
            if unknown:
                note = f"Only toggles {self.toggles[0]}..{self.toggles[-1]} exist."
            else:
                powered = [t for t in self.toggles if t in names]
                glowing = sorted([self.wiring[t] for t in powered])
                self.trials.append((powered, glowing))
                note = "Glowing: " + (", ".join(glowing) if glowing else "none") + "."
        elif content.lower().startswith("map"):
            note, reward, final = self.check_map(content[3:])
            if final:
                self.over = True
                return self.describe(note), reward, True, False, self.summary()
        else:
            note = f"'{content[:40]}' is not a trial and not a wiring."
        if self.used >= self.budget:
            self.over = True
            return self.describe(note + " No turns remain."), 0.0, True, False, self.summary()
        return self.describe(note), 0.0, False, False, self.summary()

    def check_map(self, body):
        """(message, reward, final) for a proposed wiring."""
        guess = {}
        for chunk in body.replace(";", ",").split(","):
            chunk = chunk.strip()
            if not chunk:
                continue
            sides = chunk.replace(":", "=").replace("->", "=").split("=")
            if len(sides) != 2:
                return f"Unreadable '{chunk[:30]}'; use toggle=bulb. No verdict yet.", 0.0, False
            left, right = sides[0].strip().upper(), sides[1].strip().lower()
            if left not in self.wiring or right not in self.bulbs:
                return f"Unreadable '{chunk[:30]}'; use toggle=bulb. No verdict yet.", 0.0, False
            guess[left] = right
        if len(guess) != len(self.toggles):
            return "Name a bulb for each toggle. No verdict yet.", 0.0, False
        if guess == self.wiring:
            return "That wiring is correct. Well done!", 1.0, True
        errors = len([t for t in self.toggles if guess[t] != self.wiring[t]])
        return f"{errors} toggle(s) are wired differently.", 0.0, True

    def summary(self):
        return {"turn": self.used, "tests": len(self.trials), "limit": self.budget, "difficulty": self.level}

    def describe(self, note):
        text = [note, f"Turns used: {self.used}/{self.budget}.",
                "Toggles: " + " ".join(self.toggles),
                "Bulbs: " + ", ".join(self.bulbs),
                f"An old diagram says toggle {self.clue[0]} feeds the {self.clue[1]} bulb."]
        if self.trials:
            text.append("Trials (toggles on -> bulbs glowing):")
            for powered, glowing in self.trials:
                text.append("  " + (" ".join(powered) or "none") + " -> " + (", ".join(glowing) or "none"))
        text.append("Reply \\boxed{test A C ...} or \\boxed{map A=bulb, B=bulb, ...} naming every toggle.")
        return "\n".join(text)
