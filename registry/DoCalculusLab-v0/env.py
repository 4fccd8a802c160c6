"""DoCalculusLab: tell direct causes from indirect ones in a hidden causal network by intervening."""

import random

from spadegym.program import extract_boxed, read_difficulty

NAMES = "ABCDEFGHJKLMNPQRSTUVWXYZ"


def combine(kind, bits):
    """Mechanism of a variable from its parents' values."""
    if kind == "AND":
        return int(all(bits))
    if kind == "OR":
        return int(any(bits))
    return sum(bits) % 2


class DoCalculusLabEnv:
    """Do-Calculus Lab: find the direct causes of a target variable by intervention.

    Binary variables (0/1) form a hidden causal network: each variable is either a root with
    a fixed natural value or is computed from its direct causes by an AND, OR or XOR rule.
    You may intervene: force any variables except the target to chosen values and see every
    variable's resulting value. Then name exactly the direct causes (parents) of the target;
    a variable that acts only through others is not a direct cause. One answer, no retries.
    Actions: \\boxed{do A=1 C=0 ...}; \\boxed{observe} (no intervention);
    \\boxed{parents A C} (final answer; \\boxed{parents none} if it has no causes)."""

    max_turns = 10
    skill = "Causal_Inference"

    def reset(self, seed=None, options=None):
        """Draw a causal network and a target with indirect ancestors."""
        self.rng = random.Random(seed)
        self.difficulty = read_difficulty(options, default=2)
        self.n = 4 + self.difficulty
        for attempt in range(100):  # noqa: B007 (no leading-underscore names allowed)
            self.parents = []
            self.kinds = []
            for v in range(self.n):
                if v < 2 or self.rng.random() < 0.2:
                    self.parents.append([])
                    self.kinds.append("ROOT")
                else:
                    k = self.rng.randint(1, min(3, v))
                    self.parents.append(sorted(self.rng.sample(range(v), k)))
                    self.kinds.append(self.rng.choice(["AND", "OR", "XOR"]) if k > 1 else "XOR")
            self.natural = [self.rng.randint(0, 1) for v in range(self.n)]
            candidates = [
                v
                for v in range(self.n)
                if self.parents[v] and self.ancestors(v) - set(self.parents[v])
            ]
            if candidates:
                self.target = self.rng.choice(candidates)
                break
        # Random letters in random order, so names carry no hint of the causal order.
        letters = self.rng.sample(NAMES, self.n)
        self.label = {v: letters[v] for v in range(self.n)}
        self.log = [f"nothing forced -> {self.show(self.run({}))}"]
        self.turn = 0
        self.done = False
        return self.render("The lab is ready."), self.info()

    def ancestors(self, v):
        """All variables with a directed path into v."""
        seen, stack = set(), list(self.parents[v])
        while stack:
            u = stack.pop()
            if u not in seen:
                seen.add(u)
                stack.extend(self.parents[u])
        return seen

    def run(self, forced):
        """Values of all variables with `forced` ({var: value}) held fixed."""
        values = [0] * self.n
        for v in range(self.n):
            if v in forced:
                values[v] = forced[v]
            elif self.kinds[v] == "ROOT":
                values[v] = self.natural[v]
            else:
                values[v] = combine(self.kinds[v], [values[p] for p in self.parents[v]])
        return values

    def show(self, values):
        """Values in alphabetical order of names."""
        by_name = sorted((self.label[v], values[v]) for v in range(self.n))
        return " ".join(f"{name}={val}" for name, val in by_name)

    def info(self):
        """Small JSON info for logs."""
        return {"turn": self.turn, "experiments": len(self.log)}

    def render(self, message):
        """The observation: progress, last result, state and actions."""
        names = " ".join(sorted(self.label.values()))
        log = "\n".join("  " + line for line in self.log[-10:]) or "  (none)"
        return (
            f"Turn {self.turn} of {self.max_turns}.\n{message}\n\n"
            f"Variables: {names}. Target: {self.label[self.target]}.\n"
            f"Experiment log (forced -> all values):\n{log}\n\n"
            "Actions: \\boxed{do A=1 C=0} (force any variables except the target), "
            "\\boxed{observe}, \\boxed{parents X Y} (final answer)."
        )

    def step(self, action):
        """Run an experiment or answer."""
        if self.done:
            return "The episode is over.", 0.0, True, False, self.info()
        self.turn += 1
        text = extract_boxed(action) if isinstance(action, str) else None
        words = text.upper().replace(",", " ").split() if text else []
        verb = words[0] if words else ""
        names = {name: v for v, name in self.label.items()}
        reward, terminated = 0.0, False
        if verb == "OBSERVE" and len(words) == 1:
            values = self.run({})
            self.log.append(f"nothing forced -> {self.show(values)}")
            message = f"Natural state: {self.show(values)}."
        elif verb == "DO" and len(words) >= 2:
            forced, problem = {}, ""
            for w in words[1:]:
                parts = w.split("=")
                if len(parts) != 2 or parts[0] not in names or parts[1] not in ("0", "1"):
                    problem = f"'{w[:20]}' is not NAME=0 or NAME=1 with a listed name."
                    break
                if names[parts[0]] == self.target:
                    problem = f"The target {parts[0]} cannot be forced."
                    break
                forced[names[parts[0]]] = int(parts[1])
            if problem:
                message = problem + " Nothing was run."
            else:
                values = self.run(forced)
                spec = " ".join(
                    f"{self.label[v]}={x}"
                    for v, x in sorted(forced.items(), key=lambda i: self.label[i[0]])
                )
                self.log.append(f"{spec} -> {self.show(values)}")
                message = f"Forced {spec}: {self.show(values)}."
        elif verb == "PARENTS" and len(words) >= 2:
            chosen = set(w for w in words[1:] if w != "NONE")
            if any(w not in names for w in chosen):
                message = "Name only listed variables (or NONE). Nothing was answered."
            else:
                terminated = True
                truth = sorted(self.label[p] for p in self.parents[self.target])
                if sorted(chosen) == truth:
                    reward = 1.0
                    message = f"Correct: the direct causes of {self.label[self.target]} are {' '.join(truth)}. You win!"
                else:
                    message = f"Wrong: the direct causes were {' '.join(truth)}. You lose."
        else:
            message = "Could not read the action. Use \\boxed{do A=1 B=0}, \\boxed{observe} or \\boxed{parents X Y}."
        self.done = terminated
        truncated = not terminated and self.turn >= self.max_turns
        if truncated:
            message += " Out of turns."
            self.done = True
        return self.render(message), reward, terminated, truncated, self.info()

    def solution(self):
        """For each parent, two experiments that hold everything else fixed and differ only in it."""
        moves = []
        parents = self.parents[self.target]
        others = [v for v in range(self.n) if v != self.target]
        kind = self.kinds[self.target]
        for p in parents:
            # AND needs the other parents at 1 to pass p's effect through; OR and XOR need 0.
            base = {v: 0 for v in others}
            if kind == "AND":
                for q in parents:
                    base[q] = 1
            for value in (0, 1):
                forced = dict(base)
                forced[p] = value
                spec = " ".join(f"{self.label[v]}={x}" for v, x in sorted(forced.items()))
                moves.append("\\boxed{do " + spec + "}")
        answer = " ".join(sorted(self.label[p] for p in parents))
        return moves + ["\\boxed{parents " + answer + "}"]

    def hint(self):
        """A nudge toward the method."""
        return (
            "Force every variable except the target, then change one forced variable at a time: "
            "only a direct cause can change the target when all others are held fixed. Try "
            "more than one background, since AND and OR rules can mask a cause."
        )
