"""BlackoutCascade: trace a recorded power blackout back to the substation(s) where it began."""

import itertools
import random

from spadegym.program import extract_boxed, read_difficulty

NAMES = [
    "Alder",
    "Birch",
    "Cedar",
    "Dune",
    "Elm",
    "Fjord",
    "Gale",
    "Heath",
    "Iris",
    "Juniper",
    "Kestrel",
    "Larch",
]


class BlackoutCascadeEnv:
    """Blackout Cascade: find where a recorded blackout started.

    Substations take power from the feeder lines shown. Each substation is either SINGLE-fed
    (it goes dark if any of its feeders is dark) or BACKED-UP (it stays lit while at least one
    feeder is lit); which is which is not shown. Last night some substations failed on their
    own and the failure cascaded; the record shows every substation that went dark. You may
    trip substations in the simulator and see which go dark. Name the origin(s).
    Actions: \\boxed{trip X} (or \\boxed{trip X Y} to trip two at once) runs the simulator;
    \\boxed{origin X} (or \\boxed{origin X Y}) names where the blackout began (final)."""

    max_turns = 9
    skill = "Causal_Inference"

    def reset(self, seed=None, options=None):
        """Build a feeder network, a hidden wiring kind per substation and a blackout."""
        self.rng = random.Random(seed)
        self.difficulty = read_difficulty(options, default=2)
        self.n = 6 + self.difficulty
        self.origins_count = 1 if self.difficulty <= 3 else 2
        for attempt in range(200):  # noqa: B007 (no leading-underscore names allowed)
            self.names = self.rng.sample(NAMES, self.n)
            self.feeders = []
            self.backed = []
            for v in range(self.n):
                if v < 2:
                    self.feeders.append([])
                    self.backed.append(False)
                else:
                    k = self.rng.randint(1, min(2, v))
                    self.feeders.append(sorted(self.rng.sample(range(v), k)))
                    self.backed.append(k > 1 and self.rng.random() < 0.5)
            self.origins = sorted(self.rng.sample(range(self.n), self.origins_count))
            self.blackout = self.cascade(self.origins)
            if len(self.blackout) < 3 + self.origins_count:
                continue
            others = [
                combo
                for combo in itertools.combinations(range(self.n), self.origins_count)
                if list(combo) != self.origins and self.cascade(list(combo)) == self.blackout
            ]
            if not others:
                break
        self.trips = []
        self.turn = 0
        self.done = False
        return self.render("The grid is restored; the blackout record is on file."), self.info()

    def cascade(self, tripped):
        """Set of substations dark after tripping `tripped`."""
        dark = set(tripped)
        for v in range(self.n):
            if v in dark or not self.feeders[v]:
                continue
            down = [f in dark for f in self.feeders[v]]
            if (self.backed[v] and all(down)) or (not self.backed[v] and any(down)):
                dark.add(v)
        return dark

    def names_of(self, group):
        """Names of substations, sorted."""
        return ", ".join(sorted(self.names[v] for v in group))

    def info(self):
        """Small JSON info for logs."""
        return {"turn": self.turn, "trips": len(self.trips)}

    def render(self, message):
        """The observation: progress, last result, state and actions."""
        lines = []
        for v in sorted(range(self.n), key=lambda x: self.names[x]):
            feeds = ", ".join(sorted(self.names[f] for f in self.feeders[v])) or "power plant"
            lines.append(f"  {self.names[v]} <- {feeds}")
        trips = "\n".join(f"  trip {a}: dark = {b}" for a, b in self.trips[-8:]) or "  (none)"
        count = "one substation" if self.origins_count == 1 else "two substations"
        return (
            f"Turn {self.turn} of {self.max_turns}.\n{message}\n\n"
            "Feeder lines (substation <- its feeders):\n" + "\n".join(lines) + "\n"
            f"Blackout record: dark = {self.names_of(self.blackout)}\n"
            f"The blackout began with {count} failing on its own.\n"
            f"Simulator runs:\n{trips}\n\n"
            "Actions: \\boxed{trip X}, \\boxed{trip X Y}, \\boxed{origin X}"
            + (" (name two: \\boxed{origin X Y})" if self.origins_count == 2 else "")
            + " (final)."
        )

    def parse(self, words):
        """Substation names to indices, or None if any is unknown."""
        lookup = {name.lower(): v for v, name in enumerate(self.names)}
        out = []
        for w in words:
            if w.lower() not in lookup:
                return None
            out.append(lookup[w.lower()])
        return sorted(set(out))

    def step(self, action):
        """Run the simulator or name the origin."""
        if self.done:
            return "The episode is over.", 0.0, True, False, self.info()
        self.turn += 1
        text = extract_boxed(action) if isinstance(action, str) else None
        words = text.replace(",", " ").split() if text else []
        verb = words[0].lower() if words else ""
        reward, terminated = 0.0, False
        group = self.parse(words[1:]) if len(words) >= 2 else None
        if verb in ("trip", "origin") and (group is None or not 1 <= len(group) <= 2):
            message = (
                "Name one or two listed substations, e.g. \\boxed{"
                + verb
                + " "
                + self.names[0]
                + "}."
            )
        elif verb == "trip":
            dark = self.cascade(group)
            self.trips.append((self.names_of(group), self.names_of(dark)))
            message = f"Simulator: tripping {self.names_of(group)} darkens {self.names_of(dark)}."
        elif verb == "origin":
            terminated = True
            if group == self.origins:
                reward = 1.0
                message = f"Correct: it began at {self.names_of(group)}. You win!"
            else:
                message = f"Wrong: it began at {self.names_of(self.origins)}. You lose."
        else:
            message = "Could not read the action. Use \\boxed{trip X} or \\boxed{origin X}."
        self.done = terminated
        truncated = not terminated and self.turn >= self.max_turns
        if truncated:
            message += " Out of turns."
            self.done = True
        return self.render(message), reward, terminated, truncated, self.info()

    def solution(self):
        """Trip the most upstream dark substation that is not an origin, then the origins."""
        moves = []
        decoys = [v for v in sorted(self.blackout) if v not in self.origins]
        if decoys:
            moves.append(f"\\boxed{{trip {self.names[decoys[0]]}}}")
        names = " ".join(self.names[v] for v in self.origins)
        moves.append(f"\\boxed{{trip {names}}}")
        return moves + [f"\\boxed{{origin {names}}}"]

    def hint(self):
        """A nudge toward the method."""
        return (
            "An origin must be dark in the record, and every dark substation must be explained "
            "by feeders going dark upstream. Start from the most upstream dark substations and "
            "check in the simulator that tripping them reproduces the record exactly."
        )
