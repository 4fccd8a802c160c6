"""Spot the card that breaks the pattern."""

import random

from spadegym.program import extract_boxed

COLORS = ["red", "green", "blue", "yellow"]
SHAPES = ["circle", "star", "square", "cross"]


def level_of(options, default):
    """The difficulty 1..5 in ``options``, else ``default``."""
    value = options.get("difficulty", default) if isinstance(options, dict) else default
    if isinstance(value, bool) or not isinstance(value, int):
        return default
    return min(5, max(1, value))


class OddCardOutEnv:
    """Odd Card Out: every round, one card does not share the attribute the others share.

    Each round shows a few cards; all but one share a colour, a shape or a count. Name the odd
    card by its position, e.g. \\boxed{3}. Get every round right to win; a wrong pick loses.
    """

    max_turns = 6
    skill = "Pattern_Recognition"

    def reset(self, seed=None, options=None):
        self.rng = random.Random(seed)
        level = level_of(options, 2)
        self.rounds = []
        for _ in range(2 + level // 2):
            rule = self.rng.choice(["color", "shape", "count"])
            size = 4 + level // 2
            common = {"color": self.rng.randrange(4), "shape": self.rng.randrange(4),
                      "count": self.rng.randint(1, 4)}
            cards = []
            for _ in range(size):
                card = {"color": self.rng.randrange(4), "shape": self.rng.randrange(4),
                        "count": self.rng.randint(1, 4)}
                card[rule] = common[rule]
                cards.append(card)
            odd = self.rng.randrange(size)
            choices = [v for v in ([0, 1, 2, 3] if rule != "count" else [1, 2, 3, 4]) if v != common[rule]]
            cards[odd][rule] = self.rng.choice(choices)
            self.rounds.append((cards, odd))
        self.index = 0
        return self.render("Find the odd card."), {"round": 0}

    def render(self, note):
        cards, odd = self.rounds[self.index]
        lines = [note, f"Round {self.index + 1} of {len(self.rounds)}:"]
        for k, card in enumerate(cards):
            lines.append(f"  {k + 1}: {card['count']} {COLORS[card['color']]} {SHAPES[card['shape']]}")
        lines.append("Answer the odd card's position, e.g. \\boxed{1}.")
        return "\n".join(lines)

    def step(self, action):
        cards, odd = self.rounds[self.index]
        said = (extract_boxed(action) or "").strip()
        if said != str(odd + 1):
            return "Wrong card. You lose.", 0.0, True, False, {"round": self.index}
        self.index += 1
        if self.index == len(self.rounds):
            return "All rounds right. You win!", 1.0, True, False, {"round": self.index}
        return self.render("Right."), 0.0, False, False, {"round": self.index}

    def solution(self):
        return ["\\boxed{" + str(odd + 1) + "}" for cards, odd in self.rounds[self.index:]]
