"""Find the station where a grid failure started."""

import itertools
import random

from spadegym.program import extract_boxed

STATIONS = ["Alder", "Birch", "Cedar", "Dune", "Elm", "Fjord", "Gale", "Heath", "Iris", "Juniper",
            "Kestrel", "Larch"]


class GridFailureSourceEnv:
    """Grid Failure Source: locate where last night's outage began.

    Each station draws power through the supply lines listed. A station is either SINGLE-fed
    (it loses power if any supplier loses power) or BACKED-UP (it keeps power while any
    supplier has power); which kind each station is stays hidden. Some stations failed by
    themselves last night and the failure spread; the log lists every station that lost power.
    In the simulator you may trip stations and see which lose power. Identify the origin(s).
    Replies: \\boxed{trip X} (or \\boxed{trip X Y} to trip two together) runs the simulator;
    \\boxed{origin X} (or \\boxed{origin X Y}) names where the outage started and ends the game."""

    skill = "Causal_Inference"
    max_turns = 9

    def solution(self):
        """Trip the first non-origin dark station, then the origins, then name them."""
        replies = []
        innocent = [s for s in sorted(self.outage) if s not in self.sources]
        if innocent:
            replies.append("\\boxed{trip " + self.label[innocent[0]] + "}")
        named = " ".join([self.label[s] for s in self.sources])
        replies.append("\\boxed{trip " + named + "}")
        replies.append("\\boxed{origin " + named + "}")
        return replies

    def spread(self, tripped):
        """Stations without power after tripping ``tripped``."""
        down = set(tripped)
        for s in range(self.size):
            if s in down or len(self.supply[s]) == 0:
                continue
            lost = [u in down for u in self.supply[s]]
            if self.backup[s]:
                if all(lost):
                    down.add(s)
            elif any(lost):
                down.add(s)
        return down

    def reset(self, seed=None, options=None):
        """Wire a grid and stage an outage."""
        self.rng = random.Random(seed)
        level = 2
        if isinstance(options, dict) and isinstance(options.get("difficulty", 2), int):
            level = max(1, min(5, options.get("difficulty", 2)))
        self.level = level
        self.size = level + 6
        self.k = 2 if level > 3 else 1
        for attempt in range(200):  # noqa: B007
            self.label = self.rng.sample(STATIONS, self.size)
            self.supply = []
            self.backup = []
            for s in range(self.size):
                if s >= 2:
                    count = self.rng.randint(1, min(2, s))
                    self.supply.append(sorted(self.rng.sample(range(s), count)))
                    self.backup.append(count > 1 and self.rng.random() < 0.5)
                else:
                    self.supply.append([])
                    self.backup.append(False)
            self.sources = sorted(self.rng.sample(range(self.size), self.k))
            self.outage = self.spread(self.sources)
            if len(self.outage) < self.k + 3:
                continue
            ambiguous = False
            for combo in itertools.combinations(range(self.size), self.k):
                if list(combo) != self.sources and self.spread(list(combo)) == self.outage:
                    ambiguous = True
                    break
            if not ambiguous:
                break
        self.runs = []
        self.t = 0
        self.over = False
        return self.page("Power is back; last night's outage log is on file."), {"turn": 0, "trips": 0}

    def listing(self, group):
        return ", ".join(sorted([self.label[s] for s in group]))

    def page(self, note):
        rows = [f"{self.max_turns - self.t} turn(s) left.", note, "", "Supply lines (station <- suppliers):"]
        for s in sorted(range(self.size), key=lambda x: self.label[x]):
            suppliers = ", ".join(sorted(self.label[u] for u in self.supply[s]))
            rows.append(f"  {self.label[s]} <- {suppliers or 'power plant'}")
        rows.append(f"Outage log: dark = {self.listing(self.outage)}")
        rows.append("The outage began with " + ("one station" if self.k == 1 else "two stations")
                    + " failing by itself.")
        rows.append("Simulator runs:")
        rows += [f"  trip {a}: dark = {b}" for a, b in self.runs[-8:]] or ["  (none)"]
        rows.append("")
        tail = " (name two: \\boxed{origin X Y})" if self.k == 2 else ""
        rows.append("Replies: \\boxed{trip X}, \\boxed{trip X Y}, \\boxed{origin X}" + tail + " (final).")
        return "\n".join(rows)

    def step(self, action):
        """Run the simulator or name the origin."""
        if self.over:
            return "Game over.", 0.0, True, False, {"turn": self.t, "trips": len(self.runs)}
        self.t += 1
        content = extract_boxed(action) if isinstance(action, str) else None
        tokens = content.replace(",", " ").split() if content else []
        verb = tokens[0].lower() if tokens else ""
        group = None
        if len(tokens) > 1:
            index = {name.lower(): s for s, name in enumerate(self.label)}
            picked = []
            for token in tokens[1:]:
                if token.lower() not in index:
                    picked = None
                    break
                picked.append(index[token.lower()])
            group = sorted(set(picked)) if picked is not None else None
        reward = 0.0
        ended = False
        if verb in ("trip", "origin") and (group is None or len(group) < 1 or len(group) > 2):
            note = "Name one or two listed stations, such as \\boxed{" + verb + " " + self.label[0] + "}."
        elif verb == "origin":
            ended = True
            if group == self.sources:
                reward = 1.0
                note = f"Right: it started at {self.listing(group)}. Victory!"
            else:
                note = f"Not right: it started at {self.listing(self.sources)}. Defeat."
        elif verb == "trip":
            down = self.spread(group)
            self.runs.append((self.listing(group), self.listing(down)))
            note = f"Simulator: tripping {self.listing(group)} darkens {self.listing(down)}."
        else:
            note = "Unreadable reply. Use \\boxed{trip X} or \\boxed{origin X}."
        self.over = ended
        cut = not ended and self.t >= self.max_turns
        if cut:
            note += " No turns remain."
            self.over = True
        return self.page(note), reward, ended, cut, {"turn": self.t, "trips": len(self.runs)}

    def hint(self):
        """Method only."""
        return ("An origin has to be dark in the log, and every dark station must be explained by "
                "suppliers failing upstream. Begin with the most upstream dark stations and check "
                "in the simulator that tripping them reproduces the log exactly.")
