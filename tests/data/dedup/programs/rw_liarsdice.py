"""Bluff and call: a bidding duel over hidden dice."""

import random
import re

from spadegym.program import extract_boxed

CUP_SIZE = {1: 2, 2: 3, 3: 3, 4: 4, 5: 5}
BID = re.compile(r"bid (\d{1,3}) (\d)")


class CupBluffEnv:
    """Cup Bluff: outbid your rival about the dice under both cups, or call the bluff.

    Both seats roll the same number of six-sided dice and see only their own. Seats alternate
    claiming "there are at least Q dice across both cups showing face F". Every claim must top
    the previous one: a bigger Q, or the same Q with a bigger F. Instead of claiming you may
    call liar: both cups are lifted; if the last claim is true the caller loses, if not the
    claimer loses. Reply \\boxed{bid Q F} or \\boxed{liar}. An illegal or unreadable reply
    loses immediately."""

    num_players = 2
    skill = "Two_Player"
    max_turns = 64

    def reset(self, seed=None, options=None):
        """Roll both cups and pick the opening seat."""
        self.rng = random.Random(seed)
        level = options.get("difficulty", 2) if isinstance(options, dict) else 2
        if isinstance(level, bool) or not isinstance(level, int):
            level = 2
        self.level = min(5, max(1, level))
        self.n = CUP_SIZE[self.level]
        self.cups = []
        for seat in range(2):  # noqa: B007
            self.cups.append(sorted([self.rng.randint(1, 6) for k in range(self.n)]))
        self.seat = self.rng.randrange(2)
        self.claim = None
        self.claims = []
        self.moves = 0
        self.ended = False
        self.result = None
        return self.show("A new round: both cups are rolled."), {"player": self.seat}

    def beats(self, q, f):
        if self.claim is None:
            return True
        cq, cf = self.claim
        return q > cq or (q == cq and f > cf)

    def sample_moves(self):
        top = self.n * 2
        moves = [] if self.claim is None else ["liar"]
        q, f = self.claim if self.claim is not None else (1, 1)
        found = 0
        while found < 4 and q <= top:
            if self.beats(q, f):
                moves.append(f"bid {q} {f}")
                found += 1
            f += 1
            if f == 7:
                q += 1
                f = 1
        return moves

    def show(self, note):
        current = "none" if self.claim is None else f"{self.claim[0]} x {self.claim[1]}"
        before = ", ".join(self.claims[-8:]) or "none"
        own = " ".join([str(d) for d in self.cups[self.seat]])
        return (f"{note}\nSeat {self.seat} to act. Your dice: {own}. Each seat rolled {self.n} dice "
                f"({self.n * 2} altogether).\nStanding claim: {current}. Claims made: {before}.\n"
                f"Legal moves: {', '.join(self.sample_moves())} (or any higher bid up to {self.n * 2} dice)\n"
                f"Reply \\boxed{{bid Q F}} or \\boxed{{liar}}. Move {self.moves + 1} of at most {self.max_turns}.")

    def settle(self, winner, text):
        self.ended = True
        self.result = [1.0, -1.0] if winner == 0 else [-1.0, 1.0]
        return (f"{text} Result [seat 0, seat 1] = {self.result}.", self.result[self.seat], True, False,
                {"player": self.seat, "outcome": self.result})

    def step(self, action):
        """Make a claim or call liar."""
        if self.ended:
            return "The round has ended.", 0.0, True, False, {"player": self.seat, "outcome": self.result}
        self.moves += 1
        me = self.seat
        reply = extract_boxed(action)
        reply = " ".join(reply.lower().split()) if isinstance(reply, str) else ""
        if reply == "liar":
            if self.claim is None:
                return self.settle(1 - me, f"Seat {me} called liar before any claim and loses.")
            q, f = self.claim
            actual = 0
            for cup in self.cups:
                actual += cup.count(f)
            lifted = f"Cups: seat 0 {self.cups[0]}, seat 1 {self.cups[1]}; {actual} x {f} in total."
            if actual < q:
                return self.settle(me, f"Seat {me} called liar on {q} x {f}. {lifted} The claim was false: seat {me} wins.")
            return self.settle(1 - me, f"Seat {me} called liar on {q} x {f}. {lifted} The claim stands: seat {1 - me} wins.")
        parsed = BID.fullmatch(reply)
        if parsed is None:
            return self.settle(1 - me, f"Seat {me} gave neither \\boxed{{bid Q F}} nor \\boxed{{liar}} and loses.")
        q = int(parsed.group(1))
        f = int(parsed.group(2))
        if q < 1 or q > self.n * 2 or f < 1 or f > 6:
            return self.settle(1 - me, f"Seat {me} claimed {q} x {f}, outside 1..{self.n * 2} dice and faces 1..6, and loses.")
        if not self.beats(q, f):
            return self.settle(1 - me, f"Seat {me} claimed {q} x {f}, not above {self.claim[0]} x {self.claim[1]}, and loses.")
        self.claim = (q, f)
        self.claims.append(f"seat {me}: {q} x {f}")
        self.seat = 1 - me
        if (q, f) == (self.n * 2, 6):
            note = f"Seat {me} claimed the top bid, {q} x {f}; only liar remains."
        else:
            note = f"Seat {me} claimed {q} x {f}."
        return self.show(note), 0.0, False, False, {"player": self.seat}

    def hint(self):
        """Approach only."""
        return ("Count the matching faces in your own cup and expect roughly one sixth of your "
                "rival's dice to match too. Raise on faces you hold and call liar when a claim "
                "needs far more than that.")
