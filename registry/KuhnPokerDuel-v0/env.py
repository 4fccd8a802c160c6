"""KuhnPokerDuel: a match of Kuhn poker hands with hidden cards (two-player self-play)."""

import random

from spadegym.program import extract_boxed, read_difficulty

RANKS = {"J": 1, "Q": 2, "K": 3}


class KuhnPokerDuelEnv:
    """KuhnPokerDuel: win more chips than your opponent over a short match.

    The deck has three cards, J < Q < K. Each hand both players ante 1 chip and get one hidden
    card. The first to act may check or bet 1; facing a bet a player may call (match it) or
    fold (give up the pot); after a check the other player may check (showdown) or bet. At a
    showdown the higher card takes the pot. Who acts first alternates each hand. Answer with
    \\boxed{check}, \\boxed{bet}, \\boxed{call} or \\boxed{fold}. After the last hand, more
    chips wins. An illegal or unreadable action loses the match at once."""

    max_turns = 30
    skill = "Two_Player"
    num_players = 2

    def reset(self, seed=None, options=None):
        """Start the match: the number of hands grows with the difficulty."""
        self.rng = random.Random(seed)
        self.difficulty = read_difficulty(options, default=2)
        self.hands = 2 * self.difficulty - 1
        self.hand = 0
        self.chips = [0, 0]
        self.first = self.rng.randrange(2)
        self.turn = 0
        self.over = False
        self.outcome = None
        self.log = []
        self.deal()
        return self.render(f"Match of {self.hands} hand(s) begins."), {"player": self.player}

    def deal(self):
        """Deal a new hand; the first player alternates."""
        self.hand += 1
        cards = self.rng.sample(sorted(RANKS), 2)
        self.cards = cards if self.hand % 2 == 1 else [cards[1], cards[0]]
        self.starter = self.first if self.hand % 2 == 1 else 1 - self.first
        self.player = self.starter
        self.history = []
        self.pot = 2
        self.put = [1, 1]

    def legal(self):
        """Actions open to the player to act."""
        return ["call", "fold"] if "bet" in self.history else ["check", "bet"]

    def render(self, last):
        """What the player to act may see: their own card only."""
        p = self.player
        past = "; ".join(self.log[-4:]) if self.log else "none yet"
        acts = ", ".join(self.history) if self.history else "no actions yet"
        return (
            f"{last}\nYou are Player {p}. Hand {self.hand} of {self.hands}. Your card: "
            f"{self.cards[p]}. Pot: {self.pot} (you have put in {self.put[p]}). This hand so "
            f"far: {acts}.\nMatch chips so far: you {self.chips[p]:+d}, opponent "
            f"{self.chips[1 - p]:+d}. Recent hands: {past}.\n"
            f"Legal moves: {', '.join(self.legal())}\n"
            "Answer with \\boxed{" + self.legal()[0] + "} or \\boxed{" + self.legal()[1] + "}. "
            f"Turn {self.turn + 1} of {self.max_turns}."
        )

    def end_match(self, text, forfeit=None):
        """Score the match from the chip totals, or as a forfeit."""
        self.over = True
        if forfeit is not None:
            winner = 1 - forfeit
        elif self.chips[0] == self.chips[1]:
            winner = None
        else:
            winner = 0 if self.chips[0] > self.chips[1] else 1
        if winner is None:
            self.outcome = [0.0, 0.0]
        else:
            self.outcome = [1.0, -1.0] if winner == 0 else [-1.0, 1.0]
        info = {"player": self.player, "outcome": self.outcome}
        return (text + f" Match over: chips P0 {self.chips[0]:+d}, P1 {self.chips[1]:+d}; "
                f"outcome [P0, P1] = {self.outcome}.", self.outcome[self.player], True, False,
                info)

    def settle(self, winner, how):
        """Pay the pot, then deal the next hand or end the match."""
        loser = 1 - winner
        self.chips[winner] += self.put[loser]
        self.chips[loser] -= self.put[loser]
        shown = f" (cards: P0 {self.cards[0]}, P1 {self.cards[1]})" if how == "showdown" else ""
        summary = f"hand {self.hand}: P{winner} won {self.pot} by {how}{shown}"
        self.log.append(summary)
        mover = self.player
        if self.hand >= self.hands:
            return self.end_match(summary[0].upper() + summary[1:] + ".")
        self.deal()
        return (self.render(summary[0].upper() + summary[1:] + ". New hand dealt."), 0.0,
                False, False, {"player": self.player, "last_mover": mover})

    def step(self, action):
        """Apply one betting action."""
        if self.over:
            return "The match is over.", 0.0, True, False, {"player": self.player,
                                                            "outcome": self.outcome}
        self.turn += 1
        move = extract_boxed(action)
        move = move.strip().lower() if isinstance(move, str) else ""
        if move not in self.legal():
            shown = move[:20] if move else "no \\boxed{action}"
            return self.end_match(f"Player {self.player} made an illegal action ({shown!r}; "
                                  f"allowed: {', '.join(self.legal())}) and forfeits.",
                                  forfeit=self.player)
        p = self.player
        self.history.append(move)
        if move == "bet" or move == "call":
            self.put[p] += 1
            self.pot += 1
        if move == "fold":
            return self.settle(1 - p, "fold")
        if move == "call" or self.history == ["check", "check"]:
            winner = 0 if RANKS[self.cards[0]] > RANKS[self.cards[1]] else 1
            return self.settle(winner, "showdown")
        self.player = 1 - p
        return (self.render(f"Player {p} chose {move}."), 0.0, False, False,
                {"player": self.player})

    def hint(self):
        """Approach only."""
        return ("Your card tells you a lot: a K never loses a showdown and a J never wins one. "
                "Bet or call with strong cards, fold weak ones to bets, and bluff a bet with "
                "your weakest card now and then so that your bets stay hard to read.")
