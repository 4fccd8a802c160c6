"""RationMixer: mix whole units of feed to meet every nutrient minimum at the lowest cost."""

import itertools
import random

from spadegym.program import extract_boxed, read_difficulty

FEEDS = ["oats", "beans", "kelp", "millet", "clover", "barley", "lentils", "turnips"]
NUTRIENTS = ["protein", "fibre", "iron", "zinc"]


def cheapest_mix(costs, content, needs, cap):
    """Exhaustive search over whole-unit mixes (0..cap of each feed).

    Returns (lowest cost, one cheapest mix) or (None, None) when no mix meets the needs."""
    best, best_mix = None, None
    for mix in itertools.product(range(cap + 1), repeat=len(costs)):
        cost = sum(c * q for c, q in zip(costs, mix))
        if best is not None and cost >= best:
            continue
        if all(
            sum(content[f][n] * mix[f] for f in range(len(costs))) >= needs[n]
            for n in range(len(needs))
        ):
            best, best_mix = cost, list(mix)
    return best, best_mix


class RationMixerEnv:
    """Ration Mixer: blend feeds to meet nutrient minimums as cheaply as possible.

    Each feed has a cost per unit and gives fixed amounts of each nutrient per unit. Set how
    many whole units of each feed go into the ration (at most the cap per feed); the current
    totals are shown after every change. Serve the ration when you are done: you win if it
    meets every minimum at the lowest possible cost (a dearer valid ration earns partial
    credit; a ration that misses a minimum earns nothing).
    Actions: \\boxed{set FEED N} sets the units of FEED to N; \\boxed{serve}."""

    max_turns = 10
    skill = "Optimization"

    def reset(self, seed=None, options=None):
        """Draw feeds and minimums whose cheapest ration needs at least two feeds."""
        self.rng = random.Random(seed)
        self.difficulty = read_difficulty(options, default=2)
        d = self.difficulty
        feeds = 3 if d == 1 else 4 if d <= 3 else 5
        nutrients = 2 if d <= 2 else 3 if d <= 4 else 4
        self.cap = 5 if feeds <= 4 else 4
        for attempt in range(60):  # noqa: B007 (no leading-underscore names allowed)
            self.feeds = self.rng.sample(FEEDS, feeds)
            self.nutrients = NUTRIENTS[:nutrients]
            self.costs = [self.rng.randint(2, 9) for f in range(feeds)]
            self.content = [
                [self.rng.choice([0, 0, 1, 2, 3, 4, 5]) for n in range(nutrients)]
                for f in range(feeds)
            ]
            self.needs = [self.rng.randint(8, 16) for n in range(nutrients)]
            self.optimum, self.best_mix = cheapest_mix(
                self.costs, self.content, self.needs, self.cap
            )
            if self.optimum is not None and sum(1 for q in self.best_mix if q) >= 2 + (d >= 4):
                break
        self.amounts = [0] * feeds
        self.turn = 0
        self.done = False
        return self.render("The trough is empty."), self.info()

    def totals(self):
        """Nutrient totals of the current ration."""
        return [
            sum(self.content[f][n] * self.amounts[f] for f in range(len(self.feeds)))
            for n in range(len(self.nutrients))
        ]

    def cost(self):
        """Cost of the current ration."""
        return sum(c * q for c, q in zip(self.costs, self.amounts))

    def info(self):
        """Small JSON info for logs."""
        return {"turn": self.turn, "cost": self.cost()}

    def render(self, message):
        """The observation: progress, last result, state and actions."""
        rows = []
        for f, name in enumerate(self.feeds):
            gives = ", ".join(
                f"{self.content[f][n]} {self.nutrients[n]}" for n in range(len(self.nutrients))
            )
            rows.append(
                f"  {name:8s} cost {self.costs[f]}/unit, gives {gives} per unit; in ration: {self.amounts[f]}"
            )
        totals = self.totals()
        status = ", ".join(
            f"{self.nutrients[n]} {totals[n]}/{self.needs[n]}"
            + (" ok" if totals[n] >= self.needs[n] else " SHORT")
            for n in range(len(self.nutrients))
        )
        return (
            f"Turn {self.turn} of {self.max_turns}.\n{message}\n\n"
            "Feeds (at most " + str(self.cap) + " units each):\n" + "\n".join(rows) + "\n"
            f"Ration totals vs minimums: {status}. Ration cost {self.cost()}.\n\n"
            "Actions: \\boxed{set FEED N} (e.g. \\boxed{set "
            + self.feeds[0]
            + " 2}), \\boxed{serve}."
        )

    def step(self, action):
        """Change one feed amount or serve."""
        if self.done:
            return "The episode is over.", 0.0, True, False, self.info()
        self.turn += 1
        text = extract_boxed(action) if isinstance(action, str) else None
        words = text.lower().split() if text else []
        reward, terminated = 0.0, False
        if words == ["serve"]:
            terminated = True
            short = [self.nutrients[n] for n, t in enumerate(self.totals()) if t < self.needs[n]]
            if short:
                message = f"Served, but the ration is short of {', '.join(short)}. You lose."
            elif self.cost() == self.optimum:
                reward = 1.0
                message = f"Served at cost {self.cost()}, the cheapest possible. You win!"
            else:
                reward = round(0.5 * self.optimum / self.cost(), 3)
                message = f"Served at cost {self.cost()}; a cheaper valid ration exists. Partial credit {reward}."
        elif len(words) == 3 and words[0] == "set" and words[2].isdigit() and len(words[2]) < 4:
            if words[1] not in self.feeds:
                message = f"Unknown feed '{words[1][:20]}'; feeds are {', '.join(self.feeds)}."
            elif int(words[2]) > self.cap:
                message = f"At most {self.cap} units of each feed."
            else:
                self.amounts[self.feeds.index(words[1])] = int(words[2])
                message = f"{words[1]} set to {words[2]} units."
        else:
            message = "Could not read the action. Use \\boxed{set FEED N} or \\boxed{serve}."
        self.done = terminated
        truncated = not terminated and self.turn >= self.max_turns
        if truncated:
            message += " Out of turns."
            self.done = True
        return self.render(message), reward, terminated, truncated, self.info()

    def solution(self):
        """Set each feed to its amount in a cheapest mix found by exhaustive search, then serve."""
        moves = [
            f"\\boxed{{set {self.feeds[f]} {q}}}"
            for f, q in enumerate(self.best_mix)
            if q != self.amounts[f]
        ]
        return moves + ["\\boxed{serve}"]

    def hint(self):
        """A nudge toward the method."""
        return (
            "Compare feeds by cost per unit of the nutrient that is hardest to meet, build a "
            "valid ration, then try removing a unit or swapping a dear feed for a cheaper mix."
        )
