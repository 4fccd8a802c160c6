"""StackMachineEval: simulate a small stack machine and report its stack at checkpoints."""

import random
import re

from spadegym.program import extract_boxed, read_difficulty

RULES = ("Instructions: push k (push the number k), add / sub / mul (pop b, pop a, push a+b, "
         "a-b or a*b), dup (copy the top), swap (exchange the top two), over (copy the second "
         "onto the top), drop (discard the top), jz L (pop the top; jump to line L if it was 0), "
         "jmp L (jump to line L), halt (stop). Execution starts at line 1; each executed "
         "instruction is one step.")


def straight(rng, count, depth):
    """A straight-line fragment that never underflows, given the stack depth at its start."""
    code = []
    while len(code) < count:
        options = ["push"]
        if depth >= 1:
            options += ["dup"]
        if depth >= 2:
            options += ["add", "sub", "mul", "swap", "over", "drop"]
        if depth >= 4:
            options = [o for o in options if o not in ("push", "dup", "over")]
        op = rng.choice(options)
        if op == "push":
            code.append(f"push {rng.randint(1, 9)}")
            depth += 1
        else:
            code.append(op)
            depth += {"dup": 1, "over": 1, "swap": 0, "add": -1, "sub": -1, "mul": -1,
                      "drop": -1}[op]
    return code, depth


def loop_block(rng, start, n, body):
    """Sum body(i) for i = n down to 1 onto an accumulator; lines are numbered from start."""
    end = start + 11 + len(body)
    code = ["push 0", f"push {n}", "dup", f"jz {end}", "swap", "over"] + body
    code += ["add", "swap", "push 1", "sub", f"jmp {start + 2}", "drop"]
    return code


def execute(code, limit=400):
    """Run the program; returns the stack after every step (index 0 = before any step)."""
    stack = []
    pc = 1
    states = [[]]
    while 1 <= pc <= len(code) and len(states) <= limit:
        parts = code[pc - 1].split(" ")
        op = parts[0]
        pc += 1
        if op == "halt":
            states.append(list(stack))
            break
        if op == "push":
            stack.append(int(parts[1]))
        elif op in ("add", "sub", "mul"):
            b = stack.pop()
            a = stack.pop()
            stack.append(a + b if op == "add" else a - b if op == "sub" else a * b)
        elif op == "dup":
            stack.append(stack[-1])
        elif op == "swap":
            stack[-1], stack[-2] = stack[-2], stack[-1]
        elif op == "over":
            stack.append(stack[-2])
        elif op == "drop":
            stack.pop()
        elif op == "jz":
            if stack.pop() == 0:
                pc = int(parts[1])
        elif op == "jmp":
            pc = int(parts[1])
        states.append(list(stack))
    return states


class StackMachineEvalEnv:
    """StackMachineEval: trace a stack machine step by step.

    You are shown a small stack-machine program. Each question asks for the whole stack (bottom
    to top) right after a given number of executed steps; the last asks for the stack when the
    machine halts. After each answer the true stack is shown. Answer with \\boxed{[3, 5, 2]}
    (\\boxed{[]} for an empty stack). The score is the fraction of exact answers; 1.0 means all
    of them."""

    max_turns = 10
    skill = "Program_Reasoning"

    def reset(self, seed=None, options=None):
        """Generate a program and the checkpoints."""
        self.rng = random.Random(seed)
        self.difficulty = read_difficulty(options, default=2)
        d = self.difficulty
        rng = self.rng
        if d <= 2:
            code, _ = straight(rng, 6 + 3 * d, 0)
        else:
            prefix, depth = straight(rng, rng.randint(1, 2) + 2 * (d - 3), 0)
            body = [[f"push {rng.randint(2, 5)}", "mul"], [], ["dup", "mul"]][rng.randint(0, min(2, d - 2))]
            code = prefix + loop_block(rng, len(prefix) + 1, rng.randint(2, 1 + d), body)
        self.code = code + ["halt"]
        self.states = execute(self.code)
        steps = len(self.states) - 1
        count = 3 + (d - 1) // 2
        picks = sorted({max(1, round(steps * (j + 1) / count)) for j in range(count - 1)})
        self.checkpoints = [s for s in picks if s < steps] + [steps]
        self.index = 0
        self.correct = 0
        self.turn = 0
        self.done = False
        self.history = []
        return self.render("Trace the machine."), {"question": 0}

    def render(self, last):
        """Program, answers so far, the current question and the format."""
        listing = "\n".join(f"{k + 1:>3}  {line}" for k, line in enumerate(self.code))
        past = "\n".join(self.history) if self.history else "(none yet)"
        step = self.checkpoints[self.index]
        if self.index == len(self.checkpoints) - 1:
            ask = "What is the stack when the machine halts?"
        else:
            ask = f"What is the stack right after step {step}?"
        return (
            f"{last}\nProgram (the stack starts empty):\n{listing}\n{RULES}\n"
            f"Answers so far:\n{past}\n"
            f"Question {self.index + 1} of {len(self.checkpoints)}: {ask} Answer "
            "\\boxed{[bottom, ..., top]}. "
            f"Turn {self.turn + 1} of {self.max_turns}."
        )

    def step(self, action):
        """Score one answer, reveal the truth and move on."""
        if self.done:
            return "The episode is over.", 0.0, True, False, {"question": self.index}
        self.turn += 1
        box = extract_boxed(action)
        text = box.strip() if isinstance(box, str) else None
        if text is None or len(text) > 200 or not re.fullmatch(r"[\[\]\s,\-0-9]*", text):
            last = ("Could not read a stack: answer \\boxed{[a, b, c]} with integers, bottom "
                    "first. This turn is used up.")
            if self.turn >= self.max_turns:
                self.done = True
                return last + " Out of turns.", 0.0, False, False, {"question": self.index}
            return self.render(last), 0.0, False, False, {"question": self.index}
        said = [int(v) for v in re.findall(r"-?\d+", text)]
        step = self.checkpoints[self.index]
        truth = self.states[step]
        ok = said == truth
        self.correct += int(ok)
        line = f"after step {step}: {truth}: " + ("correct" if ok else f"wrong (you said {said})")
        self.history.append(line)
        self.index += 1
        if self.index == len(self.checkpoints):
            self.done = True
            score = round(self.correct / len(self.checkpoints), 4)
            return (f"{line}. Done: {self.correct} of {len(self.checkpoints)} exact. Score "
                    f"{score}.", score, True, False, {"question": self.index,
                                                      "correct": self.correct})
        return (self.render(line + "."), 0.0, False, False,
                {"question": self.index, "correct": self.correct})

    def solution(self):
        """The simulated stacks at the checkpoints."""
        return ["\\boxed{" + str(self.states[s]) + "}" for s in self.checkpoints]

    def hint(self):
        """Approach only."""
        return ("Write the stack after every single step in a column, bottom first, and count "
                "steps carefully: a jump is one step, and jz removes the value it tests. In a "
                "loop, each pass repeats the same pattern.")
