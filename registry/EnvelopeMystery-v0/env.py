"""EnvelopeMystery: a small deduction card game against silent opponents (Logical_Deduction)."""

import random

from spadegym.program import extract_boxed, read_difficulty

SUSPECTS = ["baron", "countess", "doctor", "gardener", "butler", "chef"]
WEAPONS = ["rope", "candlestick", "dagger", "wrench", "pistol", "poison"]
ROOMS = ["library", "kitchen", "hall", "study", "cellar", "ballroom"]
SIZES = {1: (3, 3, 3), 2: (4, 3, 4), 3: (4, 4, 5), 4: (5, 5, 5), 5: (6, 5, 6)}
OPPONENTS = ["Mira", "Oto", "Pell"]
OPPONENT_COUNT = {1: 2, 2: 2, 3: 3, 4: 3, 5: 3}
SLACK = 2


class EnvelopeMysteryEnv:
    """Envelope Mystery: deduce the suspect, weapon and room sealed in the envelope.

    One suspect, one weapon and one room card are sealed in an envelope; every other card is
    dealt to you or to the other players. Each turn make a suggestion,
    \\boxed{suggest baron rope library}: the other players, in seating order, check their hands
    and the first who holds any of the three cards shows you one of them (players with none
    say so). When sure, make your accusation, \\boxed{accuse baron rope library}. A wrong
    accusation loses, and turns are limited.
    """

    max_turns = 14
    skill = "Logical_Deduction"

    def reset(self, seed=None, options=None):
        """Deal a new game from ``seed``; the difficulty in ``options`` sets the deck size."""
        self.rng = random.Random(seed)
        self.difficulty = read_difficulty(options, default=2)
        s, w, r = SIZES[self.difficulty]
        self.categories = [self.rng.sample(SUSPECTS, s), self.rng.sample(WEAPONS, w), self.rng.sample(ROOMS, r)]
        for cards in self.categories:
            cards.sort()
        self.envelope = [self.rng.choice(cards) for cards in self.categories]
        rest = [c for cards in self.categories for c in cards if c not in self.envelope]
        self.rng.shuffle(rest)
        self.opponents = OPPONENTS[: OPPONENT_COUNT[self.difficulty]]
        players = len(self.opponents) + 1
        self.hands = [sorted(rest[i::players]) for i in range(players)]
        self.mine = self.hands[0]
        self.log = []
        self.limit = len(self.plan()) + 1 + SLACK
        self.turn = 0
        self.done = False
        return self.render("The cards are dealt."), self.info()

    def respond(self, suggestion):
        """(who showed, card shown, list of players who passed) for a suggestion."""
        passed = []
        for index, name in enumerate(self.opponents):
            hand = self.hands[index + 1]
            held = [c for c in suggestion if c in hand]
            if held:
                return name, held[0], passed
            passed.append(name)
        return None, None, passed

    def plan(self):
        """Suggestions of a player who always names cards not yet ruled out."""
        possible = [[c for c in cards if c not in self.mine] for cards in self.categories]
        plays = []
        while any(len(p) > 1 for p in possible):
            suggestion = [p[0] for p in possible]
            plays.append(suggestion)
            who, card, passed = self.respond(suggestion)
            if who is None:
                possible = [[c] for c in suggestion]
            else:
                possible = [[c for c in p if c != card] for p in possible]
        return plays

    def info(self):
        """A small JSON-able summary of the state."""
        return {"turn": self.turn, "suggestions": len(self.log), "limit": self.limit,
                "difficulty": self.difficulty}

    def render(self, result):
        """The observation text: result, cards, history, actions and progress."""
        lines = [f"Turn {self.turn} of {self.limit}.", result,
                 "Suspects: " + ", ".join(self.categories[0]),
                 "Weapons: " + ", ".join(self.categories[1]),
                 "Rooms: " + ", ".join(self.categories[2]),
                 "Your hand: " + ", ".join(self.mine),
                 "Seating order of the other players: " + ", ".join(self.opponents)]
        if self.log:
            lines.append("Your suggestions so far:")
            for suggestion, who, card, passed in self.log:
                text = " ".join(suggestion) + ": "
                if passed:
                    text += ", ".join(passed) + " had none; "
                text += f"{who} showed you {card}" if who else "nobody could show a card"
                lines.append("  " + text)
        lines.append("Actions: \\boxed{suggest SUSPECT WEAPON ROOM} or \\boxed{accuse SUSPECT WEAPON ROOM}.")
        return "\n".join(lines)

    def read_triple(self, words):
        """A [suspect, weapon, room] list from words, or None."""
        if len(words) != 3:
            return None
        triple = [w.lower() for w in words]
        if all(t in cards for t, cards in zip(triple, self.categories)):
            return triple
        return None

    def step(self, action):
        """Make a suggestion or an accusation."""
        if self.done:
            return "The episode is over; call reset() to play again.", 0.0, True, False, self.info()
        self.turn += 1
        box = extract_boxed(action)
        words = box.replace(",", " ").split() if box is not None else []
        head = words[0].lower() if words else ""
        triple = self.read_triple(words[1:]) if head in ("suggest", "accuse") else None
        if box is None:
            result = "No \\boxed{...} answer found; you kept quiet."
        elif head not in ("suggest", "accuse"):
            result = f"'{box[:40]}' is neither a suggestion nor an accusation."
        elif triple is None:
            result = "Name one suspect, one weapon and one room from the lists, in that order."
        elif head == "suggest":
            who, card, passed = self.respond(triple)
            self.log.append((triple, who, card, passed))
            result = f"{who} shows you: {card}." if who else "Nobody can show you any of those cards."
        else:
            self.done = True
            if triple == self.envelope:
                return self.render("The envelope matches your accusation. Solved!"), 1.0, True, False, self.info()
            return self.render("The envelope says otherwise. You lose."), 0.0, True, False, self.info()
        if self.turn >= self.limit:
            self.done = True
            return self.render(result + " Out of turns."), 0.0, True, False, self.info()
        return self.render(result), 0.0, False, False, self.info()

    def solution(self):
        """Suggest cards not yet ruled out until one per category remains, then accuse."""
        out = ["\\boxed{suggest " + " ".join(s) + "}" for s in self.plan()]
        out.append("\\boxed{accuse " + " ".join(self.envelope) + "}")
        return out

    def hint(self):
        """A nudge about the approach."""
        return ("Keep a grid of which player could hold each card. A shown card is eliminated, a "
                "player who passes holds none of the three, and naming a card from your own hand "
                "lets you test the other two cards alone.")
