"""Who, with what, where: a sealed-envelope deduction game."""

import random

from spadegym.program import extract_boxed

PEOPLE = ["baron", "countess", "doctor", "gardener", "butler", "chef"]
TOOLS = ["rope", "candlestick", "dagger", "wrench", "pistol", "poison"]
PLACES = ["library", "kitchen", "hall", "study", "cellar", "ballroom"]
DECKS = {1: (3, 3, 3), 2: (4, 3, 4), 3: (4, 4, 5), 4: (5, 5, 5), 5: (6, 5, 6)}
RIVALS = ["Mira", "Oto", "Pell"]


class SealedCaseEnv:
    """Sealed Case: work out which person, tool and place are hidden in the sealed case file.

    A person card, a tool card and a place card are sealed away; all remaining cards are
    shared out between you and the other detectives. On your turn propose a theory,
    \\boxed{suggest baron rope library}: going round the table, the first detective holding any
    of the named cards reveals one of them to you (those holding none say so). Once certain,
    \\boxed{accuse baron rope library}. A mistaken accusation loses; turns are limited.
    """

    skill = "Logical_Deduction"
    max_turns = 14

    def step(self, action):
        """Handle a suggestion or an accusation."""
        if self.closed:
            return "Game over; reset to play again.", 0.0, True, False, self.state()
        self.clock += 1
        box = extract_boxed(action)
        parts = [] if box is None else box.replace(",", " ").split()
        verb = parts[0].lower() if parts else ""
        theory = None
        if verb in ("suggest", "accuse") and len(parts) == 4:
            named = [p.lower() for p in parts[1:]]
            ok = True
            for card, group in zip(named, self.groups):
                if card not in group:
                    ok = False
            theory = named if ok else None
        if box is None:
            note = "No \\boxed{...} reply; you said nothing."
        elif verb != "suggest" and verb != "accuse":
            note = f"'{box[:40]}' is not a suggestion or accusation."
        elif theory is None:
            note = "Give a person, a tool and a place from the lists, in that order."
        elif verb == "accuse":
            self.closed = True
            if theory == self.sealed:
                return self.page("Your accusation matches the case file. Case closed!"), 1.0, True, False, self.state()
            return self.page("The case file disagrees. You lose."), 0.0, True, False, self.state()
        else:
            shower, card, skipped = self.reveal(theory)
            self.notes.append((theory, shower, card, skipped))
            note = "No one can show you any of those cards." if shower is None else f"{shower} reveals: {card}."
        if self.clock >= self.allowed:
            self.closed = True
            return self.page(note + " No turns remain."), 0.0, True, False, self.state()
        return self.page(note), 0.0, False, False, self.state()

    def reset(self, seed=None, options=None):
        """Shuffle and deal a new case."""
        self.rng = random.Random(seed)
        level = 2
        if isinstance(options, dict):
            value = options.get("difficulty", 2)
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                level = max(1, min(5, int(value)))
        self.level = level
        people, tools, places = DECKS[level]
        self.groups = [sorted(self.rng.sample(PEOPLE, people)), sorted(self.rng.sample(TOOLS, tools)),
                       sorted(self.rng.sample(PLACES, places))]
        self.sealed = []
        for group in self.groups:
            self.sealed.append(self.rng.choice(group))
        leftover = []
        for group in self.groups:
            leftover.extend(c for c in group if c not in self.sealed)
        self.rng.shuffle(leftover)
        self.rivals = RIVALS[:2] if level <= 2 else RIVALS[:3]
        seats = len(self.rivals) + 1
        self.hands = []
        for seat in range(seats):
            self.hands.append(sorted(leftover[seat::seats]))
        self.own = self.hands[0]
        self.notes = []
        self.allowed = len(self.theories()) + 3
        self.clock = 0
        self.closed = False
        return self.page("Cards have been dealt."), self.state()

    def reveal(self, theory):
        """(who reveals, which card, who had nothing) for a theory."""
        skipped = []
        for seat, rival in enumerate(self.rivals, start=1):
            overlap = [c for c in theory if c in self.hands[seat]]
            if overlap:
                return rival, overlap[0], skipped
            skipped.append(rival)
        return None, None, skipped

    def theories(self):
        """What a detective who always names still-possible cards would suggest."""
        open_cards = [[c for c in group if c not in self.own] for group in self.groups]
        asked = []
        while max(len(g) for g in open_cards) > 1:
            theory = [g[0] for g in open_cards]
            asked.append(theory)
            shower, card, skipped = self.reveal(theory)
            if shower is None:
                open_cards = [[c] for c in theory]
            else:
                open_cards = [[c for c in g if c != card] for g in open_cards]
        return asked

    def solution(self):
        """Propose still-possible theories until each group has one card left, then accuse."""
        replies = []
        for theory in self.theories():
            replies.append("\\boxed{suggest " + " ".join(theory) + "}")
        return replies + ["\\boxed{accuse " + " ".join(self.sealed) + "}"]

    def hint(self):
        """Approach only."""
        return ("Track which detective could hold each card. A revealed card is cleared, someone who "
                "passes holds none of the three, and naming a card from your own hand tests the "
                "other two on their own.")

    def state(self):
        return {"turn": self.clock, "suggestions": len(self.notes), "limit": self.allowed, "difficulty": self.level}

    def page(self, note):
        rows = [f"Turn {self.clock}; at most {self.allowed}.", note,
                "People: " + ", ".join(self.groups[0]),
                "Tools: " + ", ".join(self.groups[1]),
                "Places: " + ", ".join(self.groups[2]),
                "Cards in your hand: " + ", ".join(self.own),
                "Order round the table: " + ", ".join(self.rivals)]
        if self.notes:
            rows.append("Theories proposed:")
            for theory, shower, card, skipped in self.notes:
                line = " ".join(theory) + ": "
                if skipped:
                    line += ", ".join(skipped) + " had none; "
                line += f"{shower} revealed {card}" if shower else "no one could reveal a card"
                rows.append("  " + line)
        rows.append("Reply \\boxed{suggest PERSON TOOL PLACE} or \\boxed{accuse PERSON TOOL PLACE}.")
        return "\n".join(rows)
