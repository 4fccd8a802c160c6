"""StuckGateHunt: find the one stuck logic gate in a circuit by choosing inputs and probing."""

import itertools
import random

from spadegym.program import extract_boxed, read_difficulty

OPS = ["AND", "OR", "XOR", "NAND", "NOR"]


def gate_value(op, a, b):
    """Boolean value of a two-input gate."""
    if op == "AND":
        return a & b
    if op == "OR":
        return a | b
    if op == "XOR":
        return a ^ b
    if op == "NAND":
        return 1 - (a & b)
    return 1 - (a | b)


def simulate(inputs, gates, fault):
    """Signal values: inputs first, then every gate in order; `fault` is (gate, value) or None."""
    values = list(inputs)
    for g, (op, a, b) in enumerate(gates):
        v = gate_value(op, values[a], values[b])
        if fault is not None and fault[0] == g:
            v = fault[1]
        values.append(v)
    return values


class StuckGateHuntEnv:
    """Stuck Gate Hunt: find the faulty gate in a logic circuit.

    A circuit of two-input gates (AND, OR, XOR, NAND, NOR) computes output signals from input
    switches. Exactly one gate is broken: its output is stuck at a constant, whatever its
    inputs. Set the inputs and read the outputs, probe any gate's actual output under the
    last inputs, and name the broken gate. Naming a working gate loses.
    Actions: \\boxed{test BITS} sets the inputs (e.g. \\boxed{test 101}); \\boxed{probe Gk}
    reads gate k under the last test; \\boxed{blame Gk} names the broken gate (ends the game)."""

    max_turns = 12
    skill = "Causal_Inference"

    def reset(self, seed=None, options=None):
        """Build a random circuit and break one gate whose fault can show up."""
        self.rng = random.Random(seed)
        self.difficulty = read_difficulty(options, default=2)
        self.k = 3 if self.difficulty <= 2 else 4
        m = 5 + self.difficulty
        self.gates = []
        for g in range(m):
            # Later gates draw on recent signals so the circuit is deep rather than flat.
            pool = list(range(self.k + g))
            low = max(0, self.k + g - 4)
            a = self.rng.choice(pool[low:])
            b = self.rng.choice([x for x in pool if x != a])
            self.gates.append((self.rng.choice(OPS), a, b))
        used = set()
        for gate in self.gates:
            used.add(gate[1])
            used.add(gate[2])
        self.outputs = [self.k + g for g in range(m) if self.k + g not in used]
        if len(self.outputs) < 2:
            self.outputs = sorted(set(self.outputs + [self.k + m - 1, self.k + m - 2]))
        self.vectors = [list(v) for v in itertools.product([0, 1], repeat=self.k)]
        while True:
            g = self.rng.randrange(m)
            stuck = self.rng.randint(0, 1)
            visible = any(self.outs(v, (g, stuck)) != self.outs(v, None) for v in self.vectors)
            if visible:
                break
        self.fault = (g, stuck)
        self.last = None
        self.log = []
        self.turn = 0
        self.done = False
        return self.render("The circuit is powered. One gate is stuck."), self.info()

    def outs(self, vector, fault):
        """Output signals for an input vector under a fault hypothesis."""
        values = simulate(vector, self.gates, fault)
        return [values[o] for o in self.outputs]

    def signal(self, index):
        """Name of a signal: inputs x1.., gates G1.."""
        return f"x{index + 1}" if index < self.k else f"G{index - self.k + 1}"

    def info(self):
        """Small JSON info for logs."""
        return {"turn": self.turn, "tests": len(self.log)}

    def render(self, message):
        """The observation: progress, last result, state and actions."""
        lines = [
            f"  G{g + 1} = {op}({self.signal(a)}, {self.signal(b)})"
            for g, (op, a, b) in enumerate(self.gates)
        ]
        outs = ", ".join(self.signal(o) for o in self.outputs)
        log = "\n".join("  " + line for line in self.log[-10:]) or "  (none)"
        last = "".join(str(b) for b in self.last) if self.last is not None else "none"
        return (
            f"Turn {self.turn} of {self.max_turns}.\n{message}\n\n"
            f"Circuit ({self.k} inputs x1..x{self.k}):\n" + "\n".join(lines) + "\n"
            f"Outputs read on every test: {outs}\nCurrent inputs: {last}\nLab notes:\n{log}\n\n"
            f"Actions: \\boxed{{test BITS}} ({self.k} bits, x1 first), \\boxed{{probe Gk}}, "
            "\\boxed{blame Gk} (final)."
        )

    def gate_index(self, word):
        """Parse 'G3' or '3' into a 0-based gate index, or None."""
        w = word.upper().lstrip("G")
        if w.isdigit() and len(w) < 4 and 1 <= int(w) <= len(self.gates):
            return int(w) - 1
        return None

    def step(self, action):
        """Run a test, probe a gate, or blame one."""
        if self.done:
            return "The episode is over.", 0.0, True, False, self.info()
        self.turn += 1
        text = extract_boxed(action) if isinstance(action, str) else None
        words = text.split() if text else []
        verb = words[0].lower() if words else ""
        reward, terminated = 0.0, False
        if verb == "test" and len(words) == 2:
            bits = words[1]
            if len(bits) != self.k or any(c not in "01" for c in bits):
                message = f"A test needs exactly {self.k} bits of 0 and 1, e.g. \\boxed{{test {'1' * self.k}}}."
            else:
                self.last = [int(c) for c in bits]
                outs = self.outs(self.last, self.fault)
                shown = ", ".join(f"{self.signal(o)}={v}" for o, v in zip(self.outputs, outs))
                self.log.append(f"test {bits}: {shown}")
                message = f"Inputs {bits} give {shown}."
        elif verb == "probe" and len(words) == 2:
            g = self.gate_index(words[1])
            if g is None:
                message = f"Name a gate G1-G{len(self.gates)}."
            elif self.last is None:
                message = "Run a test first: a probe reads a gate under the current inputs."
            else:
                v = simulate(self.last, self.gates, self.fault)[self.k + g]
                bits = "".join(str(b) for b in self.last)
                self.log.append(f"probe G{g + 1} under {bits}: {v}")
                message = f"Under inputs {bits}, G{g + 1} reads {v}."
        elif verb == "blame" and len(words) == 2:
            g = self.gate_index(words[1])
            if g is None:
                message = f"Name a gate G1-G{len(self.gates)}."
            else:
                terminated = True
                if g == self.fault[0]:
                    reward = 1.0
                    message = f"G{g + 1} is indeed stuck at {self.fault[1]}. You win!"
                else:
                    message = f"G{g + 1} works fine; G{self.fault[0] + 1} was stuck at {self.fault[1]}. You lose."
        else:
            message = "Could not read the action. Use \\boxed{test BITS}, \\boxed{probe Gk} or \\boxed{blame Gk}."
        self.done = terminated
        truncated = not terminated and self.turn >= self.max_turns
        if truncated:
            message += " Out of turns."
            self.done = True
        return self.render(message), reward, terminated, truncated, self.info()

    def solution(self):
        """Greedy diagnosis: pick tests that split the fault hypotheses, probe, then blame."""
        hypotheses = [(g, s) for g in range(len(self.gates)) for s in (0, 1)]
        truth = self.fault
        moves = []
        for round_no in range(4):  # noqa: B007 (no leading-underscore names allowed)
            gates_left = set(h[0] for h in hypotheses)
            if len(gates_left) == 1:
                break
            best, best_score = None, len(hypotheses) + 1
            for v in self.vectors:
                groups = {}
                for h in hypotheses:
                    key = tuple(self.outs(v, h))
                    groups[key] = groups.get(key, 0) + 1
                score = max(groups.values())
                if score < best_score:
                    best, best_score = v, score
            if best_score >= len(hypotheses):
                break
            seen = self.outs(best, truth)
            hypotheses = [h for h in hypotheses if self.outs(best, h) == seen]
            moves.append("\\boxed{test " + "".join(str(b) for b in best) + "}")
        # Confirm with a probe on the broken gate under inputs where it should differ.
        for v in self.vectors:
            values = simulate(v, self.gates, None)
            if values[self.k + truth[0]] != truth[1]:
                moves.append("\\boxed{test " + "".join(str(b) for b in v) + "}")
                moves.append(f"\\boxed{{probe G{truth[0] + 1}}}")
                break
        return moves + [f"\\boxed{{blame G{truth[0] + 1}}}"]

    def hint(self):
        """A nudge toward the method."""
        return (
            "Compute what each output should be for a test; a mismatch shows which outputs "
            "depend on the broken gate. Then probe along that path: the broken gate is where "
            "inputs look right but the output does not."
        )
