"""Sawmill profits: cut planks to length for the best price."""

import random

from spadegym.program import extract_boxed


class PlankSawmillEnv:
    """Plank Sawmill: cut boards into priced lengths and earn as much as possible.

    Customers pay a set price for a plank of each length, up to the longest length on the list.
    Each turn you saw one plank off the end of a board and sell it. A plank shorter than what
    remains of the board requires a saw cut, which costs a fee; selling all that remains of a
    board needs no cut. Leftovers earn nothing. Say done to shut the mill: you win if your
    total is the best achievable (a lower total gets partial credit).
    Replies: \\boxed{cut LOG LEN} sells a plank of length LEN from board LOG; \\boxed{done}."""

    skill = "Optimization"
    max_turns = 16

    def hint(self):
        """Method only."""
        return ("For every length a board might have left, find the most it can earn; weigh the "
                "price per unit length against the fee, and recall the final plank of a board "
                "needs no cut.")

    def solution(self):
        """Saw every board by its optimal plan and shut the mill."""
        replies = []
        for board, plan in enumerate(self.plans, start=1):
            for plank in plan:
                replies.append("\\boxed{cut %d %d}" % (board, plank))
        replies.append("\\boxed{done}")
        return replies

    def best(self, size):
        """(best income, planks in order) for one board of ``size``."""
        table = [(0, [])]
        for n in range(1, size + 1):
            choice = (0, [])
            for plank in range(1, min(n, len(self.price)) + 1):
                if plank == n:
                    option = (self.price[plank - 1], [plank])
                else:
                    sub = table[n - plank]
                    option = (self.price[plank - 1] - self.fee + sub[0], [plank] + sub[1])
                better = option[0] > choice[0]
                tie = option[0] == choice[0] and len(option[1]) < len(choice[1])
                if better or tie:
                    choice = option
            table.append(choice)
        return table[size]

    def naive(self):
        """Income from always selling the longest plank allowed."""
        income = 0
        for size in self.boards:
            while size > 0:
                plank = min(size, len(self.price))
                income += self.price[plank - 1]
                if plank < size:
                    income -= self.fee
                size -= plank
        return income

    def reset(self, seed=None, options=None):
        """Draw boards and prices so that greedy sawing usually falls short."""
        self.rng = random.Random(seed)
        level = 2
        if isinstance(options, dict) and isinstance(options.get("difficulty", 2), int):
            level = max(1, min(5, options.get("difficulty", 2)))
        self.level = level
        if level <= 2:
            count = 2
        elif level <= 4:
            count = 3
        else:
            count = 4
        top = 5 + min(3, level)
        attempt = 0
        while attempt < 200:
            per_unit = self.rng.randint(2, 4)
            self.price = [max(1, p * per_unit + p * p // 3 + self.rng.randint(-4, 5)) for p in range(1, top + 1)]
            self.fee = self.rng.randint(1, 4)
            self.boards = [self.rng.randint(top - 1, top + 6) for k in range(count)]
            results = [self.best(size) for size in self.boards]
            self.target = sum(r[0] for r in results)
            self.plans = [r[1] for r in results]
            planks = sum(len(plan) for plan in self.plans)
            if count + 1 <= planks <= self.max_turns - 4 and (self.target > self.naive() or attempt >= 100):
                break
            attempt += 1
        self.remaining = self.boards[:]
        self.income = 0
        self.log = []
        self.t = 0
        self.over = False
        return self.report("Boards are piled up at the mill."), {"turn": 0, "earned": 0}

    def report(self, note):
        prices = ", ".join([f"{k}:{p}" for k, p in enumerate(self.price, start=1)])
        boards = ", ".join([f"log {k + 1}: {left} left (of {self.boards[k]})" for k, left in enumerate(self.remaining)])
        sold = ", ".join(self.log[-14:]) or "none"
        return (f"{note}\nTurn {self.t}/{self.max_turns}.\n\n"
                f"Plank prices (length:price): {prices}\nFee per saw cut: {self.fee}\n"
                f"Boards: {boards}\nIncome so far: {self.income}. Planks sold: {sold}\n\n"
                "Replies: \\boxed{cut LOG LEN} (say \\boxed{cut 1 3}) or \\boxed{done}.")

    def step(self, action):
        """Sell a plank or shut the mill."""
        if self.over:
            return "The game has ended.", 0.0, True, False, {"turn": self.t, "earned": self.income}
        self.t += 1
        content = extract_boxed(action) if isinstance(action, str) else None
        tokens = content.lower().split() if content else []
        reward = 0.0
        ended = False
        if tokens == ["done"]:
            ended = True
            if self.income != self.target:
                reward = round(0.5 * max(0, self.income) / self.target, 3)
                note = f"Mill shut with {self.income}; a better total existed. Partial credit {reward}."
            else:
                reward = 1.0
                note = f"Mill shut with {self.income}, the best achievable. Victory!"
        elif (len(tokens) == 3 and tokens[0] == "cut" and tokens[1].isdigit() and tokens[2].isdigit()
              and len(tokens[1]) < 4 and len(tokens[2]) < 4):
            board = int(tokens[1]) - 1
            plank = int(tokens[2])
            if board < 0 or board >= len(self.remaining):
                note = f"No board {board + 1}; boards are 1-{len(self.remaining)}."
            elif plank < 1 or plank > len(self.price):
                note = f"Planks are 1-{len(self.price)} long."
            elif plank > self.remaining[board]:
                note = f"Board {board + 1} has only {self.remaining[board]} left."
            else:
                fee = 0 if plank == self.remaining[board] else self.fee
                self.remaining[board] -= plank
                self.income += self.price[plank - 1] - fee
                self.log.append(f"{plank} from log {board + 1}")
                note = f"Sold a {plank}-plank from board {board + 1} for {self.price[plank - 1]}"
                note += f", less fee {fee}." if fee else ", no cut required."
        else:
            note = "Unreadable reply. Use \\boxed{cut LOG LEN} or \\boxed{done}."
        self.over = ended
        cut = not ended and self.t >= self.max_turns
        if cut:
            note += " No turns remain."
            self.over = True
        return self.report(note), reward, ended, cut, {"turn": self.t, "earned": self.income}
