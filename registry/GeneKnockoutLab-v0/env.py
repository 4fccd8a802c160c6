"""GeneKnockoutLab: learn a hidden gene-regulation network by knockouts and set a phenotype."""

import itertools
import random

from spadegym.program import extract_boxed, read_difficulty

GENES = ["arx", "bmp", "cdx", "dlx", "egr", "fgf", "gli", "hox", "irx", "jag", "klf", "lhx"]


class GeneKnockoutLabEnv:
    """Gene Knockout Lab: knock out genes to give a cell a target phenotype.

    Genes switch each other on and off through a hidden regulatory network. A gene with no
    regulators is ON unless knocked out. A regulated gene is ON when at least one of its
    activators is ON (or it has none) and none of its repressors is ON; a knocked-out gene is
    always OFF. Knock genes out or restore them and watch every gene's state, then submit
    when the reporter genes show the target pattern. Reporter genes cannot be knocked out.
    Submitting the wrong pattern loses.
    Actions: \\boxed{knockout GENE}, \\boxed{restore GENE}, \\boxed{submit}."""

    max_turns = 14
    skill = "Causal_Inference"

    def reset(self, seed=None, options=None):
        """Draw a network and a target that needs at least two knockouts."""
        self.rng = random.Random(seed)
        self.difficulty = read_difficulty(options, default=2)
        self.n = 5 + self.difficulty
        reporters_count = 2 if self.difficulty <= 3 else 3
        need = 2 if self.difficulty <= 3 else 3
        best = None
        for attempt in range(80):  # noqa: B007 (no leading-underscore names allowed)
            self.genes = self.rng.sample(GENES, self.n)
            self.regulators = []
            for g in range(self.n):
                if g < 2:
                    self.regulators.append([])
                    continue
                k = self.rng.randint(1, min(3, g))
                regs = self.rng.sample(range(g), k)
                self.regulators.append([(r, self.rng.random() < 0.6) for r in sorted(regs)])
            self.reporters = list(range(self.n - reporters_count, self.n))
            self.knocked = set()
            base = self.expression(set())
            targets = {}
            for size in range(0, 4):
                for combo in itertools.combinations(range(self.n - reporters_count), size):
                    pattern = tuple(self.expression(set(combo))[r] for r in self.reporters)
                    if pattern not in targets:
                        targets[pattern] = list(combo)
            hard = [(len(c), p) for p, c in targets.items() if len(c) >= 2]
            if hard:
                size, pattern = max(hard)
                if best is None or size > best[0]:
                    best = (size, self.genes, self.regulators, pattern, targets[pattern])
                if size >= need:
                    break
            elif best is None and len(targets) > 1:
                pattern = [p for p in targets if p != tuple(base[r] for r in self.reporters)][0]
                best = (
                    len(targets[pattern]),
                    self.genes,
                    self.regulators,
                    pattern,
                    targets[pattern],
                )
        size, self.genes, self.regulators, self.target, self.plan = best
        self.knocked = set()
        self.log = []
        self.turn = 0
        self.done = False
        return self.render("The cell line is ready."), self.info()

    def expression(self, knocked):
        """ON/OFF state of every gene with the given genes knocked out."""
        state = []
        for g in range(self.n):
            if g in knocked:
                state.append(0)
                continue
            acts = [state[r] for r, positive in self.regulators[g] if positive]
            reps = [state[r] for r, positive in self.regulators[g] if not positive]
            on = (not acts or any(acts)) and not any(reps)
            state.append(1 if on else 0)
        return state

    def show(self, state):
        """Gene states as text."""
        return ", ".join(f"{self.genes[g]} {'ON' if state[g] else 'off'}" for g in range(self.n))

    def info(self):
        """Small JSON info for logs."""
        return {"turn": self.turn, "knocked": len(self.knocked)}

    def render(self, message):
        """The observation: progress, last result, state and actions."""
        state = self.expression(self.knocked)
        target = ", ".join(
            f"{self.genes[r]} {'ON' if v else 'off'}" for r, v in zip(self.reporters, self.target)
        )
        knocked = ", ".join(sorted(self.genes[g] for g in self.knocked)) or "none"
        log = "\n".join("  " + line for line in self.log[-8:]) or "  (none)"
        return (
            f"Turn {self.turn} of {self.max_turns}.\n{message}\n\n"
            f"Gene states: {self.show(state)}\nKnocked out: {knocked}\n"
            f"Reporter genes: {', '.join(self.genes[r] for r in self.reporters)}. Target: {target}\n"
            f"Lab log:\n{log}\n\n"
            "Actions: \\boxed{knockout GENE}, \\boxed{restore GENE}, \\boxed{submit}."
        )

    def step(self, action):
        """Knock out, restore, or submit."""
        if self.done:
            return "The episode is over.", 0.0, True, False, self.info()
        self.turn += 1
        text = extract_boxed(action) if isinstance(action, str) else None
        words = text.lower().split() if text else []
        verb = words[0] if words else ""
        reward, terminated = 0.0, False
        if words == ["submit"]:
            terminated = True
            state = self.expression(self.knocked)
            if tuple(state[r] for r in self.reporters) == self.target:
                reward = 1.0
                message = "The reporters show the target phenotype. You win!"
            else:
                message = "The reporters do not show the target phenotype. You lose."
        elif verb in ("knockout", "restore") and len(words) == 2:
            if words[1] not in self.genes:
                message = f"Unknown gene '{words[1][:20]}'; genes are {', '.join(self.genes)}."
            else:
                g = self.genes.index(words[1])
                if verb == "knockout" and g in self.reporters:
                    message = f"{words[1]} is a reporter gene and cannot be knocked out."
                elif verb == "knockout" and g in self.knocked:
                    message = f"{words[1]} is already knocked out."
                elif verb == "restore" and g not in self.knocked:
                    message = f"{words[1]} is not knocked out."
                else:
                    before = self.expression(self.knocked)
                    if verb == "knockout":
                        self.knocked.add(g)
                    else:
                        self.knocked.discard(g)
                    after = self.expression(self.knocked)
                    changed = [
                        f"{self.genes[h]} {'ON' if after[h] else 'off'}"
                        for h in range(self.n)
                        if before[h] != after[h] and h != g
                    ]
                    note = ", ".join(changed) or "no other gene"
                    self.log.append(f"{verb} {words[1]} -> changed {note}")
                    message = f"{verb.capitalize()} {words[1]}: changed {note}."
        else:
            message = "Could not read the action. Use \\boxed{knockout GENE}, \\boxed{restore GENE} or \\boxed{submit}."
        self.done = terminated
        truncated = not terminated and self.turn >= self.max_turns
        if truncated:
            message += " Out of turns."
            self.done = True
        return self.render(message), reward, terminated, truncated, self.info()

    def solution(self):
        """Knock out a smallest gene set that yields the target (exhaustive search), then submit."""
        moves = [
            f"\\boxed{{restore {self.genes[g]}}}"
            for g in sorted(self.knocked)
            if g not in self.plan
        ]
        moves += [
            f"\\boxed{{knockout {self.genes[g]}}}" for g in self.plan if g not in self.knocked
        ]
        return moves + ["\\boxed{submit}"]

    def hint(self):
        """A nudge toward the method."""
        return (
            "Knock out one gene at a time and restore it, noting which genes change: those are "
            "downstream of it. Map which upstream genes switch each reporter on or off, then "
            "combine knockouts."
        )
