"""GcdArchipelago: sail between islands whose numbers share a factor (Mathematical_Reasoning)."""

import math
import random
from collections import deque

from spadegym.program import extract_boxed, read_difficulty

PRIMES = {1: [2, 3, 5, 7, 11, 13], 2: [2, 3, 5, 7, 11, 13, 17], 3: [2, 3, 5, 7, 11, 13, 17, 19],
          4: [2, 3, 5, 7, 11, 13, 17, 19, 23], 5: [2, 3, 5, 7, 11, 13, 17, 19, 23, 29]}
ISLANDS = {1: 7, 2: 9, 3: 11, 4: 13, 5: 15}
DEPTH = {1: (3, 3), 2: (3, 4), 3: (4, 5), 4: (4, 6), 5: (5, 7)}
SLACK = 2


def shortest_route(islands, start, goal):
    """Fewest sails from ``start`` to ``goal`` (gcd > 1 between hops), as a list of islands."""
    prev = {start: None}
    queue = deque([start])
    while queue:
        x = queue.popleft()
        if x == goal:
            route = []
            while x is not None:
                route.append(x)
                x = prev[x]
            return route[::-1]
        for y in islands:
            if y not in prev and math.gcd(x, y) > 1:
                prev[y] = x
                queue.append(y)
    return None


def divisor_count(n):
    """The number of positive divisors of ``n``."""
    return sum(1 for d in range(1, n + 1) if n % d == 0)


def clues_for(n):
    """Statements about ``n`` that can single it out, with their test functions."""
    digits = sum(int(c) for c in str(n))
    divisors = divisor_count(n)
    out = [
        (f"its number has exactly {divisors} divisors", lambda x, k=divisors: divisor_count(x) == k),
        (f"its digits sum to {digits}", lambda x, s=digits: sum(int(c) for c in str(x)) == s),
        (f"its number leaves remainder {n % 7} when divided by 7", lambda x, r=n % 7: x % 7 == r),
        (f"its number leaves remainder {n % 4} when divided by 4", lambda x, r=n % 4: x % 4 == r),
        (f"its number is {'odd' if n % 2 else 'even'}", lambda x, r=n % 2: x % 2 == r),
        (f"its number is between {n - n % 50} and {n - n % 50 + 49}", lambda x, b=n - n % 50: b <= x <= b + 49),
    ]
    return out


class GcdArchipelagoEnv:
    """Gcd Archipelago: sail between islands whose numbers share a prime factor to find the treasure.

    Every island is labelled with a whole number. A ship may sail from one island straight to
    another only when the two numbers share a common factor greater than 1. A clue describes
    the treasure island. Sail one hop per turn and reach the treasure within the turn limit;
    a hop between coprime islands fails and wastes the turn. Answer like \\boxed{sail 35}.
    """

    max_turns = 10
    skill = "Mathematical_Reasoning"

    def reset(self, seed=None, options=None):
        """Build a new archipelago from ``seed`` and the difficulty in ``options``."""
        self.rng = random.Random(seed)
        self.difficulty = read_difficulty(options, default=2)
        low, high = DEPTH[self.difficulty]
        primes = PRIMES[self.difficulty]
        while True:
            length = self.rng.randint(low, high)
            chain_primes = self.rng.sample(primes, length + 2)
            # a chain of products of consecutive primes guarantees a long route exists
            chain = [chain_primes[i] * chain_primes[i + 1] for i in range(length + 1)]
            extras = [p for p in primes if p not in chain_primes]
            islands = set(chain)
            tries = 0
            while len(islands) < ISLANDS[self.difficulty] and tries < 200:
                tries += 1
                # a decoy joins two neighbouring chain primes or a chain prime and an outsider,
                # so decoys add dead ends and side loops but never a long shortcut
                a = chain_primes[self.rng.randrange(length + 2)]
                b = self.rng.choice(extras + [a]) if extras else a
                value = a * b * (self.rng.choice(extras) if extras and self.rng.random() < 0.3 else 1)
                if value <= 999:
                    islands.add(value)
            self.islands = sorted(islands)
            self.start, self.goal = chain[0], chain[-1]
            route = shortest_route(self.islands, self.start, self.goal)
            if route is None or not low <= len(route) - 1 <= high:
                continue
            self.clue = self.pick_clue()
            if self.clue:
                break
        self.optimal = len(route) - 1
        self.limit = self.optimal + SLACK
        self.here = self.start
        self.visited = [self.start]
        self.turn = 0
        self.done = False
        return self.render("You set out from your home island."), self.info()

    def pick_clue(self):
        """One or two clue statements true only of the treasure island, or ''."""
        clues = clues_for(self.goal)
        self.rng.shuffle(clues)
        others = [x for x in self.islands if x != self.goal]
        for text, test in clues:
            if not any(test(x) for x in others):
                return text
        for i in range(len(clues)):
            for j in range(i + 1, len(clues)):
                if not any(clues[i][1](x) and clues[j][1](x) for x in others):
                    return clues[i][0] + " and " + clues[j][0]
        return ""

    def info(self):
        """A small JSON-able summary of the state."""
        return {"turn": self.turn, "island": self.here, "limit": self.limit,
                "difficulty": self.difficulty}

    def render(self, result):
        """The observation text: result, state, actions and progress."""
        return "\n".join([
            f"Turn {self.turn} of {self.limit}.",
            result,
            "Islands: " + ", ".join(str(x) for x in self.islands),
            f"You are on island {self.here}. Route so far: {' -> '.join(str(x) for x in self.visited)}",
            f"Treasure clue: the treasure island is the only island where {self.clue}.",
            "Rule: you may sail from island a to island b only if gcd(a, b) > 1.",
            "Action: \\boxed{sail N} with N an island number.",
        ])

    def step(self, action):
        """Sail one hop."""
        if self.done:
            return "The episode is over; call reset() to play again.", 0.0, True, False, self.info()
        self.turn += 1
        box = extract_boxed(action)
        words = box.lower().split() if box is not None else []
        if words and words[0] in ("sail", "go", "to"):
            words = words[1:]
        if box is None:
            result = "No \\boxed{...} answer found; you stayed put."
        elif len(words) != 1 or not words[0].isdigit() or len(words[0]) > 6:
            result = f"'{box[:40]}' is not 'sail N' with N a whole number; you stayed put."
        elif int(words[0]) not in self.islands:
            result = f"There is no island {words[0]}; you stayed put."
        elif int(words[0]) == self.here:
            result = "You are already there."
        else:
            there = int(words[0])
            g = math.gcd(self.here, there)
            if g == 1:
                result = f"{self.here} and {there} share no factor: the currents push you back."
            else:
                self.here = there
                self.visited.append(there)
                result = f"You sailed to {there} (shared factor {g})."
                if there == self.goal:
                    self.done = True
                    return self.render(result + " You dig up the treasure!"), 1.0, True, False, self.info()
                result += " No treasure here."
        if self.turn >= self.limit:
            self.done = True
            return self.render(result + " Your supplies ran out."), 0.0, True, False, self.info()
        return self.render(result), 0.0, False, False, self.info()

    def solution(self):
        """The shortest route to the treasure, by breadth-first search over shared factors."""
        route = shortest_route(self.islands, self.start, self.goal)
        return ["\\boxed{sail " + str(x) + "}" for x in route[1:]]

    def hint(self):
        """A nudge about the approach."""
        return ("Factor every island number first and use the clue to pin down the treasure. "
                "Then think of each prime as a ferry line: plan a chain of islands in which each "
                "consecutive pair shares a prime.")
