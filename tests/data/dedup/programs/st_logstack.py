"""Choose logs whose lengths add up exactly to a beam length."""

import random

from spadegym.program import extract_boxed


def level_of(options, default):
    """The difficulty 1..5 in ``options``, else ``default``."""
    value = options.get("difficulty", default) if isinstance(options, dict) else default
    if isinstance(value, bool) or not isinstance(value, int):
        return default
    return min(5, max(1, value))


class BeamFromLogsEnv:
    """Beam From Logs: pick logs whose lengths sum exactly to the beam you must build.

    Logs of several lengths lie in the yard. Glue some of them end to end to make a beam of
    exactly the target length; each log can be used once. Answer the log numbers, e.g.
    \\boxed{1 4 5}. Three tries.
    """

    max_turns = 3
    skill = "Optimization"

    def reset(self, seed=None, options=None):
        self.rng = random.Random(seed)
        level = level_of(options, 2)
        self.logs = [self.rng.randint(2, 19) for _ in range(5 + level)]
        chosen = self.rng.sample(range(len(self.logs)), 3)
        self.target = sum(self.logs[i] for i in chosen)
        self.plan = sorted(chosen)
        self.tries = 0
        return self.render("The yard is stocked."), {"tries": 0}

    def render(self, note):
        logs = ", ".join(f"{i + 1}:{x}" for i, x in enumerate(self.logs))
        return (f"{note}\nLogs (number:length): {logs}\nTarget beam length: {self.target}.\n"
                f"Answer the log numbers in a box. Tries used {self.tries} of 3.")

    def step(self, action):
        self.tries += 1
        words = (extract_boxed(action) or "").replace(",", " ").split()
        picks = [int(w) - 1 for w in words if w.isdigit() and len(w) < 3]
        ok = (len(picks) == len(words) and picks and len(set(picks)) == len(picks)
              and all(0 <= i < len(self.logs) for i in picks))
        if ok and sum(self.logs[i] for i in picks) == self.target:
            return "The beam fits exactly. You win!", 1.0, True, False, {"tries": self.tries}
        if self.tries >= 3:
            return "Out of tries.", 0.0, True, False, {"tries": self.tries}
        return self.render("That does not make the target."), 0.0, False, False, {"tries": self.tries}

    def solution(self):
        return ["\\boxed{" + " ".join(str(i + 1) for i in self.plan) + "}"]
