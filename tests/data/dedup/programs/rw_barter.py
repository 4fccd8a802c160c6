"""Haggling over a shared heap of items with secret tastes."""

import random
import re

from spadegym.program import extract_boxed

ITEMS = ["books", "hats", "balls", "lamps", "apples"]
OFFER = re.compile(r"propose((?: \d{1,2})+)")


class HeapHaggleEnv:
    """Heap Haggle: bargain over how to divide a heap of items.

    A heap contains a few kinds of items. Each seat secretly assigns points to every kind; the
    rival's points are unknown. Seats take turns: either propose a division by stating how many
    of each kind YOU keep (your rival gets the rest), or accept the rival's latest proposal.
    After the final permitted proposal the other seat can only accept or reject. Your score is
    the fraction of your own total points you obtain; whoever has the bigger fraction wins the
    duel (outcome = your fraction minus the rival's). No agreement scores 0 for both. Reply
    \\boxed{propose 2 0 1} (counts in the listed order), \\boxed{accept} or \\boxed{reject}.
    An illegal or unreadable reply loses immediately."""

    num_players = 2
    skill = "Two_Player"
    max_turns = 12

    def hint(self):
        """Approach only."""
        return ("Only your fraction of your own points matters, so kinds you value at zero cost "
                "nothing to give up. Infer your rival's tastes from what they keep, and remember "
                "the final proposer makes a take-it-or-leave-it offer.")

    def reset(self, seed=None, options=None):
        """Fill the heap, assign secret points, pick the opener."""
        self.rng = random.Random(seed)
        level = options.get("difficulty", 2) if isinstance(options, dict) else 2
        if isinstance(level, bool) or not isinstance(level, int):
            level = 2
        self.level = max(1, min(5, level))
        kinds = 4 if self.level > 3 else 3
        self.kinds = self.rng.sample(ITEMS, kinds)
        self.heap = [self.rng.randint(1, 2 + self.level // 2) for k in range(kinds)]
        self.points = []
        for seat in range(2):  # noqa: B007
            points = [self.rng.randint(0, 6) for k in range(kinds)]
            while sum(p * n for p, n in zip(points, self.heap)) <= 0:
                points = [self.rng.randint(0, 6) for k in range(kinds)]
            self.points.append(points)
        self.max_offers = 4 + (self.level + 1) // 2 * 2
        self.offers = 0
        self.standing = None
        self.by = None
        self.seat = self.rng.randrange(2)
        self.moves = 0
        self.ended = False
        self.result = None
        self.history = []
        return self.view("Bargaining begins."), {"player": self.seat}

    def value(self, seat, share):
        return sum([p * n for p, n in zip(self.points[seat], share)])

    def options_now(self):
        moves = ["accept"] if self.standing is not None else []
        if self.offers < self.max_offers:
            moves.append("propose " + " ".join([str(n) for n in self.heap]))
            moves.append("propose " + " ".join([str(n // 2) for n in self.heap]))
        elif self.standing is not None:
            moves.append("reject")
        return moves

    def view(self, note):
        me = self.seat
        heap = ", ".join([f"{n} {kind}" for kind, n in zip(self.kinds, self.heap)])
        tastes = ", ".join([f"{kind} {p}" for kind, p in zip(self.kinds, self.points[me])])
        total = self.value(me, self.heap)
        if self.standing is None:
            table = "no proposal on the table"
        else:
            mine = [n - k for n, k in zip(self.heap, self.standing)]
            table = (f"seat {self.by} proposes to keep {self.standing} and give you {mine}, "
                     f"worth {self.value(me, mine)} of your {total} points")
        remaining = self.max_offers - self.offers
        if remaining:
            status = f"{remaining} proposal(s) remain."
        else:
            status = "No proposals remain: accept or reject."
        past = "; ".join(self.history[-6:]) or "none"
        return (f"{note}\nSeat {me} to act. Heap: {heap} (order: {', '.join(self.kinds)}).\n"
                f"Your secret points per item: {tastes} (heap total {total} points).\n"
                f"Table: {table}. {status} Earlier: {past}.\n"
                f"Legal moves: {', '.join(self.options_now())} (any split with counts within the pot)\n"
                "Reply \\boxed{propose ...} with how many of each kind YOU keep, \\boxed{accept} or "
                f"\\boxed{{reject}}. Move {self.moves + 1} of at most {self.max_turns}.")

    def settle(self, first, text):
        self.ended = True
        first = min(1.0, max(-1.0, first))
        self.result = [first, -first]
        return (f"{text} Result [seat 0, seat 1] = {self.result}.", self.result[self.seat], True, False,
                {"player": self.seat, "outcome": self.result})

    def step(self, action):
        """Propose, accept or reject."""
        if self.ended:
            return "The duel has ended.", 0.0, True, False, {"player": self.seat, "outcome": self.result}
        self.moves += 1
        me = self.seat
        reply = extract_boxed(action)
        reply = " ".join(reply.lower().split()) if isinstance(reply, str) else ""
        if reply == "accept" and self.standing is not None:
            kept = {self.by: self.standing, 1 - self.by: [n - k for n, k in zip(self.heap, self.standing)]}
            fractions = []
            for seat in (0, 1):
                fractions.append(round(self.value(seat, kept[seat]) / self.value(seat, self.heap), 4))
            return self.settle(fractions[0] - fractions[1],
                               f"Seat {me} accepted. Fractions of own points: seat 0 {fractions[0]}, seat 1 {fractions[1]}.")
        if reply == "reject" and self.standing is not None and self.offers >= self.max_offers:
            return self.settle(0.0, f"Seat {me} rejected the final proposal: no agreement.")
        found = OFFER.fullmatch(reply)
        if found is None or self.offers >= self.max_offers:
            lost = -1.0 if me == 0 else 1.0
            return self.settle(lost, f"Seat {me} made an illegal move (allowed: {', '.join(self.options_now())}) and loses.")
        keep = [int(x) for x in found.group(1).split()]
        fits = len(keep) == len(self.heap) and all(0 <= k <= n for k, n in zip(keep, self.heap))
        if not fits:
            lost = -1.0 if me == 0 else 1.0
            return self.settle(lost, f"Seat {me} proposed {keep}, which does not divide {self.heap}, and loses.")
        self.standing = keep
        self.by = me
        self.offers += 1
        self.history.append(f"seat {me} keeps {keep}")
        self.seat = 1 - me
        return self.view(f"Seat {me} proposes to keep {keep}."), 0.0, False, False, {"player": self.seat}
