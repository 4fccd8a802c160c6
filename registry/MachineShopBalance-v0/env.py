"""MachineShopBalance: assign jobs to parallel machines so the last machine finishes earliest."""

import random

from spadegym.program import extract_boxed, read_difficulty


def best_makespan(durations, machines):
    """Exact minimum makespan and one optimal assignment (job -> machine index).

    Dynamic programming over the sorted tuple of machine loads; each state remembers the
    assignment that produced it, so the answer comes back with a witness."""
    states = {tuple([0] * machines): []}
    for length in durations:
        nxt = {}
        for loads, plan in states.items():
            for m in range(machines):
                new = list(loads)
                new[m] += length
                key = tuple(sorted(new))
                if key not in nxt:
                    # Remember machine positions by load: map the sorted order back to machines.
                    nxt[key] = (new, plan + [m])
        states = {}
        for key, (new, plan) in nxt.items():
            order = sorted(range(machines), key=lambda i: (new[i], i))
            relabel = {old: rank for rank, old in enumerate(order)}
            states[key] = [relabel[m] for m in plan]
    best = min(states, key=lambda loads: (max(loads), loads))
    return max(best), states[best]


class MachineShopBalanceEnv:
    """Machine Shop Balance: spread jobs over identical machines to finish as early as possible.

    Every job runs on one machine; a machine runs its jobs one after another, so its finish
    time is the sum of its jobs' durations. The makespan is the latest finish time. Assign
    (and re-assign) jobs one per turn, then submit: you win if the makespan equals the
    smallest possible (a larger one earns partial credit only).
    Actions: \\boxed{assign J M} puts job J on machine M; \\boxed{unassign J};
    \\boxed{submit} when every job is assigned."""

    max_turns = 16
    skill = "Optimization"

    def reset(self, seed=None, options=None):
        """Draw job durations where the simple largest-first rule is not optimal when possible."""
        self.rng = random.Random(seed)
        self.difficulty = read_difficulty(options, default=2)
        self.machines = 2 if self.difficulty <= 2 else 3
        n = 4 + self.difficulty + (1 if self.difficulty >= 3 else 0)
        for attempt in range(40):  # noqa: B007 (no leading-underscore names allowed)
            self.durations = [self.rng.randint(2, 19) for k in range(n)]
            self.optimum, self.plan = best_makespan(self.durations, self.machines)
            if self.greedy() > self.optimum or self.difficulty == 1:
                break
        self.where = {}
        self.turn = 0
        self.done = False
        return self.render("All machines are idle. Assign the jobs."), self.info()

    def greedy(self):
        """Makespan of longest-job-first onto the least-loaded machine (a common trap)."""
        loads = [0] * self.machines
        for length in sorted(self.durations, reverse=True):
            loads[loads.index(min(loads))] += length
        return max(loads)

    def loads(self):
        """Current finish time of each machine."""
        out = [0] * self.machines
        for job, m in self.where.items():
            out[m] += self.durations[job]
        return out

    def info(self):
        """Small JSON info for logs."""
        return {"turn": self.turn, "assigned": len(self.where)}

    def render(self, message):
        """The observation: progress, last result, state and actions."""
        jobs = ", ".join(f"J{i + 1}={d}" for i, d in enumerate(self.durations))
        lines = []
        loads = self.loads()
        for m in range(self.machines):
            mine = [f"J{j + 1}" for j in sorted(self.where) if self.where[j] == m]
            lines.append(f"  machine {m + 1}: load {loads[m]:3d}  jobs {' '.join(mine) or '-'}")
        waiting = [f"J{j + 1}" for j in range(len(self.durations)) if j not in self.where]
        return (
            f"Turn {self.turn} of {self.max_turns}.\n{message}\n\n"
            f"Job durations: {jobs}\n" + "\n".join(lines) + "\n"
            f"Unassigned: {' '.join(waiting) or 'none'}. Current makespan {max(loads)}.\n\n"
            "Actions: \\boxed{assign J M} (e.g. \\boxed{assign 3 1}), \\boxed{unassign J}, "
            "\\boxed{submit}."
        )

    def step(self, action):
        """Assign, unassign, or submit."""
        if self.done:
            return "The episode is over.", 0.0, True, False, self.info()
        self.turn += 1
        text = extract_boxed(action) if isinstance(action, str) else None
        words = text.lower().split() if text else []
        reward, terminated = 0.0, False
        n = len(self.durations)
        # Accept "J3" and "M2" as well as bare numbers.
        numbers = [
            int(w.lstrip("jm")) for w in words[1:] if w.lstrip("jm").isdigit() and len(w) < 5
        ]
        if words == ["submit"]:
            if len(self.where) < n:
                message = (
                    f"{n - len(self.where)} job(s) are still unassigned; assign every job first."
                )
            else:
                terminated = True
                span = max(self.loads())
                if span == self.optimum:
                    reward = 1.0
                    message = f"Submitted: makespan {span}, the smallest possible. You win!"
                else:
                    reward = round(0.5 * self.optimum / span, 3)
                    message = f"Submitted: makespan {span}; a smaller one exists. Partial credit {reward}."
        elif words and words[0] == "assign" and len(numbers) == 2 and len(words) == 3:
            job, m = numbers[0] - 1, numbers[1] - 1
            if not 0 <= job < n:
                message = f"There is no job {job + 1}; jobs are 1-{n}."
            elif not 0 <= m < self.machines:
                message = f"There is no machine {m + 1}; machines are 1-{self.machines}."
            else:
                self.where[job] = m
                message = f"Job {job + 1} now runs on machine {m + 1}."
        elif words and words[0] == "unassign" and len(numbers) == 1 and len(words) == 2:
            job = numbers[0] - 1
            if job in self.where:
                self.where.pop(job)
                message = f"Job {job + 1} is unassigned."
            else:
                message = f"Job {job + 1} is not assigned."
        else:
            message = "Could not read the action. Use \\boxed{assign J M}, \\boxed{unassign J} or \\boxed{submit}."
        self.done = terminated
        truncated = not terminated and self.turn >= self.max_turns
        if truncated:
            message += " Out of turns."
            self.done = True
        return self.render(message), reward, terminated, truncated, self.info()

    def solution(self):
        """Assign every job as in an optimal plan from dynamic programming, then submit."""
        moves = []
        for job, m in enumerate(self.plan):
            if self.where.get(job) != m:
                moves.append(f"\\boxed{{assign {job + 1} {m + 1}}}")
        return moves + ["\\boxed{submit}"]

    def hint(self):
        """A nudge toward the method."""
        return (
            "The makespan can never be below the total work divided by the number of machines; "
            "aim for loads close to that bound and try swapping jobs between machines."
        )
