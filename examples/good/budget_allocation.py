import random
import re

from spadegym.program import extract_boxed, read_difficulty

LETTERS = "ABCDEFG"
NUMBER = re.compile(r"[0-9]{1,3}")


class BudgetAllocationEnv:
    """Budget allocation: spread your crews over projects for the largest total yield.

    You have a number of crews to assign to projects. Each project's yield depends on how many
    crews it gets, as its table shows. Assign crews one project at a time, in the order listed,
    with \\boxed{N}. When every project has its crews, you score your total yield divided by the
    best total possible; you win by reaching the best total.
    """

    max_turns = 10
    skill = "Optimization"

    def reset(self, seed=None, options=None):
        self.rng = random.Random(seed)
        difficulty = read_difficulty(options, default=1)
        self.count = 2 + difficulty
        self.crews = 4 + 2 * difficulty
        # From difficulty 3 on, some projects pay off only past a threshold, which defeats
        # the greedy "next crew to the best marginal gain" strategy.
        self.tables = [self.curve(difficulty >= 3) for _ in range(self.count)]
        self.best, self.plan = self.optimise()
        self.given = []
        return self.describe("A new budget."), self.info()

    def curve(self, thresholds):
        """Yields for 0..crews crews: never decreasing, usually with shrinking gains."""
        gain = self.rng.randint(6, 14)
        start = 0
        if thresholds and self.rng.random() < 0.5:
            start = self.rng.randint(2, 4)
            gain = gain * 2
        table = [0]
        for crews in range(1, self.crews + 1):
            step = 0
            if crews >= start:
                step = max(0, gain + self.rng.randint(-2, 1))
                gain = max(0, gain - self.rng.randint(1, 3))
            table.append(table[-1] + step)
        return table

    def optimise(self):
        """The largest total yield and one allocation that reaches it (dynamic programming)."""
        best = [0] * (self.crews + 1)  # best[b]: top yield of the projects so far with b crews
        choices = []
        for table in self.tables:
            new = [0] * (self.crews + 1)
            pick = [0] * (self.crews + 1)
            for budget in range(self.crews + 1):
                for give in range(budget + 1):
                    value = best[budget - give] + table[give]
                    if value > new[budget]:
                        new[budget] = value
                        pick[budget] = give
            best = new
            choices.append(pick)
        plan = []
        budget = self.crews
        for pick in reversed(choices):
            plan.append(pick[budget])
            budget = budget - pick[budget]
        return best[self.crews], plan[::-1]

    def info(self):
        return {"assigned": list(self.given), "crews_left": self.crews - sum(self.given)}

    def describe(self, lead):
        left = self.crews - sum(self.given)
        lines = [lead, f"You have {self.crews} crews and {self.count} projects."]
        lines.append("Yield of each project with 0, 1, 2, ... crews:")
        for i, table in enumerate(self.tables):
            given = f" (given {self.given[i]})" if i < len(self.given) else ""
            lines.append(f"Project {LETTERS[i]}{given}: " + ", ".join(str(v) for v in table))
        project = LETTERS[len(self.given)]
        lines.append(
            f"Crews left: {left}. How many crews go to project {project}? Answer with one "
            "whole number, e.g. \\boxed{2}; crews you do not assign are wasted."
        )
        return "\n".join(lines)

    def step(self, action):
        if len(self.given) == self.count:  # only after the episode ended
            return "Every project already has its crews.", 0.0, True, False, self.info()
        boxed = extract_boxed(action)
        left = self.crews - sum(self.given)
        if boxed is None or not NUMBER.fullmatch(boxed):
            lead = "Not a number of crews: put one whole number in \\boxed{}."
            return self.describe(lead), 0.0, False, False, self.info()
        if int(boxed) > left:
            lead = f"Only {left} crews are left; {int(boxed)} is too many."
            return self.describe(lead), 0.0, False, False, self.info()
        self.given.append(int(boxed))
        if len(self.given) < self.count:
            lead = f"Project {LETTERS[len(self.given) - 1]} gets {boxed} crews."
            return self.describe(lead), 0.0, False, False, self.info()
        total = sum(table[n] for table, n in zip(self.tables, self.given, strict=True))
        if total == self.best:
            message = f"Total yield {total}. No allocation does better: you win!"
            return message, 1.0, True, False, self.info()
        # Partial credit: the share of the best total that this allocation reached.
        score = round(total / self.best, 3) if self.best > 0 else 0.0
        message = f"Total yield {total}, but {self.best} was possible. Score {score}."
        return message, min(score, 0.999), True, False, self.info()

    def solution(self):
        return [f"\\boxed{{{n}}}" for n in self.plan]

    def hint(self):
        return (
            "Compare what the last crew adds in each project, and check whether moving crews "
            "into a project with a late payoff beats spreading them evenly."
        )
