"""Three-card poker duel over a few hands."""

import random

from spadegym.program import extract_boxed

VALUE = {"J": 1, "Q": 2, "K": 3}


class ThreeCardDuelEnv:
    """Three Card Duel: end the match ahead on chips.

    Only three cards exist: J, Q and K, ranked in that order. Every hand, each seat pays a
    1-chip ante and is dealt one secret card. The seat acting first may check or bet 1 chip;
    a seat facing a bet may call it or fold and surrender the pot; after a check the other
    seat may check (go to showdown) or bet. At showdown the higher card wins the pot. The
    opening seat switches every hand. Reply \\boxed{check}, \\boxed{bet}, \\boxed{call} or
    \\boxed{fold}. When the last hand is over, the seat with more chips wins. An illegal or
    unreadable action forfeits the whole match."""

    num_players = 2
    skill = "Two_Player"
    max_turns = 30

    def hint(self):
        """Approach only."""
        return ("Your card says a lot: K can never lose a showdown and J can never win one. Push "
                "with strong cards, give up weak ones against bets, and now and then bluff with "
                "your worst card so your bets cannot be read.")

    def reset(self, seed=None, options=None):
        """Begin a match; higher difficulty plays more hands."""
        self.rng = random.Random(seed)
        level = options.get("difficulty", 2) if isinstance(options, dict) else 2
        if isinstance(level, bool) or not isinstance(level, int):
            level = 2
        self.level = max(1, min(5, level))
        self.total_hands = self.level * 2 - 1
        self.hand_no = 0
        self.bank = [0, 0]
        self.opener = self.rng.randrange(2)
        self.count = 0
        self.finished = False
        self.result = None
        self.past = []
        self.new_hand()
        return self.table(f"A match of {self.total_hands} hand(s) starts."), {"player": self.seat}

    def new_hand(self):
        self.hand_no += 1
        pair = self.rng.sample(sorted(VALUE), 2)
        odd = self.hand_no % 2 == 1
        self.cards = pair if odd else [pair[1], pair[0]]
        self.lead = self.opener if odd else 1 - self.opener
        self.seat = self.lead
        self.actions = []
        self.pot = 2
        self.stake = [1, 1]

    def allowed(self):
        if "bet" in self.actions:
            return ["call", "fold"]
        return ["check", "bet"]

    def step(self, action):
        """Carry out one betting action."""
        if self.finished:
            return "The match has ended.", 0.0, True, False, {"player": self.seat, "outcome": self.result}
        self.count += 1
        choice = extract_boxed(action)
        choice = choice.strip().lower() if isinstance(choice, str) else ""
        if choice not in self.allowed():
            shown = choice[:20] if choice else "no \\boxed{action}"
            return self.conclude(f"Seat {self.seat} made an illegal action ({shown!r}; allowed: "
                                 f"{', '.join(self.allowed())}) and forfeits.", loser=self.seat)
        me = self.seat
        self.actions.append(choice)
        if choice in ("bet", "call"):
            self.stake[me] += 1
            self.pot += 1
        if choice == "fold":
            return self.pay(1 - me, "fold")
        if choice == "call" or self.actions == ["check", "check"]:
            if VALUE[self.cards[0]] > VALUE[self.cards[1]]:
                return self.pay(0, "showdown")
            return self.pay(1, "showdown")
        self.seat = 1 - me
        return self.table(f"Seat {me} chose {choice}."), 0.0, False, False, {"player": self.seat}

    def pay(self, winner, how):
        other = 1 - winner
        self.bank[winner] += self.stake[other]
        self.bank[other] -= self.stake[other]
        reveal = ""
        if how == "showdown":
            reveal = f" (cards: seat 0 {self.cards[0]}, seat 1 {self.cards[1]})"
        line = f"hand {self.hand_no}: seat {winner} took {self.pot} by {how}{reveal}"
        self.past.append(line)
        actor = self.seat
        if self.hand_no >= self.total_hands:
            return self.conclude(line.capitalize() + ".")
        self.new_hand()
        return self.table(line.capitalize() + ". Next hand dealt."), 0.0, False, False, {"player": self.seat, "last_mover": actor}

    def conclude(self, text, loser=None):
        self.finished = True
        if loser is not None:
            winner = 1 - loser
        elif self.bank[0] > self.bank[1]:
            winner = 0
        elif self.bank[1] > self.bank[0]:
            winner = 1
        else:
            winner = None
        if winner is None:
            self.result = [0.0, 0.0]
        else:
            self.result = [1.0, -1.0] if winner == 0 else [-1.0, 1.0]
        summary = (f" Match finished: chips seat 0 {self.bank[0]:+d}, seat 1 {self.bank[1]:+d}; "
                   f"result [seat 0, seat 1] = {self.result}.")
        return text + summary, self.result[self.seat], True, False, {"player": self.seat, "outcome": self.result}

    def table(self, note):
        me = self.seat
        so_far = ", ".join(self.actions) or "nothing yet"
        recent = "; ".join(self.past[-4:]) or "none so far"
        options = self.allowed()
        return (f"{note}\nSeat {me} to act. Hand {self.hand_no}/{self.total_hands}. Your card is "
                f"{self.cards[me]}. The pot holds {self.pot}; your stake is {self.stake[me]}. Betting "
                f"this hand: {so_far}.\nChips: you {self.bank[me]:+d}, rival {self.bank[1 - me]:+d}. "
                f"Earlier hands: {recent}.\nLegal moves: {', '.join(options)}\n"
                f"Reply \\boxed{{{options[0]}}} or \\boxed{{{options[1]}}}. Action {self.count + 1} of at most {self.max_turns}.")
