"""Read the alibis and name the only suspect who could have done it."""

import random

from spadegym.program import extract_boxed

PEOPLE = ["baron", "countess", "doctor", "gardener", "butler", "chef", "maid", "colonel"]
ROOMS = ["library", "kitchen", "hall", "study", "cellar", "ballroom"]


def level_of(options, default):
    """The difficulty 1..5 in ``options``, else ``default``."""
    value = options.get("difficulty", default) if isinstance(options, dict) else default
    if isinstance(value, bool) or not isinstance(value, int):
        return default
    return min(5, max(1, value))


class AlibiCheckEnv:
    """Alibi Check: the crime happened in one room at one hour; who had no alibi?

    Witness statements place suspects in rooms at given hours. Exactly one suspect cannot be
    placed anywhere other than the crime scene at the time of the crime. Name that suspect,
    e.g. \\boxed{butler}. One try.
    """

    max_turns = 1
    skill = "Logical_Deduction"

    def reset(self, seed=None, options=None):
        self.rng = random.Random(seed)
        level = level_of(options, 2)
        self.suspects = self.rng.sample(PEOPLE, 3 + level)
        self.scene = self.rng.choice(ROOMS)
        self.hour = self.rng.randint(8, 11)
        self.culprit = self.rng.choice(self.suspects)
        self.notes = []
        for person in self.suspects:
            if person == self.culprit:
                other = self.rng.choice([h for h in range(7, 13) if h != self.hour])
                self.notes.append(f"{person} was seen in the {self.rng.choice(ROOMS)} at {other}:00")
            else:
                room = self.rng.choice([r for r in ROOMS if r != self.scene])
                self.notes.append(f"{person} was seen in the {room} at {self.hour}:00")
        self.rng.shuffle(self.notes)
        return self.render(), {}

    def render(self):
        return (f"The crime happened in the {self.scene} at {self.hour}:00.\nSuspects: "
                f"{', '.join(sorted(self.suspects))}.\nWitnesses say:\n"
                + "\n".join("  " + n for n in self.notes)
                + "\nWho has no alibi for the crime? Answer \\boxed{name}.")

    def step(self, action):
        said = (extract_boxed(action) or "").strip().lower()
        if said == self.culprit:
            return "Correct. You win!", 1.0, True, False, {}
        return "Wrong suspect.", 0.0, True, False, {}

    def solution(self):
        return ["\\boxed{" + self.culprit + "}"]
