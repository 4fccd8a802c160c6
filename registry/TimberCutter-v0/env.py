"""TimberCutter: saw logs into priced pieces to earn the most, paying a fee for every cut."""

import random

from spadegym.program import extract_boxed, read_difficulty


def best_cuts(length, prices, fee):
    """Best earnings from one log of `length` and the pieces (in order) that reach it.

    Selling the whole remaining log needs no saw cut; any shorter piece costs `fee`. The
    rest of a log may also be left unsold (earning 0)."""
    best = [(0, [])]
    for n in range(1, length + 1):
        top = (0, [])
        for piece in range(1, min(n, len(prices)) + 1):
            if piece == n:
                cand = (prices[piece - 1], [piece])
            else:
                rest = best[n - piece]
                cand = (prices[piece - 1] - fee + rest[0], [piece] + rest[1])
            if cand[0] > top[0] or (cand[0] == top[0] and len(cand[1]) < len(top[1])):
                top = cand
        best.append(top)
    return best[length]


class TimberCutterEnv:
    """Timber Cutter: saw logs into pieces for the best total earnings.

    Buyers pay a fixed price for a piece of each length (up to the longest length listed).
    Each turn you take one piece off the end of a log and sell it. Taking a piece shorter
    than what is left of the log needs a saw cut, which costs a fee; selling the whole
    remaining log costs nothing. Unsold offcuts earn nothing. Declare done to close the
    yard: you win if your earnings are the highest possible (less earns partial credit).
    Actions: \\boxed{cut LOG LEN} sells a piece of length LEN from log LOG; \\boxed{done}."""

    max_turns = 16
    skill = "Optimization"

    def reset(self, seed=None, options=None):
        """Draw logs and a price list where greedy cutting is not optimal when possible."""
        self.rng = random.Random(seed)
        self.difficulty = read_difficulty(options, default=2)
        logs = 2 if self.difficulty <= 2 else 3 if self.difficulty <= 4 else 4
        longest = 5 + min(3, self.difficulty)
        for attempt in range(200):
            # Price per unit of length tends to rise with length, so long pieces usually pay
            # but not always: the noise makes some short lengths good deals.
            rate = self.rng.randint(2, 4)
            self.prices = []
            for piece in range(1, longest + 1):
                self.prices.append(
                    max(1, piece * rate + piece * piece // 3 + self.rng.randint(-4, 5))
                )
            self.fee = self.rng.randint(1, 4)
            self.logs = [self.rng.randint(longest - 1, longest + 6) for k in range(logs)]
            plans = [best_cuts(n, self.prices, self.fee) for n in self.logs]
            self.optimum = sum(p[0] for p in plans)
            self.plans = [p[1] for p in plans]
            pieces = sum(len(p) for p in self.plans)
            fits = logs + 1 <= pieces <= self.max_turns - 4
            if fits and (self.optimum > self.greedy() or attempt >= 100):
                break
        self.left = list(self.logs)
        self.earned = 0
        self.sold = []
        self.turn = 0
        self.done = False
        return self.render("The logs are stacked in the yard."), self.info()

    def greedy(self):
        """Earnings of always selling the longest allowed piece (a common trap)."""
        total = 0
        for n in self.logs:
            while n > 0:
                piece = min(n, len(self.prices))
                total += self.prices[piece - 1] - (self.fee if piece < n else 0)
                n -= piece
        return total

    def info(self):
        """Small JSON info for logs."""
        return {"turn": self.turn, "earned": self.earned}

    def render(self, message):
        """The observation: progress, last result, state and actions."""
        prices = ", ".join(f"{i + 1}:{p}" for i, p in enumerate(self.prices))
        logs = ", ".join(
            f"log {i + 1}: {n} left (of {self.logs[i]})" for i, n in enumerate(self.left)
        )
        return (
            f"Turn {self.turn} of {self.max_turns}.\n{message}\n\n"
            f"Price per piece (length:price): {prices}\nSaw fee per cut: {self.fee}\n"
            f"Logs: {logs}\nEarned so far: {self.earned}. Pieces sold: {', '.join(self.sold[-14:]) or 'none'}\n\n"
            "Actions: \\boxed{cut LOG LEN} (e.g. \\boxed{cut 1 3}), \\boxed{done}."
        )

    def step(self, action):
        """Sell one piece or close the yard."""
        if self.done:
            return "The episode is over.", 0.0, True, False, self.info()
        self.turn += 1
        text = extract_boxed(action) if isinstance(action, str) else None
        words = text.lower().split() if text else []
        reward, terminated = 0.0, False
        if words == ["done"]:
            terminated = True
            if self.earned == self.optimum:
                reward = 1.0
                message = f"Yard closed with {self.earned}, the most possible. You win!"
            else:
                reward = round(0.5 * max(0, self.earned) / self.optimum, 3)
                message = (
                    f"Yard closed with {self.earned}; more was possible. Partial credit {reward}."
                )
        elif (
            len(words) == 3
            and words[0] == "cut"
            and words[1].isdigit()
            and words[2].isdigit()
            and len(words[1]) < 4
            and len(words[2]) < 4
        ):
            log, piece = int(words[1]) - 1, int(words[2])
            if not 0 <= log < len(self.left):
                message = f"There is no log {log + 1}; logs are 1-{len(self.left)}."
            elif not 1 <= piece <= len(self.prices):
                message = f"Pieces are 1-{len(self.prices)} long."
            elif piece > self.left[log]:
                message = f"Log {log + 1} has only {self.left[log]} left."
            else:
                fee = self.fee if piece < self.left[log] else 0
                self.left[log] -= piece
                self.earned += self.prices[piece - 1] - fee
                self.sold.append(f"{piece} from log {log + 1}")
                message = (
                    f"Sold a {piece}-piece from log {log + 1} for {self.prices[piece - 1]}"
                    + (f", minus fee {fee}." if fee else ", no cut needed.")
                )
        else:
            message = "Could not read the action. Use \\boxed{cut LOG LEN} or \\boxed{done}."
        self.done = terminated
        truncated = not terminated and self.turn >= self.max_turns
        if truncated:
            message += " Out of turns."
            self.done = True
        return self.render(message), reward, terminated, truncated, self.info()

    def solution(self):
        """Cut each log by its dynamic-programming plan, then close the yard."""
        moves = []
        for i, plan in enumerate(self.plans):
            moves += [f"\\boxed{{cut {i + 1} {p}}}" for p in plan]
        return moves + ["\\boxed{done}"]

    def hint(self):
        """A nudge toward the method."""
        return (
            "Work out, for each possible remaining length, the best you can earn from it; "
            "compare price per unit of length with the fee, and remember the last piece of a "
            "log needs no cut."
        )
