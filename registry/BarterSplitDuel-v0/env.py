"""BarterSplitDuel: split a pot of goods under private valuations (two-player negotiation)."""

import random
import re

from spadegym.program import extract_boxed, read_difficulty

GOODS = ["books", "hats", "balls", "lamps", "apples"]


class BarterSplitDuelEnv:
    """BarterSplitDuel: negotiate a split of a pot of goods.

    A pot holds a few kinds of goods. Each player privately values each kind (points per item);
    the opponent's values are hidden. Players alternate: propose a split by saying how many of
    each kind YOU keep (the rest go to the opponent), or accept the opponent's last proposal.
    After the last allowed proposal the other player must accept or reject. Your score is the
    share of your own total value you end up with; the match goes to whoever has the larger
    share (outcome = your share minus theirs). No deal gives 0 to both. Answer with
    \\boxed{propose 2 0 1} (counts in the listed order), \\boxed{accept} or \\boxed{reject}.
    An illegal or unreadable move loses at once."""

    max_turns = 12
    skill = "Two_Player"
    num_players = 2

    def reset(self, seed=None, options=None):
        """Draw the pot, the private values and who proposes first."""
        self.rng = random.Random(seed)
        self.difficulty = read_difficulty(options, default=2)
        d = self.difficulty
        kinds = 3 if d <= 3 else 4
        self.goods = self.rng.sample(GOODS, kinds)
        self.counts = [self.rng.randint(1, 2 + d // 2) for _ in range(kinds)]
        self.values = []
        for _ in range(2):
            while True:
                vals = [self.rng.randint(0, 6) for _ in range(kinds)]
                if sum(v * c for v, c in zip(vals, self.counts, strict=True)) > 0:
                    break
            self.values.append(vals)
        self.proposals = 4 + (d + 1) // 2 * 2
        self.made = 0
        self.offer = None
        self.offerer = None
        self.player = self.rng.randrange(2)
        self.turn = 0
        self.over = False
        self.outcome = None
        self.log = []
        return self.render("Negotiation opens."), {"player": self.player}

    def worth(self, who, bundle):
        """Points a bundle is worth to a player."""
        return sum(v * n for v, n in zip(self.values[who], bundle, strict=True))

    def legal(self):
        """Moves open to the player to act."""
        moves = []
        if self.offer is not None:
            moves.append("accept")
        if self.made < self.proposals:
            moves.append("propose " + " ".join(str(c) for c in self.counts))
            moves.append("propose " + " ".join(str(c // 2) for c in self.counts))
        elif self.offer is not None:
            moves.append("reject")
        return moves

    def render(self, last):
        """What the player to act may see: the pot, their own values, the offers."""
        p = self.player
        pot = ", ".join(f"{c} {g}" for g, c in zip(self.goods, self.counts, strict=True))
        vals = ", ".join(f"{g} {v}" for g, v in zip(self.goods, self.values[p], strict=True))
        total = self.worth(p, self.counts)
        if self.offer is None:
            offer = "no proposal on the table"
        else:
            you_get = [c - k for c, k in zip(self.counts, self.offer, strict=True)]
            offer = (f"Player {self.offerer} proposes to keep {self.offer} and give you "
                     f"{you_get}, worth {self.worth(p, you_get)} of your {total} points")
        left = self.proposals - self.made
        rule = (f"{left} proposal(s) left in the game." if left
                else "No proposals left: accept or reject.")
        history = "; ".join(self.log[-6:]) if self.log else "none"
        return (
            f"{last}\nYou are Player {p}. Pot: {pot} (order: {', '.join(self.goods)}).\n"
            f"Your private values per item: {vals} (pot total {total} points).\n"
            f"Now: {offer}. {rule} History: {history}.\n"
            f"Legal moves: {', '.join(self.legal())} (any split with counts within the pot)\n"
            "Answer with \\boxed{propose ...} listing how many of each good YOU keep, "
            "\\boxed{accept} or \\boxed{reject}. "
            f"Turn {self.turn + 1} of {self.max_turns}."
        )

    def finish(self, outcome0, text):
        """End the game with player 0's outcome."""
        self.over = True
        outcome0 = max(-1.0, min(1.0, outcome0))
        self.outcome = [outcome0, -outcome0]
        info = {"player": self.player, "outcome": self.outcome}
        return (text + f" Final outcome [P0, P1] = {self.outcome}.", self.outcome[self.player],
                True, False, info)

    def forfeit(self, text):
        """The player to act loses at once."""
        return self.finish(-1.0 if self.player == 0 else 1.0, text)

    def step(self, action):
        """Apply a proposal, an acceptance or a rejection."""
        if self.over:
            return "The game is over.", 0.0, True, False, {"player": self.player,
                                                           "outcome": self.outcome}
        self.turn += 1
        p = self.player
        move = extract_boxed(action)
        move = " ".join(move.lower().split()) if isinstance(move, str) else ""
        if move == "accept" and self.offer is not None:
            keep = {self.offerer: self.offer,
                    1 - self.offerer: [c - k for c, k in zip(self.counts, self.offer, strict=True)]}
            shares = [round(self.worth(w, keep[w]) / self.worth(w, self.counts), 4)
                      for w in (0, 1)]
            return self.finish(shares[0] - shares[1], f"Player {p} accepted. Shares of own value: "
                               f"P0 {shares[0]}, P1 {shares[1]}.")
        if move == "reject" and self.offer is not None and self.made >= self.proposals:
            return self.finish(0.0, f"Player {p} rejected the final proposal: no deal.")
        m = re.fullmatch(r"propose((?: \d{1,2})+)", move)
        if m is None or self.made >= self.proposals:
            return self.forfeit(f"Player {p} made an illegal move (allowed: "
                                f"{', '.join(self.legal())}) and loses.")
        keep = [int(x) for x in m.group(1).split()]
        if len(keep) != len(self.counts) or any(
                not 0 <= k <= c for k, c in zip(keep, self.counts, strict=False)):
            return self.forfeit(f"Player {p} proposed {keep}, which is not a split of "
                                f"{self.counts}, and loses.")
        self.offer = keep
        self.offerer = p
        self.made += 1
        self.log.append(f"P{p} keeps {keep}")
        self.player = 1 - p
        return (self.render(f"Player {p} proposes to keep {keep}."), 0.0, False, False,
                {"player": self.player})

    def hint(self):
        """Approach only."""
        return ("You only score by share of your own total, so goods you value at zero are free "
                "to give away. Watch what the opponent keeps in each proposal to infer what "
                "they value, and remember the last proposer makes a take-it-or-leave-it offer.")
