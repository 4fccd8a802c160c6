"""Tell genuine growth boosters from coincidences in a plant nursery."""

import random

from spadegym.program import extract_boxed

TREATMENTS = ["compost", "lamp", "mist", "music", "bluepot", "seaweed", "shade", "heatmat"]


class NurseryFactorsEnv:
    """Nursery Factors: decide which treatments truly alter how tall seedlings grow.

    A seedling can receive any mix of on/off treatments. A few treatments raise or lower the
    final height; the others are useless. The nursery's logbook is available, but its
    treatments were not handed out at random, so some useless ones appear to work. Raise
    test seedlings with treatments you pick (each seedling varies by a couple of cm), then
    list exactly the treatments that matter.
    Replies: \\boxed{grow compost=1 lamp=0 ...} (treatments left out are off);
    \\boxed{answer T1 T2 ...} gives the effective treatments and ends the game
    (\\boxed{answer none} if there are none)."""

    skill = "Causal_Inference"
    max_turns = 12

    def hint(self):
        """Method only."""
        return ("The logbook is misleading because treatments there go together. Raise one "
                "untreated seedling, then seedlings that differ from it by a single treatment, and "
                "only trust differences bigger than the seedling-to-seedling spread.")

    def solution(self):
        """A bare seedling, one seedling per treatment alone, then the answer."""
        plan = ["\\boxed{grow}"] + ["\\boxed{grow " + t + "=1}" for t in self.names]
        plan.append("\\boxed{answer " + " ".join(sorted(self.real)) + "}")
        return plan

    def grow(self, mix):
        """Final height of a seedling with treatments ``mix``."""
        jitter = self.rng.randint(-self.spread, self.spread)
        total = self.base
        for t in self.names:
            total += self.impact[t] * mix.get(t, 0)
        return total + jitter

    def reset(self, seed=None, options=None):
        """Draw effects, a biased logbook and the noise."""
        self.rng = random.Random(seed)
        level = 2
        if isinstance(options, dict) and isinstance(options.get("difficulty", 2), int):
            level = min(5, max(1, options.get("difficulty", 2)))
        self.level = level
        n = 2 + (level + 1) // 2
        self.names = self.rng.sample(TREATMENTS, n)
        self.real = self.rng.sample(self.names, self.rng.randint(1, min(3, n - 1)))
        self.impact = {}
        for t in self.names:
            if t not in self.real:
                self.impact[t] = 0
                continue
            magnitude = self.rng.randint(5, 12)
            if self.rng.random() < 0.75:
                self.impact[t] = magnitude
            else:
                self.impact[t] = -magnitude
        self.base = self.rng.randint(20, 40)
        self.spread = 2 if level >= 4 else 1
        fake = self.rng.choice([t for t in self.names if t not in self.real])
        strongest = max(self.real, key=lambda t: self.impact[t])
        self.logbook = []
        while len(self.logbook) < 8:
            favoured = self.rng.random() < 0.5
            mix = {}
            for t in self.names:
                if t == fake or t == strongest:
                    mix[t] = int(favoured) if self.rng.random() < 0.9 else int(not favoured)
                else:
                    mix[t] = self.rng.randint(0, 1)
            self.logbook.append((mix, self.grow(mix)))
        self.tests = []
        self.t = 0
        self.over = False
        return self.screen("The nursery is open."), {"turn": 0, "trials": 0}

    def label(self, mix):
        active = [t for t in self.names if mix.get(t, 0)]
        return "+".join(active) if active else "nothing"

    def screen(self, note):
        book = "\n".join(["  " + self.label(m) + ": " + str(h) + " cm" for m, h in self.logbook])
        mine = "\n".join(["  " + self.label(m) + ": " + str(h) + " cm" for m, h in self.tests[-10:]])
        return (f"{note}\nTurn {self.t}/{self.max_turns}.\n\n"
                f"Treatments available: {', '.join(self.names)}\n"
                f"Nursery logbook (active treatments: height):\n{book}\n"
                f"Your test seedlings:\n{mine or '  (none)'}\n\n"
                "Replies: \\boxed{grow " + self.names[0] + "=1 " + self.names[1] + "=0} "
                "(others off), or \\boxed{answer T1 T2} to finish.")

    def step(self, action):
        """Raise a test seedling or give the answer."""
        if self.over:
            return "Game over.", 0.0, True, False, {"turn": self.t, "trials": len(self.tests)}
        self.t += 1
        content = extract_boxed(action) if isinstance(action, str) else None
        tokens = content.lower().replace(",", " ").split() if content else []
        head = tokens[0] if tokens else ""
        reward = 0.0
        ended = False
        if head == "grow":
            mix = {}
            error = ""
            for token in tokens[1:]:
                bits = token.split("=")
                if len(bits) == 1 and bits[0] in self.names:
                    bits = [bits[0], "1"]
                if len(bits) != 2 or bits[0] not in self.names or bits[1] not in ("0", "1"):
                    error = f"'{token[:20]}' should be TREATMENT=0 or TREATMENT=1 for a listed treatment."
                    break
                mix[bits[0]] = int(bits[1])
            if error:
                note = error + " No seedling was raised."
            else:
                height = self.grow(mix)
                self.tests.append((mix, height))
                note = f"Raised a seedling with {self.label(mix)}: {height} cm."
        elif head == "answer" and len(tokens) > 1:
            picked = {t for t in tokens[1:] if t != "none"}
            if not picked <= set(self.names):
                note = "Only listed treatments (or none) may be named. No answer recorded."
            else:
                ended = True
                truth = ", ".join(sorted(self.real))
                if picked == set(self.real):
                    reward = 1.0
                    note = f"Right: only {truth} affect height. Victory!"
                else:
                    note = f"Not right: the treatments that matter were {truth}. Defeat."
        else:
            note = "Unreadable reply. Use \\boxed{grow T=1 ...} or \\boxed{answer T1 T2}."
        self.over = ended
        cut = not ended and self.t >= self.max_turns
        if cut:
            note += " No turns remain."
            self.over = True
        return self.screen(note), reward, ended, cut, {"turn": self.t, "trials": len(self.tests)}
