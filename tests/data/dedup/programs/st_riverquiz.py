"""Predict what a water sample shows on a branching river."""

import random

from spadegym.program import extract_boxed


def level_of(options, default):
    """The difficulty 1..5 in ``options``, else ``default``."""
    value = options.get("difficulty", default) if isinstance(options, dict) else default
    if isinstance(value, bool) or not isinstance(value, int):
        return default
    return min(5, max(1, value))


class RiverSampleQuizEnv:
    """River Sample Quiz: compute the dye a water sample would show.

    A river is a tree of stations: water flows from each station into the one below it and
    finally to the sea. Factories at some stations release known amounts of dye. A sample at a
    station measures the dye released at that station and everywhere upstream of it. Answer
    the reading at the asked station, e.g. \\boxed{17}. One try.
    """

    max_turns = 1
    skill = "Causal_Inference"

    def reset(self, seed=None, options=None):
        self.rng = random.Random(seed)
        level = level_of(options, 2)
        self.n = 6 + 2 * level
        self.down = [-1] + [self.rng.randrange(max(0, i - 3), i) for i in range(1, self.n)]
        self.dye = {s: self.rng.randint(1, 9) for s in self.rng.sample(range(self.n), 3 + level)}
        self.asked = self.rng.randrange(1, self.n)
        while not self.upstream(self.asked) - {self.asked}:
            self.asked = self.rng.randrange(1, self.n)
        return self.render(), {}

    def upstream(self, station):
        found = {station}
        grew = True
        while grew:
            grew = False
            for i in range(self.n):
                if i not in found and self.down[i] in found:
                    found.add(i)
                    grew = True
        return found

    def render(self):
        lines = []
        for i in range(self.n):
            into = "the sea" if self.down[i] < 0 else f"S{self.down[i] + 1}"
            dye = f"; releases {self.dye[i]} units" if i in self.dye else ""
            lines.append(f"  S{i + 1} flows into {into}{dye}")
        return ("River map:\n" + "\n".join(lines) + f"\nWhat does a sample at S{self.asked + 1} read? "
                "Answer \\boxed{N}.")

    def step(self, action):
        truth = sum(self.dye.get(s, 0) for s in self.upstream(self.asked))
        said = (extract_boxed(action) or "").strip()
        if said == str(truth):
            return "Correct. You win!", 1.0, True, False, {}
        return f"Wrong: the reading is {truth}.", 0.0, True, False, {}

    def solution(self):
        return ["\\boxed{" + str(sum(self.dye.get(s, 0) for s in self.upstream(self.asked))) + "}"]
