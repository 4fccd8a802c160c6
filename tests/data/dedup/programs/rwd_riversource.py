"""Which mills are tainting the creek network? Test the water to find out."""

import random

from spadegym.program import extract_boxed

MILLS = ["Anvil", "Brass", "Cobalt", "Dye", "Enamel", "Flux", "Glaze", "Hemp", "Ink", "Jute",
         "Kiln", "Lacquer"]


class CreekTaintEnv:
    """Creek Taint: identify the mills that leak pigment into a branching creek.

    Checkpoints form a tree; water runs from each checkpoint to the one beneath it and then to
    the ocean. Every mill empties into one checkpoint. Each leaking mill releases a fixed
    quantity of pigment, and a water test at a checkpoint reports all pigment from leaking
    mills at that checkpoint or anywhere above it. The amount reaching the ocean is given.
    Test checkpoints (a turn each), then name precisely the leaking mills.
    Replies: \\boxed{sample Sk} tests checkpoint k; \\boxed{accuse F1 F2 ...} names the leakers
    and ends the game."""

    skill = "Causal_Inference"
    max_turns = 10

    def reset(self, seed=None, options=None):
        """Lay out the creek, the mills and the leakers."""
        self.rng = random.Random(seed)
        lvl = 2
        if isinstance(options, dict) and isinstance(options.get("difficulty", 2), int):
            lvl = max(1, min(5, options.get("difficulty", 2)))
        self.lvl = lvl
        self.size = 6 + lvl * 2
        self.below = [-1]
        i = 1
        while i < self.size:
            self.below.append(self.rng.randrange(max(0, i - 4), i))
            i += 1
        picked = self.rng.sample(MILLS, min(self.size, lvl + 5))
        spots = self.rng.sample(range(self.size), len(picked))
        self.where = {}
        for name, spot in zip(picked, spots):
            self.where[name] = spot
        if lvl == 1:
            leaks = 1
        elif lvl <= 3:
            leaks = 2
        else:
            leaks = 3
        self.leakers = sorted(self.rng.sample(picked, leaks))
        self.dose = {}
        for name in self.leakers:
            self.dose[name] = self.rng.randint(2, 9)
        self.tests = {}
        self.t = 0
        self.over = False
        return self.page("Testing starts."), {"turn": 0, "samples": 0}

    def solution(self):
        """Test each leaker's checkpoint, then name them."""
        replies = ["\\boxed{sample S" + str(self.where[m] + 1) + "}" for m in self.leakers]
        replies.append("\\boxed{accuse " + " ".join(self.leakers) + "}")
        return replies

    def hint(self):
        """Method only."""
        return ("The pigment at a checkpoint minus what flows in from the checkpoints feeding it is "
                "what is released there. Test at forks to split the search and follow branches "
                "that carry pigment.")

    def measure(self, spot):
        """Pigment found at a checkpoint."""
        basin = {spot}
        grew = True
        while grew:
            grew = False
            for k in range(self.size):
                if k not in basin and self.below[k] in basin:
                    basin.add(k)
                    grew = True
        total = 0
        for name, amount in self.dose.items():
            if self.where[name] in basin:
                total += amount
        return total

    def step(self, action):
        """Test a checkpoint or name the leakers."""
        if self.over:
            return "The game has finished.", 0.0, True, False, {"turn": self.t, "samples": len(self.tests)}
        self.t += 1
        content = extract_boxed(action) if isinstance(action, str) else None
        parts = content.replace(",", " ").split() if content else []
        head = parts[0].lower() if parts else ""
        reward = 0.0
        ended = False
        names = {m.lower(): m for m in self.where}
        if head == "sample" and len(parts) == 2:
            label = parts[1].upper().lstrip("S")
            if label.isdigit() and len(label) < 4 and 1 <= int(label) <= self.size:
                spot = int(label) - 1
                self.tests[spot] = self.measure(spot)
                note = f"Test at S{spot + 1}: {self.tests[spot]} units of pigment."
            else:
                note = f"Checkpoints run from S1 to S{self.size}."
        elif head == "accuse" and len(parts) > 1:
            named = [names.get(p.lower()) for p in parts[1:]]
            if any(n is None for n in named):
                note = "Only listed mills may be named: " + ", ".join(sorted(self.where)) + "."
            else:
                ended = True
                if sorted(set(named)) == self.leakers:
                    reward = 1.0
                    note = "Right: " + ", ".join(self.leakers) + " were leaking. Victory!"
                else:
                    note = "Not quite: the leakers were " + ", ".join(self.leakers) + ". Defeat."
        else:
            note = "Unreadable reply. Try \\boxed{sample Sk} or \\boxed{accuse F1 F2}."
        self.over = ended
        cut = (not ended) and self.t >= self.max_turns
        if cut:
            note = note + " No turns remain."
            self.over = True
        return self.page(note), reward, ended, cut, {"turn": self.t, "samples": len(self.tests)}

    def page(self, note):
        """Observation text."""
        out = [f"{self.max_turns - self.t} turn(s) left.", note, "", "Creek layout:"]
        for k in range(self.size):
            target = "the ocean" if self.below[k] < 0 else "S" + str(self.below[k] + 1)
            local = sorted([m for m, s in self.where.items() if s == k])
            extra = "; mills: " + ", ".join(local) if local else ""
            out.append(f"  S{k + 1} drains to {target}{extra}")
        done = ", ".join(f"S{k + 1}={v}" for k, v in sorted(self.tests.items()))
        out.append(f"Pigment reaching the ocean: {self.measure(0)} units.")
        out.append("Tests so far: " + (done or "none"))
        out.append("")
        out.append("Replies: \\boxed{sample Sk} (say \\boxed{sample S3}) or \\boxed{accuse F1 F2 ...} (final).")
        return "\n".join(out)
