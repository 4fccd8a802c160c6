"""SpiceMarketLedger: trade one good over a known price calendar to end with the most coins."""

import random

from spadegym.program import extract_boxed, read_difficulty


def best_trades(prices, cash, storage, fee, held=0):
    """Exact best final cash by dynamic programming over (day, sacks held).

    More cash never hurts, so keeping the richest way to reach each (day, sacks) state is
    enough. Returns (best cash, list of actions such as 'buy 2', 'sell 1', 'wait')."""
    layer = {held: (cash, [])}
    for price in prices:
        nxt = {}
        for sacks, (money, plan) in sorted(layer.items()):
            moves = [(sacks, money, "wait")]
            for k in range(1, storage - sacks + 1):
                if k * price + fee <= money:
                    moves.append((sacks + k, money - k * price - fee, f"buy {k}"))
            for k in range(1, sacks + 1):
                moves.append((sacks - k, money + k * price - fee, f"sell {k}"))
            for after, left, move in moves:
                if after not in nxt or left > nxt[after][0]:
                    nxt[after] = (left, plan + [move])
        layer = nxt
    return max(layer.values(), key=lambda item: item[0])


class SpiceMarketLedgerEnv:
    """Spice Market Ledger: buy and sell saffron over a known price calendar.

    The price of saffron for every day of the market is posted in advance. Each day you may
    make one trade (buy or sell some sacks) or wait; every trade costs a fixed fee, you can
    never spend more coins than you hold, and your store holds a limited number of sacks.
    Sacks left unsold when the market closes are worthless. You win if you finish with the
    most coins possible (fewer coins earn partial credit only).
    Actions (one per day): \\boxed{buy K}, \\boxed{sell K}, \\boxed{wait}."""

    max_turns = 14
    skill = "Optimization"

    def reset(self, seed=None, options=None):
        """Draw a price calendar, store size and fee; compute the best possible result."""
        self.rng = random.Random(seed)
        self.difficulty = read_difficulty(options, default=2)
        days = 6 + self.difficulty
        for attempt in range(40):  # noqa: B007 (no leading-underscore names allowed)
            price = self.rng.randint(8, 20)
            self.prices = []
            while len(self.prices) < days:
                self.prices.append(price)
                price = max(3, min(40, price + self.rng.choice([-7, -5, -3, -2, 2, 3, 5, 8])))
            self.cash = self.rng.randint(40, 70)
            self.storage = self.rng.randint(3, 3 + self.difficulty)
            self.fee = self.rng.randint(1, 2 + self.difficulty)
            self.optimum, self.plan = best_trades(self.prices, self.cash, self.storage, self.fee)
            trades = sum(1 for a in self.plan if a != "wait")
            if self.optimum > self.cash and trades >= 2 + (self.difficulty >= 3):
                break
        self.start_cash = self.cash
        self.day = 0
        self.held = 0
        self.log = []
        self.turn = 0
        self.done = False
        return self.render("The market opens."), self.info()

    def info(self):
        """Small JSON info for logs."""
        return {"turn": self.turn, "day": self.day, "cash": self.cash, "held": self.held}

    def render(self, message):
        """The observation: progress, last result, state and actions."""
        calendar = "  ".join(
            (f"[day {i + 1}: {p}]" if i == self.day else f"day {i + 1}: {p}")
            for i, p in enumerate(self.prices)
        )
        today = (
            f"Today is day {self.day + 1} of {len(self.prices)}"
            if self.day < len(self.prices)
            else "The market is closed"
        )
        return (
            f"Turn {self.turn} of {self.max_turns}. {today}.\n{message}\n\n"
            f"Coins {self.cash}; sacks held {self.held} of {self.storage}; fee per trade {self.fee}; "
            f"started with {self.start_cash} coins.\n"
            f"Price calendar (coins per sack): {calendar}\n"
            f"Your trades: {', '.join(self.log[-12:]) or 'none'}\n\n"
            "Actions (one per day, then the day ends): \\boxed{buy K}, \\boxed{sell K}, \\boxed{wait}."
        )

    def step(self, action):
        """Trade (or wait) for today, then move to the next day."""
        if self.done:
            return "The episode is over.", 0.0, True, False, self.info()
        self.turn += 1
        text = extract_boxed(action) if isinstance(action, str) else None
        words = text.lower().split() if text else []
        price = self.prices[self.day]
        reward, terminated = 0.0, False
        if words == ["wait"]:
            message = f"You waited on day {self.day + 1}."
            self.log.append(f"d{self.day + 1} wait")
        elif (
            len(words) == 2
            and words[0] in ("buy", "sell")
            and words[1].isdigit()
            and len(words[1]) < 4
        ):
            k = int(words[1])
            if k < 1:
                message = "Trade at least one sack. The day passed without a trade."
            elif words[0] == "buy" and self.held + k > self.storage:
                message = f"Your store holds {self.storage} sacks; you hold {self.held}. The day passed without a trade."
            elif words[0] == "buy" and k * price + self.fee > self.cash:
                message = f"{k} sacks cost {k * price} plus fee {self.fee}; you have {self.cash}. The day passed without a trade."
            elif words[0] == "sell" and k > self.held:
                message = f"You hold only {self.held} sacks. The day passed without a trade."
            elif words[0] == "buy":
                self.cash -= k * price + self.fee
                self.held += k
                message = f"Bought {k} at {price} (fee {self.fee})."
                self.log.append(f"d{self.day + 1} buy {k}")
            else:
                self.cash += k * price - self.fee
                self.held -= k
                message = f"Sold {k} at {price} (fee {self.fee})."
                self.log.append(f"d{self.day + 1} sell {k}")
        else:
            message = "Could not read the action (\\boxed{buy K}, \\boxed{sell K} or \\boxed{wait}). The day passed without a trade."
        self.day += 1
        if self.day >= len(self.prices):
            terminated = True
            if self.cash == self.optimum:
                reward = 1.0
                message += f" The market closes. You end with {self.cash} coins, the best possible. You win!"
            else:
                gain = max(0, self.cash - self.start_cash)
                reward = round(0.5 * gain / max(1, self.optimum - self.start_cash), 3)
                message += f" The market closes with {self.cash} coins; more was possible. Partial credit {reward}."
        self.done = terminated
        truncated = not terminated and self.turn >= self.max_turns
        if truncated:
            message += " Out of turns."
            self.done = True
        return self.render(message), reward, terminated, truncated, self.info()

    def solution(self):
        """The optimal trade calendar from dynamic programming over (day, sacks held)."""
        best, plan = best_trades(
            self.prices[self.day :], self.cash, self.storage, self.fee, self.held
        )
        return ["\\boxed{" + a + "}" for a in plan]

    def hint(self):
        """A nudge toward the method."""
        return (
            "Think backwards from the last day: for each day and number of sacks held, what is "
            "the most coins you could still end with? The fee makes small trades and tiny price "
            "rises unprofitable."
        )
