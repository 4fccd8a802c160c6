"""CourierLoop: deliver to every stop on a city grid and return by the shortest round trip."""

import random

from spadegym.program import extract_boxed, read_difficulty

STOPS = "ABCDEFGHIJ"


def shortest_tour(dist, start, todo):
    """Held-Karp: the shortest walk from `start` through every stop in `todo` and back to 0.

    `dist` is a square matrix with the depot at index 0. Returns (length, order of stops)."""
    todo = sorted(todo)
    if not todo:
        return dist[start][0], []
    full = (1 << len(todo)) - 1
    table = {}
    for i, s in enumerate(todo):
        table[(1 << i, i)] = (dist[start][s], -1)
    for mask in range(1, full + 1):
        for i in range(len(todo)):
            if (mask, i) not in table:
                continue
            base = table[(mask, i)][0]
            for j in range(len(todo)):
                if mask & (1 << j):
                    continue
                key = (mask | (1 << j), j)
                cand = base + dist[todo[i]][todo[j]]
                if key not in table or cand < table[key][0]:
                    table[key] = (cand, i)
    best, last = None, -1
    for i in range(len(todo)):
        total = table[(full, i)][0] + dist[todo[i]][0]
        if best is None or total < best:
            best, last = total, i
    order, mask = [], full
    while last >= 0:
        order.append(todo[last])
        prev = table[(mask, last)][1]
        mask ^= 1 << last
        last = prev
    return best, order[::-1]


class CourierLoopEnv:
    """Courier Loop: visit every delivery stop and return to the depot on the shortest loop.

    The depot and the stops sit on a city grid; the distance between two places is the
    Manhattan distance |x1-x2| + |y1-y2| (shown in the table). Drive from place to place, one
    move per turn, visit every stop, then return to the depot. You win if your loop is as
    short as possible (a longer loop earns partial credit only).
    Action: \\boxed{go X} where X is a stop letter or DEPOT (only once every stop is visited)."""

    max_turns = 14
    skill = "Optimization"

    def reset(self, seed=None, options=None):
        """Place the depot and stops; make sure visiting stops in label order is not optimal."""
        self.rng = random.Random(seed)
        self.difficulty = read_difficulty(options, default=2)
        k = 3 + self.difficulty
        for attempt in range(40):  # noqa: B007 (no leading-underscore names allowed)
            spots = set()
            while len(spots) < k + 1:
                spots.add((self.rng.randint(0, 9), self.rng.randint(0, 9)))
            self.places = sorted(spots)
            self.rng.shuffle(self.places)
            self.dist = [
                [abs(a[0] - b[0]) + abs(a[1] - b[1]) for b in self.places] for a in self.places
            ]
            self.optimum, self.order = shortest_tour(self.dist, 0, range(1, k + 1))
            naive = sum(self.dist[i][i + 1] for i in range(k)) + self.dist[k][0]
            if naive > self.optimum:
                break
        self.position = 0
        self.visited = []
        self.length = 0
        self.turn = 0
        self.done = False
        return self.render("The van is loaded at the depot."), self.info()

    def label(self, i):
        """Name of place i (0 is the depot)."""
        return "DEPOT" if i == 0 else STOPS[i - 1]

    def info(self):
        """Small JSON info for logs."""
        return {"turn": self.turn, "visited": len(self.visited), "length": self.length}

    def render(self, message):
        """The observation: progress, last result, state and actions."""
        names = [self.label(i) for i in range(len(self.places))]
        where = ", ".join(f"{names[i]}=({x},{y})" for i, (x, y) in enumerate(self.places))
        header = "        " + "".join(f"{n[:5]:>6}" for n in names)
        rows = [header] + [
            f"  {names[i][:5]:>5} " + "".join(f"{self.dist[i][j]:6d}" for j in range(len(names)))
            for i in range(len(names))
        ]
        todo = [names[i] for i in range(1, len(names)) if i not in self.visited]
        return (
            f"Turn {self.turn} of {self.max_turns}.\n{message}\n\n"
            f"You are at {names[self.position]}. Driven so far {self.length}. "
            f"Route: {' -> '.join(['DEPOT'] + [names[i] for i in self.visited])}\n"
            f"Stops still to visit: {', '.join(todo) or 'none (return to DEPOT)'}\n"
            f"Places (x,y): {where}\nDistance table:\n" + "\n".join(rows) + "\n\n"
            "Action: \\boxed{go X}, X a stop letter, or \\boxed{go DEPOT} after the last stop."
        )

    def step(self, action):
        """Drive to one place."""
        if self.done:
            return "The episode is over.", 0.0, True, False, self.info()
        self.turn += 1
        text = extract_boxed(action) if isinstance(action, str) else None
        words = text.upper().split() if text else []
        reward, terminated = 0.0, False
        names = [self.label(i) for i in range(len(self.places))]
        if len(words) == 2 and words[0] == "GO" and words[1] in names:
            target = names.index(words[1])
            if target == self.position:
                message = f"You are already at {words[1]}."
            elif target == 0 and len(self.visited) < len(names) - 1:
                message = "Visit every stop before returning to the DEPOT."
            elif target in self.visited:
                message = f"Stop {words[1]} is already served; a second visit only adds distance, so it is refused."
            else:
                self.length += self.dist[self.position][target]
                self.position = target
                if target == 0:
                    terminated = True
                    if self.length == self.optimum:
                        reward = 1.0
                        message = (
                            f"Back at the depot after {self.length}: the shortest loop. You win!"
                        )
                    else:
                        reward = round(0.5 * self.optimum / self.length, 3)
                        message = f"Back at the depot after {self.length}; a shorter loop exists. Partial credit {reward}."
                else:
                    self.visited.append(target)
                    message = f"Delivered at {words[1]}."
        else:
            message = (
                f"Could not read the action. Write \\boxed{{go X}} with X in {', '.join(names)}."
            )
        self.done = terminated
        truncated = not terminated and self.turn >= self.max_turns
        if truncated:
            message += " Out of turns."
            self.done = True
        return self.render(message), reward, terminated, truncated, self.info()

    def solution(self):
        """The optimal loop from the Held-Karp dynamic program."""
        todo = [i for i in range(1, len(self.places)) if i not in self.visited]
        length, order = shortest_tour(self.dist, self.position, todo)
        return [f"\\boxed{{go {self.label(i)}}}" for i in order] + ["\\boxed{go DEPOT}"]

    def hint(self):
        """A nudge toward the method."""
        return (
            "Sketch the places on the grid: a shortest loop rarely crosses itself, so visit "
            "stops in the order they sit around the outside, then compare a few variants."
        )
