"""TankerRoute: drive the shortest route to a depot when a small tank forces refuelling stops."""

import heapq
import random

from spadegym.program import extract_boxed, read_difficulty

NAMES = "ABCDEFGHIJKLMN"


def plan(roads, stations, capacity, start, fuel, goal):
    """Shortest fuel-feasible route by Dijkstra over (town, fuel) states.

    Returns (distance, moves) with moves like ['go B', 'refuel'], or (None, []) when the goal
    cannot be reached. Ties are broken by fewer moves."""
    best = {(start, fuel): (0, 0)}
    queue = [(0, 0, start, fuel, [])]
    while queue:
        dist, count, town, tank, moves = heapq.heappop(queue)
        if town == goal:
            return dist, moves
        if best.get((town, tank), (dist, count)) < (dist, count):
            continue
        options = []
        if town in stations and tank < capacity:
            options.append((town, capacity, 0, "refuel"))
        for other, length in sorted(roads[town].items()):
            if length <= tank:
                options.append((other, tank - length, length, "go " + other))
        for nxt, left, length, move in options:
            key = (dist + length, count + 1)
            if key < best.get((nxt, left), (10**9, 0)):
                best[(nxt, left)] = key
                heapq.heappush(queue, (dist + length, count + 1, nxt, left, moves + [move]))
    return None, []


class TankerRouteEnv:
    """Tanker Route: reach the depot by the shortest route your fuel tank allows.

    Towns are joined by roads of given lengths. Driving a road burns one unit of fuel per
    unit of length, and you cannot start a road you lack the fuel for. Towns marked with a
    station refill the tank to full. You win by arriving at the depot having driven the
    least total distance possible (a longer drive earns partial credit only).
    Actions: \\boxed{go X} drives to neighbouring town X; \\boxed{refuel} fills the tank at a
    station."""

    max_turns = 14
    skill = "Optimization"

    def reset(self, seed=None, options=None):
        """Build a road map where the plain shortest path is not fuel-feasible when possible."""
        self.rng = random.Random(seed)
        self.difficulty = read_difficulty(options, default=2)
        n = 6 + self.difficulty
        for attempt in range(80):  # noqa: B007 (no leading-underscore names allowed)
            self.build_map(n)
            fuel_plan = plan(
                self.roads, self.stations, self.capacity, self.start, self.capacity, self.goal
            )
            if fuel_plan[0] is None or len(fuel_plan[1]) < 3 + self.difficulty // 2:
                continue
            # With a tank as long as the whole map the fuel limit vanishes: the plain shortest path.
            unlimited = sum(sum(r.values()) for r in self.roads.values())
            free_plan = plan(self.roads, set(), unlimited, self.start, unlimited, self.goal)
            if self.difficulty == 1 or fuel_plan[0] > free_plan[0] or len(fuel_plan[1]) >= 6:
                break
        self.optimum, self.route = fuel_plan
        self.town = self.start
        self.fuel = self.capacity
        self.driven = 0
        self.trail = [self.start]
        self.turn = 0
        self.done = False
        return self.render(f"You start at {self.start} with a full tank."), self.info()

    def build_map(self, n):
        """Random towns on a plane, each joined to its nearest neighbours."""
        self.towns = list(NAMES[:n])
        spots = {}
        for t in self.towns:
            spots[t] = (self.rng.randint(0, 12), self.rng.randint(0, 12))
        self.roads = {t: {} for t in self.towns}
        for t in self.towns:
            near = sorted(
                (abs(spots[t][0] - spots[o][0]) + abs(spots[t][1] - spots[o][1]), o)
                for o in self.towns
                if o != t
            )
            for length, other in near[:3]:
                length = max(2, length)
                self.roads[t][other] = length
                self.roads[other][t] = length
        self.start, self.goal = self.rng.sample(self.towns, 2)
        self.stations = set(
            self.rng.sample([t for t in self.towns if t not in (self.start, self.goal)], 2 + n // 4)
        )
        longest = max(max(r.values()) for r in self.roads.values())
        self.capacity = max(longest, self.rng.randint(8, 12))

    def info(self):
        """Small JSON info for logs."""
        return {"turn": self.turn, "town": self.town, "fuel": self.fuel, "driven": self.driven}

    def render(self, message):
        """The observation: progress, last result, state and actions."""
        lines = []
        for t in self.towns:
            roads = ", ".join(f"{o}:{d}" for o, d in sorted(self.roads[t].items()))
            tags = (" [station]" if t in self.stations else "") + (
                " [depot]" if t == self.goal else ""
            )
            lines.append(f"  {t}{tags} -> {roads}")
        return (
            f"Turn {self.turn} of {self.max_turns}.\n{message}\n\n"
            f"You are at {self.town}. Fuel {self.fuel} of {self.capacity}. Distance driven {self.driven}. "
            f"Depot: {self.goal}. Route so far: {'-'.join(self.trail)}\n"
            "Roads (neighbour:length):\n" + "\n".join(lines) + "\n\n"
            "Actions: \\boxed{go X} to drive to a neighbour, \\boxed{refuel} at a station."
        )

    def step(self, action):
        """Drive one road or refuel."""
        if self.done:
            return "The episode is over.", 0.0, True, False, self.info()
        self.turn += 1
        text = extract_boxed(action) if isinstance(action, str) else None
        words = text.split() if text else []
        reward, terminated = 0.0, False
        if len(words) == 1 and words[0].lower() == "refuel":
            if self.town not in self.stations:
                message = f"{self.town} has no station; refuel only at towns marked [station]."
            else:
                self.fuel = self.capacity
                message = f"Tank filled at {self.town}."
        elif len(words) == 2 and words[0].lower() == "go":
            target = words[1].upper()
            if target not in self.roads[self.town]:
                message = f"No road from {self.town} to {target[:10]}; neighbours: {', '.join(sorted(self.roads[self.town]))}."
            elif self.roads[self.town][target] > self.fuel:
                message = f"The road to {target} is {self.roads[self.town][target]} long but you have {self.fuel} fuel."
            else:
                length = self.roads[self.town][target]
                self.fuel -= length
                self.driven += length
                self.town = target
                self.trail.append(target)
                message = f"Drove to {target} ({length})."
                if target == self.goal:
                    terminated = True
                    if self.driven == self.optimum:
                        reward = 1.0
                        message += f" Depot reached in {self.driven}, the shortest feasible route. You win!"
                    else:
                        reward = round(0.5 * self.optimum / self.driven, 3)
                        message += f" Depot reached in {self.driven}; a shorter feasible route exists. Partial credit {reward}."
        else:
            message = "Could not read the action. Use \\boxed{go X} or \\boxed{refuel}."
        self.done = terminated
        truncated = not terminated and self.turn >= self.max_turns
        if truncated:
            message += " Out of turns."
            self.done = True
        return self.render(message), reward, terminated, truncated, self.info()

    def solution(self):
        """The optimal route from the current state, found by Dijkstra over fuel levels."""
        dist, moves = plan(
            self.roads, self.stations, self.capacity, self.town, self.fuel, self.goal
        )
        return ["\\boxed{" + m + "}" for m in moves]

    def hint(self):
        """A nudge toward the method."""
        return (
            "Track fuel as part of your position: list which stations you can reach on the "
            "current tank and which roads to the depot fit in a full tank, then compare totals."
        )
