"""Schedule tasks on identical ovens so the last one finishes soonest."""

import random

from spadegym.program import extract_boxed


class OvenScheduleEnv:
    """Oven Schedule: spread baking tasks over identical ovens to finish as soon as possible.

    Each task bakes in a single oven; an oven bakes its tasks back to back, so it finishes
    after the sum of their durations. The makespan is the time the last oven finishes. Place
    (and move) tasks one per turn, then submit: you win if the makespan is the smallest
    possible (a larger one earns only partial credit).
    Replies: \\boxed{assign J M} bakes task J in oven M; \\boxed{unassign J};
    \\boxed{submit} once every task is placed."""

    skill = "Optimization"
    max_turns = 16

    def hint(self):
        """Method only."""
        return ("No makespan can beat the total baking time divided by the number of ovens; aim "
                "for oven loads near that bound and try swapping tasks between ovens.")

    def solution(self):
        """Place each task as in an optimal plan, then submit."""
        replies = []
        for task in range(len(self.plan)):
            oven = self.plan[task]
            if self.placed.get(task) != oven:
                replies.append("\\boxed{assign " + str(task + 1) + " " + str(oven + 1) + "}")
        replies.append("\\boxed{submit}")
        return replies

    def optimal(self):
        """Minimum makespan and a witness plan, by DP over sorted oven loads."""
        ovens = self.ovens
        frontier = {tuple([0] * ovens): []}
        for length in self.times:
            grown = {}
            for loads, plan in frontier.items():
                for oven in range(ovens):
                    new = list(loads)
                    new[oven] = new[oven] + length
                    key = tuple(sorted(new))
                    if key in grown:
                        continue
                    grown[key] = (new, plan + [oven])
            frontier = {}
            for key, pair in grown.items():
                new, plan = pair
                ranking = sorted(range(ovens), key=lambda i: (new[i], i))
                rename = {}
                for rank, old in enumerate(ranking):
                    rename[old] = rank
                frontier[key] = [rename[o] for o in plan]
        best = min(frontier, key=lambda loads: (max(loads), loads))
        return max(best), frontier[best]

    def longest_first(self):
        loads = [0 for _ in range(self.ovens)]
        for length in sorted(self.times, reverse=True):
            lightest = loads.index(min(loads))
            loads[lightest] += length
        return max(loads)

    def reset(self, seed=None, options=None):
        """Draw task times where longest-first usually misses the optimum."""
        self.rng = random.Random(seed)
        level = 2
        if isinstance(options, dict) and isinstance(options.get("difficulty", 2), int):
            level = max(1, min(5, options.get("difficulty", 2)))
        self.level = level
        self.ovens = 3 if level > 2 else 2
        count = level + 4
        if level >= 3:
            count += 1
        tries = 0
        while tries < 40:
            tries += 1
            self.times = [self.rng.randint(2, 19) for k in range(count)]
            self.best, self.plan = self.optimal()
            if level == 1 or self.longest_first() > self.best:
                break
        self.placed = {}
        self.t = 0
        self.over = False
        return self.board("Every oven is cold. Place the tasks."), {"turn": 0, "assigned": 0}

    def oven_loads(self):
        loads = [0] * self.ovens
        for task, oven in self.placed.items():
            loads[oven] += self.times[task]
        return loads

    def board(self, note):
        loads = self.oven_loads()
        rows = [note, f"Turn {self.t}/{self.max_turns}.", "",
                "Task times: " + ", ".join([f"J{i + 1}={t}" for i, t in enumerate(self.times)])]
        for oven in range(self.ovens):
            tasks = [f"J{t + 1}" for t in sorted(self.placed) if self.placed[t] == oven]
            rows.append("  machine %d: load %3d  jobs %s" % (oven + 1, loads[oven], " ".join(tasks) or "-"))
        waiting = [f"J{t + 1}" for t in range(len(self.times)) if t not in self.placed]
        rows.append(f"Unplaced: {' '.join(waiting) or 'none'}. Makespan now {max(loads)}.")
        rows.append("")
        rows.append("Replies: \\boxed{assign J M} (say \\boxed{assign 3 1}), \\boxed{unassign J}, \\boxed{submit}.")
        return "\n".join(rows)

    def step(self, action):
        """Place, unplace or submit."""
        if self.over:
            return "Game over.", 0.0, True, False, {"turn": self.t, "assigned": len(self.placed)}
        self.t += 1
        content = extract_boxed(action) if isinstance(action, str) else None
        tokens = content.lower().split() if content else []
        reward = 0.0
        ended = False
        count = len(self.times)
        values = []
        for token in tokens[1:]:
            stripped = token.lstrip("jm")
            if stripped.isdigit() and len(token) < 5:
                values.append(int(stripped))
        if tokens == ["submit"]:
            missing = count - len(self.placed)
            if missing > 0:
                note = f"{missing} task(s) have no oven yet; place every task first."
            else:
                ended = True
                span = max(self.oven_loads())
                if span == self.best:
                    reward = 1.0
                    note = f"Submitted: makespan {span}, as small as it gets. Victory!"
                else:
                    reward = round(0.5 * self.best / span, 3)
                    note = f"Submitted: makespan {span}; a smaller one is possible. Partial credit {reward}."
        elif len(tokens) == 3 and tokens[0] == "assign" and len(values) == 2:
            task = values[0] - 1
            oven = values[1] - 1
            if task < 0 or task >= count:
                note = f"No task {task + 1}; tasks are 1-{count}."
            elif oven < 0 or oven >= self.ovens:
                note = f"No oven {oven + 1}; ovens are 1-{self.ovens}."
            else:
                self.placed[task] = oven
                note = f"Task {task + 1} now bakes in oven {oven + 1}."
        elif len(tokens) == 2 and tokens[0] == "unassign" and len(values) == 1:
            task = values[0] - 1
            if task not in self.placed:
                note = f"Task {task + 1} is not placed."
            else:
                del self.placed[task]
                note = f"Task {task + 1} has been taken out."
        else:
            note = "Unreadable reply. Use \\boxed{assign J M}, \\boxed{unassign J} or \\boxed{submit}."
        self.over = ended
        cut = not ended and self.t >= self.max_turns
        if cut:
            note += " No turns remain."
            self.over = True
        return self.board(note), reward, ended, cut, {"turn": self.t, "assigned": len(self.placed)}
