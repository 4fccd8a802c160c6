"""RiverSourceTrace: find the polluting factories on a branching river by sampling the water."""

import random

from spadegym.program import extract_boxed, read_difficulty

FACTORIES = [
    "Anvil",
    "Brass",
    "Cobalt",
    "Dye",
    "Enamel",
    "Flux",
    "Glaze",
    "Hemp",
    "Ink",
    "Jute",
    "Kiln",
    "Lacquer",
]


class RiverSourceTraceEnv:
    """River Source Trace: find which factories pollute a branching river.

    The river is a tree of monitoring stations: water flows from each station to the one
    below it and finally to the sea. Each factory drains into one station. The polluting
    factories each release a fixed amount of dye; a water sample at a station measures the
    total dye from every polluting factory at that station or anywhere upstream of it. The
    reading at the sea is known. Sample stations (each sample takes a turn), then name
    exactly the polluting factories.
    Actions: \\boxed{sample Sk} measures station k; \\boxed{accuse F1 F2 ...} names the
    polluters (final)."""

    max_turns = 10
    skill = "Causal_Inference"

    def reset(self, seed=None, options=None):
        """Draw a river tree, factories and polluters."""
        self.rng = random.Random(seed)
        self.difficulty = read_difficulty(options, default=2)
        self.n = 6 + 2 * self.difficulty
        self.down = [-1]
        for i in range(1, self.n):
            self.down.append(self.rng.randrange(max(0, i - 4), i))
        sites = self.rng.sample(range(self.n), min(self.n, 5 + self.difficulty))
        names = self.rng.sample(FACTORIES, len(sites))
        self.factories = dict(zip(names, sites))
        count = 1 if self.difficulty == 1 else 2 if self.difficulty <= 3 else 3
        self.polluters = sorted(self.rng.sample(names, count))
        self.amounts = {f: self.rng.randint(2, 9) for f in self.polluters}
        self.samples = {}
        self.turn = 0
        self.done = False
        return self.render("Monitoring begins."), self.info()

    def upstream(self, station):
        """All stations whose water passes through `station` (itself included)."""
        found = {station}
        changed = True
        while changed:
            changed = False
            for i in range(self.n):
                if i not in found and self.down[i] in found:
                    found.add(i)
                    changed = True
        return found

    def reading(self, station):
        """Dye measured at a station."""
        area = self.upstream(station)
        return sum(a for f, a in self.amounts.items() if self.factories[f] in area)

    def info(self):
        """Small JSON info for logs."""
        return {"turn": self.turn, "samples": len(self.samples)}

    def render(self, message):
        """The observation: progress, last result, state and actions."""
        lines = []
        for i in range(self.n):
            into = "the sea" if self.down[i] < 0 else f"S{self.down[i] + 1}"
            here = sorted(f for f, s in self.factories.items() if s == i)
            drains = f"; factories: {', '.join(here)}" if here else ""
            lines.append(f"  S{i + 1} flows into {into}{drains}")
        samples = ", ".join(f"S{i + 1}={v}" for i, v in sorted(self.samples.items())) or "none"
        return (
            f"Turn {self.turn} of {self.max_turns}.\n{message}\n\n"
            "River map:\n" + "\n".join(lines) + "\n"
            f"Dye reaching the sea: {self.reading(0)} units.\nYour samples: {samples}\n\n"
            "Actions: \\boxed{sample Sk} (e.g. \\boxed{sample S3}); \\boxed{accuse F1 F2 ...} (final)."
        )

    def step(self, action):
        """Sample a station or accuse factories."""
        if self.done:
            return "The episode is over.", 0.0, True, False, self.info()
        self.turn += 1
        text = extract_boxed(action) if isinstance(action, str) else None
        words = text.replace(",", " ").split() if text else []
        verb = words[0].lower() if words else ""
        reward, terminated = 0.0, False
        lookup = {f.lower(): f for f in self.factories}
        if verb == "sample" and len(words) == 2:
            w = words[1].upper().lstrip("S")
            if not (w.isdigit() and len(w) < 4 and 1 <= int(w) <= self.n):
                message = f"Stations are S1-S{self.n}."
            else:
                i = int(w) - 1
                self.samples[i] = self.reading(i)
                message = f"Sample at S{i + 1}: {self.samples[i]} units of dye."
        elif verb == "accuse" and len(words) >= 2:
            chosen = [lookup.get(w.lower()) for w in words[1:]]
            if None in chosen:
                message = f"Name only listed factories: {', '.join(sorted(self.factories))}."
            else:
                terminated = True
                if sorted(set(chosen)) == self.polluters:
                    reward = 1.0
                    message = f"Correct: {', '.join(self.polluters)} polluted the river. You win!"
                else:
                    message = f"Wrong: the polluters were {', '.join(self.polluters)}. You lose."
        else:
            message = "Could not read the action. Use \\boxed{sample Sk} or \\boxed{accuse F1 F2}."
        self.done = terminated
        truncated = not terminated and self.turn >= self.max_turns
        if truncated:
            message += " Out of turns."
            self.done = True
        return self.render(message), reward, terminated, truncated, self.info()

    def solution(self):
        """Sample the station of each polluter to confirm its release, then accuse."""
        moves = []
        for f in self.polluters:
            station = self.factories[f]
            moves.append(f"\\boxed{{sample S{station + 1}}}")
        return moves + ["\\boxed{accuse " + " ".join(self.polluters) + "}"]

    def hint(self):
        """A nudge toward the method."""
        return (
            "A station's reading minus the readings of the stations flowing into it is the dye "
            "released right there. Sample where the river splits to halve the search, and "
            "follow the branches that carry dye."
        )
