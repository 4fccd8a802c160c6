"""RuleShiftSort: sort cards onto key piles by a hidden matching rule that silently changes."""

import random

from spadegym.program import extract_boxed, read_difficulty

COLORS = ["red", "green", "blue", "yellow"]
SHAPES = ["circle", "star", "square", "cross"]
FILLS = ["solid", "striped", "dotted", "hollow"]


def card_text(card, attributes):
    """Describe a card as words, e.g. '3 blue striped stars'."""
    count, color, shape, fill = card
    parts = [str(count), COLORS[color]]
    if "fill" in attributes:
        parts.append(FILLS[fill])
    plural = "es" if SHAPES[shape].endswith("s") else "s"
    parts.append(SHAPES[shape] + (plural if count > 1 else ""))
    return " ".join(parts)


class RuleShiftSortEnv:
    """Rule Shift Sort: place cards on key piles by a hidden rule that shifts.

    Each card has a count, a colour, a shape (and from difficulty 4 a fill). Four key piles
    are shown. A hidden rule says which attribute a card must share with its pile. After a
    run of correct placements the rule changes without warning to another attribute.
    Reach the required number of correct placements before too many wrong ones.
    Action: \\boxed{P}, the pile number 1-4 for the current card."""

    max_turns = 28
    skill = "Pattern_Recognition"

    def reset(self, seed=None, options=None):
        """Deal a fresh deck and choose the hidden rule sequence."""
        self.rng = random.Random(seed)
        self.difficulty = read_difficulty(options, default=2)
        self.attributes = ["count", "color", "shape"]
        if self.difficulty >= 4:
            self.attributes.append("fill")
        self.need = 8 + self.difficulty
        self.run_length = 5 if self.difficulty <= 2 else 4
        self.rules = [self.rng.choice(self.attributes)]
        while len(self.rules) < self.max_turns:
            self.rules.append(self.rng.choice([a for a in self.attributes if a != self.rules[-1]]))
        self.shifts = 0
        shifts_needed = (self.need - 1) // self.run_length
        # Enough slack for a player who tests one attribute at a time after every shift.
        self.max_wrong = len(self.attributes) + (len(self.attributes) - 1) * shifts_needed
        self.deck = []
        while len(self.deck) < self.max_turns + 2:
            card = (
                self.rng.randint(1, 4),
                self.rng.randrange(4),
                self.rng.randrange(4),
                self.rng.randrange(4),
            )
            self.deck.append(card)
        orders = [self.rng.sample(range(4), 4) for k in range(4)]
        self.keys = [(orders[0][i] + 1, orders[1][i], orders[2][i], orders[3][i]) for i in range(4)]
        self.index = 0
        self.streak = 0
        self.correct = 0
        self.wrong = 0
        self.turn = 0
        self.done = False
        self.history = []
        return self.render("A new deck. Find the rule from the feedback."), self.info()

    def info(self):
        """Small JSON info for logs."""
        return {"turn": self.turn, "correct": self.correct, "wrong": self.wrong}

    def target_pile(self, card, rule):
        """The pile number (1-4) that `rule` wants for this card."""
        position = {"count": 0, "color": 1, "shape": 2, "fill": 3}[rule]
        for i, key in enumerate(self.keys):
            if key[position] == card[position]:
                return i + 1
        return 1

    def render(self, message):
        """The observation: progress, last result, state and actions."""
        piles = "\n".join(
            f"  Pile {i + 1}: {card_text(k, self.attributes)}" for i, k in enumerate(self.keys)
        )
        recent = "\n".join(self.history[-6:]) or "  (none yet)"
        return (
            f"Turn {self.turn} of {self.max_turns}. Correct {self.correct} of {self.need} needed; "
            f"wrong {self.wrong} of {self.max_wrong} allowed.\n{message}\n\nKey piles:\n{piles}\n"
            f"Recent placements:\n{recent}\n\n"
            f"Current card: {card_text(self.deck[self.index], self.attributes)}\n"
            "Action: \\boxed{P} with P in 1-4, the pile for the current card."
        )

    def step(self, action):
        """Place the current card on a pile and report right or wrong."""
        if self.done:
            return "The episode is over.", 0.0, True, False, self.info()
        self.turn += 1
        text = extract_boxed(action) if isinstance(action, str) else None
        words = text.lower().replace("pile", " ").split() if text else []
        reward, terminated = 0.0, False
        if len(words) != 1 or words[0] not in ("1", "2", "3", "4"):
            message = "Invalid action: answer with one pile number, e.g. \\boxed{2}. Turn lost."
        else:
            pile = int(words[0])
            card = self.deck[self.index]
            described = card_text(card, self.attributes)
            if pile == self.target_pile(card, self.rules[self.shifts]):
                self.correct += 1
                self.streak += 1
                message = f"Correct: {described} on pile {pile}."
                self.history.append(f"  {described} -> pile {pile}: correct")
                if self.streak >= self.run_length:
                    self.shifts += 1
                    self.streak = 0
            else:
                self.wrong += 1
                self.streak = 0
                message = f"Wrong: {described} does not belong on pile {pile}."
                self.history.append(f"  {described} -> pile {pile}: wrong")
            self.index += 1
            if self.correct >= self.need:
                message += " Required placements reached. You win!"
                reward, terminated = 1.0, True
            elif self.wrong >= self.max_wrong:
                message += f" That is {self.wrong} wrong placements, the limit. You lose."
                terminated = True
        self.done = terminated
        truncated = not terminated and self.turn >= self.max_turns
        if truncated:
            message += " Out of turns."
            self.done = True
        return self.render(message), reward, terminated, truncated, self.info()

    def solution(self):
        """Simulate the hidden rule (and its shifts) on a copy and place every card right."""
        moves = []
        streak, shifts = self.streak, self.shifts
        for k in range(self.need - self.correct):
            card = self.deck[self.index + k]
            moves.append(f"\\boxed{{{self.target_pile(card, self.rules[shifts])}}}")
            streak += 1
            if streak >= self.run_length:
                shifts += 1
                streak = 0
        return moves

    def hint(self):
        """A nudge toward the method."""
        return (
            "Test one attribute at a time: choose a pile that matches the card on a single "
            "attribute, keep that attribute while it is correct, and switch after a wrong answer."
        )
