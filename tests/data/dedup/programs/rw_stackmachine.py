"""Step through a tiny stack computer and report its stack."""

import random
import re

from spadegym.program import extract_boxed

MANUAL = ("Opcodes: push k puts k on the stack; add / sub / mul pop b then a and push a+b, a-b or "
          "a*b; dup copies the top; swap swaps the two top values; over copies the second value "
          "onto the top; drop removes the top; jz L pops the top and jumps to line L when it was "
          "0; jmp L jumps to line L; halt stops. Line 1 runs first, and every executed "
          "instruction counts as one step.")
EFFECT = {"dup": 1, "over": 1, "swap": 0, "add": -1, "sub": -1, "mul": -1, "drop": -1}


def trace(program, cap=400):
    """Stacks after each executed step; entry 0 is the empty starting stack."""
    stack, line, seen = [], 1, [[]]
    while 1 <= line <= len(program) and len(seen) <= cap:
        words = program[line - 1].split(" ")
        line += 1
        op = words[0]
        if op == "halt":
            seen.append(stack[:])
            break
        if op == "push":
            stack.append(int(words[1]))
        elif op == "add":
            right = stack.pop()
            stack.append(stack.pop() + right)
        elif op == "sub":
            right = stack.pop()
            stack.append(stack.pop() - right)
        elif op == "mul":
            right = stack.pop()
            stack.append(stack.pop() * right)
        elif op == "dup":
            stack.append(stack[-1])
        elif op == "over":
            stack.append(stack[-2])
        elif op == "swap":
            stack[-2], stack[-1] = stack[-1], stack[-2]
        elif op == "drop":
            stack.pop()
        elif op == "jz":
            top = stack.pop()
            if top == 0:
                line = int(words[1])
        elif op == "jmp":
            line = int(words[1])
        seen.append(stack[:])
    return seen


class StackTracerEnv:
    """Stack Tracer: follow a stack computer one instruction at a time.

    A short stack-machine listing is shown. Each question asks for the full stack (bottom
    first) just after a certain number of executed steps; the final question asks for the
    stack once the machine halts. The correct stack is revealed after every answer. Reply
    \\boxed{[3, 5, 2]} (or \\boxed{[]} when empty). Your score is the share of exact answers,
    1.0 when every one is right."""

    skill = "Program_Reasoning"
    max_turns = 10

    def hint(self):
        """Approach only."""
        return ("Keep a column with the stack after each step, bottom first, and count steps with "
                "care: a jump counts as a step and jz consumes the value it checks. Loop passes "
                "repeat the same shape.")

    def solution(self):
        """The traced stacks at each checkpoint."""
        return [f"\\boxed{{{self.stacks[s]}}}" for s in self.asks]

    def linear(self, length, height):
        """A branch-free fragment that never pops an empty stack."""
        out = []
        for k in range(length):  # noqa: B007
            menu = ["push"]
            if height >= 1:
                menu.append("dup")
            if height >= 2:
                menu += ["add", "sub", "mul", "swap", "over", "drop"]
            if height >= 4:
                menu = [m for m in menu if m != "push" and m != "dup" and m != "over"]
            pick = self.rng.choice(menu)
            if pick == "push":
                out.append("push " + str(self.rng.randint(1, 9)))
                height += 1
            else:
                out.append(pick)
                height += EFFECT[pick]
        return out, height

    def reset(self, seed=None, options=None):
        """Write a program and choose the checkpoints."""
        self.rng = random.Random(seed)
        level = options.get("difficulty", 2) if isinstance(options, dict) else 2
        if isinstance(level, bool) or not isinstance(level, int):
            level = 2
        level = max(1, min(5, level))
        self.level = level
        if level < 3:
            listing, height = self.linear(6 + 3 * level, 0)
        else:
            listing, height = self.linear(self.rng.randint(1, 2) + 2 * (level - 3), 0)
            choices = [["push " + str(self.rng.randint(2, 5)), "mul"], [], ["dup", "mul"]]
            body = choices[self.rng.randint(0, min(2, level - 2))]
            first = len(listing) + 1
            rounds = self.rng.randint(2, 1 + level)
            exit_line = first + 11 + len(body)
            listing = listing + ["push 0", "push " + str(rounds), "dup", "jz " + str(exit_line), "swap", "over"]
            listing = listing + body + ["add", "swap", "push 1", "sub", "jmp " + str(first + 2), "drop"]
        self.listing = listing + ["halt"]
        self.stacks = trace(self.listing)
        total = len(self.stacks) - 1
        wanted = 3 + (level - 1) // 2
        points = set()
        for j in range(wanted - 1):
            points.add(max(1, round(total * (j + 1) / wanted)))
        self.asks = [p for p in sorted(points) if p < total]
        self.asks.append(total)
        self.q = 0
        self.right = 0
        self.t = 0
        self.over = False
        self.answers = []
        return self.screen("Follow the machine."), {"question": 0}

    def screen(self, note):
        code = "\n".join(["%3d  %s" % (k, line) for k, line in enumerate(self.listing, start=1)])
        done = "\n".join(self.answers) or "(none yet)"
        if self.q == len(self.asks) - 1:
            question = "What does the stack hold when the machine halts?"
        else:
            question = f"What does the stack hold right after step {self.asks[self.q]}?"
        return (f"{note}\nListing (the stack begins empty):\n{code}\n{MANUAL}\n"
                f"Your answers:\n{done}\n"
                f"Question {self.q + 1}/{len(self.asks)}: {question} Reply \\boxed{{[bottom, ..., top]}}. "
                f"Turn {self.t + 1} of {self.max_turns}.")

    def step(self, action):
        """Mark one answer and reveal the true stack."""
        if self.over:
            return "Game over.", 0.0, True, False, {"question": self.q}
        self.t += 1
        box = extract_boxed(action)
        body = box.strip() if isinstance(box, str) else None
        readable = body is not None and len(body) <= 200 and re.fullmatch(r"[\[\]\s,\-0-9]*", body)
        if not readable:
            note = "No stack found: reply \\boxed{[a, b, c]} with integers, bottom first. The turn is spent."
            if self.t >= self.max_turns:
                self.over = True
                return note + " No turns remain.", 0.0, False, False, {"question": self.q}
            return self.screen(note), 0.0, False, False, {"question": self.q}
        given = [int(n) for n in re.findall(r"-?\d+", body)]
        point = self.asks[self.q]
        truth = self.stacks[point]
        if given == truth:
            self.right += 1
            verdict = "correct"
        else:
            verdict = f"wrong (you said {given})"
        line = f"after step {point}: {truth}: {verdict}"
        self.answers.append(line)
        self.q += 1
        if self.q < len(self.asks):
            return self.screen(line + "."), 0.0, False, False, {"question": self.q, "correct": self.right}
        self.over = True
        score = round(self.right / len(self.asks), 4)
        return (f"{line}. Finished: {self.right} of {len(self.asks)} exact. Score {score}.", score, True,
                False, {"question": self.q, "correct": self.right})
