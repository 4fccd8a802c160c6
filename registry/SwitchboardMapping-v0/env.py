"""SwitchboardMapping: learn which switch drives which lamp in few tests (Logical_Deduction)."""

import random

from spadegym.program import extract_boxed, read_difficulty

LAMPS = ["amber", "azure", "beige", "coral", "cream", "cyan", "gold", "indigo", "ivory", "jade",
         "khaki", "lilac", "lime", "mauve", "navy", "olive", "peach", "plum", "rose", "ruby",
         "sand", "teal", "umber", "violet"]
SWITCHES = {1: 4, 2: 6, 3: 8, 4: 12, 5: 16}
SLACK = 1


def bits_needed(count):
    """The fewest yes/no tests that can tell ``count`` things apart."""
    bits = 0
    while (1 << bits) < count:
        bits += 1
    return bits


class SwitchboardMappingEnv:
    """Switchboard Mapping: find which switch controls which lamp using few test configurations.

    Each switch (A, B, C, ...) controls exactly one lamp and each lamp has exactly one switch,
    but the wiring is hidden. Each turn choose a set of switches to turn on (all others off)
    and see which lamps light up: \\boxed{test A C D} (\\boxed{test none} for all off). Tests
    are limited, so design them to tell every switch apart. Finish with the full wiring:
    \\boxed{map A=teal, B=gold, ...}. A wrong map loses.
    """

    max_turns = 8
    skill = "Logical_Deduction"

    def reset(self, seed=None, options=None):
        """Wire a new board from ``seed``; the difficulty in ``options`` sets its size."""
        self.rng = random.Random(seed)
        self.difficulty = read_difficulty(options, default=2)
        n = SWITCHES[self.difficulty]
        self.switches = [chr(ord("A") + i) for i in range(n)]
        self.lamps = sorted(self.rng.sample(LAMPS, n))
        wiring = list(self.lamps)
        self.rng.shuffle(wiring)
        self.wire = dict(zip(self.switches, wiring))
        noted = self.rng.choice(self.switches)
        self.note = (noted, self.wire[noted])
        self.log = []
        self.limit = bits_needed(n - 1) + 1 + SLACK
        self.turn = 0
        self.done = False
        return self.render("The board is dark."), self.info()

    def info(self):
        """A small JSON-able summary of the state."""
        return {"turn": self.turn, "tests": len(self.log), "limit": self.limit,
                "difficulty": self.difficulty}

    def render(self, result):
        """The observation text: result, test log, actions and progress."""
        lines = [f"Turn {self.turn} of {self.limit}.", result,
                 "Switches: " + " ".join(self.switches),
                 "Lamps: " + ", ".join(self.lamps),
                 f"Known from the old wiring plan: switch {self.note[0]} controls the {self.note[1]} lamp."]
        if self.log:
            lines.append("Tests so far (switches on -> lamps lit):")
            for on, lit in self.log:
                lines.append(f"  {' '.join(on) or 'none'} -> {', '.join(lit) or 'none'}")
        lines.append("Actions: \\boxed{test A C ...} or \\boxed{map A=lamp, B=lamp, ...} (every switch once).")
        return "\n".join(lines)

    def judge(self, text):
        """Score a map answer: (message, reward, finished)."""
        pairs = [p.strip() for p in text.replace(";", ",").split(",") if p.strip()]
        claim = {}
        for pair in pairs:
            parts = pair.replace(":", "=").replace("->", "=").split("=")
            if len(parts) != 2 or parts[0].strip().upper() not in self.wire or parts[1].strip().lower() not in self.lamps:
                return f"Could not read '{pair[:30]}'; write switch=lamp pairs. Nothing was decided.", 0.0, False
            claim[parts[0].strip().upper()] = parts[1].strip().lower()
        if len(claim) != len(self.switches):
            return "The map must give a lamp for every switch. Nothing was decided.", 0.0, False
        if claim == self.wire:
            return "The wiring map is exactly right. Solved!", 1.0, True
        wrong = sum(1 for s in self.switches if claim[s] != self.wire[s])
        return f"The map is wrong for {wrong} switch(es).", 0.0, True

    def step(self, action):
        """Run one test or judge a map."""
        if self.done:
            return "The episode is over; call reset() to play again.", 0.0, True, False, self.info()
        self.turn += 1
        box = extract_boxed(action)
        text = box.strip() if box is not None else ""
        lower = text.lower()
        if box is None:
            result = "No \\boxed{...} answer found; the board stays as it was."
        elif lower.startswith("test"):
            words = text[4:].upper().replace(",", " ").split()
            if words == ["NONE"]:
                words = []
            if any(w not in self.switches for w in words):
                result = f"Only switches {self.switches[0]}..{self.switches[-1]} can be turned on."
            else:
                on = [s for s in self.switches if s in words]
                lit = sorted(self.wire[s] for s in on)
                self.log.append((on, lit))
                result = f"Lamps lit: {', '.join(lit) or 'none'}."
        elif lower.startswith("map"):
            result, reward, finished = self.judge(text[3:])
            if finished:
                self.done = True
                return self.render(result), reward, True, False, self.info()
        else:
            result = f"'{text[:40]}' is neither a test nor a map."
        if self.turn >= self.limit:
            self.done = True
            return self.render(result + " Out of turns."), 0.0, True, False, self.info()
        return self.render(result), 0.0, False, False, self.info()

    def solution(self):
        """Binary-code tests (test k turns on switches whose code has bit k set), then the map."""
        others = [s for s in self.switches if s != self.note[0]]
        out = []
        for bit in range(bits_needed(len(others))):
            on = [s for i, s in enumerate(others) if (i >> bit) & 1]
            out.append("\\boxed{test " + (" ".join(on) if on else "none") + "}")
        out.append("\\boxed{map " + ", ".join(f"{s}={self.wire[s]}" for s in self.switches) + "}")
        return out

    def hint(self):
        """A nudge about the approach."""
        return ("Give every unknown switch a different on/off pattern across your tests, like "
                "the digits of a binary number; each lamp's lit/unlit pattern then names its "
                "switch.")
