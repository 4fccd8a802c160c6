"""Card sorting under a secret matching rule that changes every few cards."""

import random

from spadegym.program import extract_boxed

HUES = ["red", "green", "blue", "yellow"]
FORMS = ["circle", "star", "square", "cross"]
TEXTURES = ["solid", "striped", "dotted", "hollow"]
SLOT = {"count": 0, "color": 1, "shape": 2, "fill": 3}


def describe(card, features):
    """Words for a card, such as '3 blue striped stars'."""
    number, hue, form, texture = card
    words = [str(number), HUES[hue]]
    if "fill" in features:
        words.append(TEXTURES[texture])
    noun = FORMS[form]
    if number > 1:
        noun += "es" if noun.endswith("s") else "s"
    words.append(noun)
    return " ".join(words)


class ShiftingMatchEnv:
    """Shifting Match: sort each card onto a reference pile by a secret rule that moves on.

    Cards have a number, a colour, a shape and, from difficulty 4, a texture. Four reference
    piles are on the table. A secret rule names the feature a card must share with the pile it
    goes on; once you have been right several times in a row, the rule quietly switches to a
    different feature. Make enough correct placements before you make too many mistakes.
    Reply \\boxed{P} with the pile number 1-4 for the card in hand."""

    skill = "Pattern_Recognition"
    max_turns = 28

    def step(self, action):
        """Place the card in hand."""
        if self.over:
            return "Game over.", 0.0, True, False, self.meta()
        self.t += 1
        content = extract_boxed(action) if isinstance(action, str) else None
        tokens = content.lower().replace("pile", " ").split() if content else []
        reward = 0.0
        ended = False
        if len(tokens) == 1 and tokens[0] in ("1", "2", "3", "4"):
            pile = int(tokens[0])
            card = self.cards[self.pos]
            words = describe(card, self.features)
            if pile != self.pile_for(card, self.sequence[self.changes]):
                self.misses += 1
                self.run = 0
                note = f"Wrong: {words} does not go on pile {pile}."
                self.recent.append(f"  {words} -> pile {pile}: wrong")
            else:
                self.hits += 1
                self.run += 1
                note = f"Correct: {words} on pile {pile}."
                self.recent.append(f"  {words} -> pile {pile}: correct")
                if self.run == self.streak_goal:
                    self.changes += 1
                    self.run = 0
            self.pos += 1
            if self.hits >= self.target:
                note += " Enough correct placements. Victory!"
                reward = 1.0
                ended = True
            elif self.misses >= self.allowed:
                note += f" {self.misses} mistakes reach the limit. Defeat."
                ended = True
        else:
            note = "Not a pile: reply with one number such as \\boxed{2}. The turn is lost."
        self.over = ended
        cut = not ended and self.t >= self.max_turns
        if cut:
            note += " No turns remain."
            self.over = True
        return self.view(note), reward, ended, cut, self.meta()

    def reset(self, seed=None, options=None):
        """Deal a deck and pick the secret rule sequence."""
        self.rng = random.Random(seed)
        level = 2
        if isinstance(options, dict) and isinstance(options.get("difficulty", 2), int):
            level = max(1, min(5, options.get("difficulty", 2)))
        self.level = level
        self.features = ["count", "color", "shape"] + (["fill"] if level >= 4 else [])
        self.target = level + 8
        self.streak_goal = 4 if level > 2 else 5
        self.sequence = [self.rng.choice(self.features)]
        for k in range(self.max_turns - 1):  # noqa: B007
            self.sequence.append(self.rng.choice([f for f in self.features if f != self.sequence[-1]]))
        self.changes = 0
        f = len(self.features)
        self.allowed = f + (f - 1) * ((self.target - 1) // self.streak_goal)
        self.cards = []
        for k in range(self.max_turns + 2):  # noqa: B007
            number = self.rng.randint(1, 4)
            hue = self.rng.randrange(4)
            form = self.rng.randrange(4)
            texture = self.rng.randrange(4)
            self.cards.append((number, hue, form, texture))
        perms = []
        for k in range(4):  # noqa: B007
            perms.append(self.rng.sample(range(4), 4))
        self.piles = []
        for i in range(4):
            self.piles.append((perms[0][i] + 1, perms[1][i], perms[2][i], perms[3][i]))
        self.pos = self.run = self.hits = self.misses = self.t = 0
        self.over = False
        self.recent = []
        return self.view("Fresh deck in hand. Learn the rule from the feedback."), self.meta()

    def pile_for(self, card, feature):
        k = SLOT[feature]
        for index, pile in enumerate(self.piles):
            if pile[k] == card[k]:
                return index + 1
        return 1

    def meta(self):
        return {"turn": self.t, "correct": self.hits, "wrong": self.misses}

    def view(self, note):
        lines = [f"{note}",
                 f"Turn {self.t}/{self.max_turns}; correct {self.hits}/{self.target}; "
                 f"mistakes {self.misses}/{self.allowed}.", "Reference piles:"]
        lines += [f"  Pile {i + 1}: {describe(p, self.features)}" for i, p in enumerate(self.piles)]
        lines.append("Latest placements:")
        lines += self.recent[-6:] or ["  (none yet)"]
        lines.append(f"Card in hand: {describe(self.cards[self.pos], self.features)}")
        lines.append("Reply \\boxed{P}, P from 1 to 4.")
        return "\n".join(lines)

    def solution(self):
        """Follow the secret rule and its switches on a copy of the counters."""
        run, changes = self.run, self.changes
        replies = []
        for k in range(self.target - self.hits):
            card = self.cards[self.pos + k]
            replies.append("\\boxed{" + str(self.pile_for(card, self.sequence[changes])) + "}")
            run += 1
            if run >= self.streak_goal:
                run = 0
                changes += 1
        return replies

    def hint(self):
        """Method only."""
        return ("Probe one feature at a time: pick a pile matching the card on a single feature, "
                "stay with that feature while it works, and switch after a miss.")
