"""RegisterBugfix: repair a register-machine program against its specification (reasoning)."""

import random
import re

from spadegym.program import extract_boxed, read_difficulty

RULES = ("Registers r0..r3 hold integers; r0 = a and r1 = b at the start, r2 = r3 = 0. "
         "Instructions: set rX k (rX = k), add rX rY (rX = rX + rY), sub rX rY (rX = rX - rY), "
         "inc rX, dec rX, jnz rX L (jump to line L if rX is not 0), jmp L, halt. Execution "
         "starts at line 1; the result is r2 at halt.")
REGS = ["r0", "r1", "r2", "r3"]
LIMIT = 600
RUNS = 4


def parse_instruction(text, length):
    """Parse one instruction into a tuple, or raise ValueError saying what is wrong."""
    text = " ".join(str(text).lower().split())
    m = re.fullmatch(r"set (r[0-3]) (-?\d{1,3})", text)
    if m:
        return ("set", m.group(1), int(m.group(2)))
    m = re.fullmatch(r"(add|sub) (r[0-3]) (r[0-3])", text)
    if m:
        return (m.group(1), m.group(2), m.group(3))
    m = re.fullmatch(r"(inc|dec) (r[0-3])", text)
    if m:
        return (m.group(1), m.group(2))
    m = re.fullmatch(r"jnz (r[0-3]) (\d{1,3})", text)
    if m:
        if not 1 <= int(m.group(2)) <= length:
            raise ValueError(f"jump target {m.group(2)} is outside lines 1..{length}")
        return ("jnz", m.group(1), int(m.group(2)))
    m = re.fullmatch(r"jmp (\d{1,3})", text)
    if m:
        if not 1 <= int(m.group(1)) <= length:
            raise ValueError(f"jump target {m.group(1)} is outside lines 1..{length}")
        return ("jmp", int(m.group(1)))
    if text == "halt":
        return ("halt",)
    raise ValueError("not an instruction; forms: set rX k, add rX rY, sub rX rY, inc rX, "
                     "dec rX, jnz rX L, jmp L, halt")


def run_machine(lines, a, b):
    """Run the program; returns (r2, registers, steps, error)."""
    program = [parse_instruction(line, len(lines)) for line in lines]
    reg = {"r0": a, "r1": b, "r2": 0, "r3": 0}
    pc = 1
    steps = 0
    while True:
        if not 1 <= pc <= len(program):
            return None, reg, steps, f"ran off the program at line {pc}"
        if steps >= LIMIT:
            return None, reg, steps, f"no halt after {LIMIT} steps (endless loop?)"
        steps += 1
        ins = program[pc - 1]
        op = ins[0]
        pc += 1
        if op == "halt":
            return reg["r2"], reg, steps, None
        if op == "set":
            reg[ins[1]] = ins[2]
        elif op == "add":
            reg[ins[1]] += reg[ins[2]]
        elif op == "sub":
            reg[ins[1]] -= reg[ins[2]]
        elif op == "inc":
            reg[ins[1]] += 1
        elif op == "dec":
            reg[ins[1]] -= 1
        elif op == "jnz":
            if reg[ins[1]] != 0:
                pc = ins[2]
        else:
            pc = ins[1]
        if abs(reg[ins[1]] if op not in ("jmp",) else 0) > 10 ** 9:
            return None, reg, steps, "a register grew beyond 10^9"


def make_task(rng):
    """A correct program and its specification in words."""
    kind = rng.choice(["mul", "tri", "double", "scale", "monus", "square"])
    c = rng.randint(0, 5)
    if kind == "mul":
        return [f"set r2 {c}", "jnz r1 4", "halt", "add r2 r0", "dec r1", "jmp 2"], \
            f"r2 = a * b + {c}"
    if kind == "tri":
        return [f"set r2 {c}", "add r2 r1", "jnz r0 5", "halt", "add r2 r0", "dec r0", "jmp 3"], \
            f"r2 = b + {c} + (a + (a-1) + ... + 1)"
    if kind == "double":
        return [f"set r2 {c}", "add r2 r1", "jnz r0 5", "halt", "add r2 r2", "dec r0", "jmp 3"], \
            f"r2 = (b + {c}) * 2^a"
    if kind == "scale":
        k = rng.randint(2, 4)
        lines = [f"set r2 {c}", "add r2 r1", "jnz r0 5", "halt"] + ["inc r2"] * k
        return lines + ["dec r0", "jmp 3"], f"r2 = {k} * a + b + {c}"
    if kind == "monus":
        return [f"set r2 {c}", "add r2 r0", "jnz r1 5", "halt", "jnz r2 7", "halt", "dec r2",
                "dec r1", "jmp 3"], f"r2 = a + {c} - b if that is positive, else 0"
    return [f"set r2 {c}", "set r3 0", "add r3 r0", "jnz r3 6", "halt", "add r2 r0", "dec r3",
            "jmp 4"], f"r2 = a * a + {c}"


def mutate(rng, line, length):
    """One plausible slip in an instruction, or None."""
    words = line.split(" ")
    choices = []
    for k, word in enumerate(words):
        if word in REGS:
            choices.append((k, rng.choice([r for r in REGS if r != word])))
        elif word in ("inc", "dec", "add", "sub"):
            choices.append((k, {"inc": "dec", "dec": "inc", "add": "sub", "sub": "add"}[word]))
        elif re.fullmatch(r"-?\d+", word) and k > 0:
            if words[0] in ("jnz", "jmp"):
                new = int(word) + rng.choice([-1, 1])
                if 1 <= new <= length:
                    choices.append((k, str(new)))
            else:
                choices.append((k, str(int(word) + rng.choice([-1, 1, 2]))))
    if not choices:
        return None
    k, new = rng.choice(choices)
    words[k] = new
    return " ".join(words)


class RegisterBugfixEnv:
    """RegisterBugfix: debug a register-machine program.

    You are shown a register-machine program that should compute a stated function of two
    inputs a and b (left in r2 at halt) but contains one or two wrong instructions. You may run
    it on inputs of your choice a few times (\\boxed{run A B} shows the final registers),
    replace line N with \\boxed{edit N: instruction}, and finish with \\boxed{submit}, which
    checks the program on every pair of inputs from 0 to 4. You win (1.0) when all pass."""

    max_turns = 10
    skill = "Program_Reasoning"

    def reset(self, seed=None, options=None):
        """Generate a task and break it."""
        self.rng = random.Random(seed)
        self.difficulty = read_difficulty(options, default=2)
        d = self.difficulty
        bugs = 1 if d <= 2 else 2
        self.tests = [(a, b) for a in range(5) for b in range(5)]
        while True:
            self.good, self.spec = make_task(self.rng)
            self.want = {t: run_machine(self.good, t[0], t[1])[0] for t in self.tests}
            broken = self.break_program(bugs)
            if broken is not None:
                break
        self.lines = broken
        self.examples = self.rng.sample([t for t in self.tests if t[0] and t[1]], 3)
        self.runs = RUNS
        self.turn = 0
        self.done = False
        return self.render("Debug the program."), {"bugs": len(self.bug_lines)}

    def fails(self, lines):
        """How many tests a program fails."""
        return sum(1 for t in self.tests if run_machine(lines, t[0], t[1])[0] != self.want[t])

    def breaks(self, lines):
        """Whether a program fails some test (stops at the first failure)."""
        return any(run_machine(lines, t[0], t[1])[0] != self.want[t] for t in self.tests)

    def break_program(self, bugs):
        """Apply distinct slips, each of which breaks some test on its own."""
        for _ in range(40):
            lines = list(self.good)
            picked = self.rng.sample(range(len(lines)), bugs)
            ok = True
            for k in picked:
                new = mutate(self.rng, lines[k], len(lines))
                single = list(self.good)
                if new is not None:
                    single[k] = new
                if new is None or not self.breaks(single):
                    ok = False
                    break
                lines[k] = new
            if ok and self.breaks(lines):
                self.bug_lines = sorted(picked)
                return lines
        return None

    def render(self, last):
        """Program, spec, examples, resources and actions."""
        listing = "\n".join(f"{k + 1:>3}  {line}" for k, line in enumerate(self.lines))
        examples = ", ".join(f"a={a}, b={b} -> {self.want[(a, b)]}" for a, b in self.examples)
        return (
            f"{last}\nSpecification: {self.spec}.\nExamples: {examples}.\n"
            f"Program ({len(self.bug_lines)} wrong instruction(s)):\n{listing}\n{RULES}\n"
            f"Runs left: {self.runs}.\nActions: \\boxed{{run A B}}, \\boxed{{edit N: "
            "instruction}, \\boxed{submit} (checks all a, b in 0..4 and ends the episode). "
            f"Turn {self.turn + 1} of {self.max_turns}."
        )

    def step(self, action):
        """Run, edit or submit."""
        if self.done:
            return "The episode is over.", 0.0, True, False, {}
        self.turn += 1
        box = extract_boxed(action)
        text = " ".join(box.lower().split()) if isinstance(box, str) else ""
        if text == "submit":
            self.done = True
            failed = self.fails(self.lines)
            if failed == 0:
                return ("All 25 input pairs give the specified result. Fixed!", 1.0, True, False,
                        {"failed": 0})
            return (f"Submitted: {failed} of 25 input pairs give a wrong result. Not fixed.",
                    0.0, True, False, {"failed": failed})
        m_run = re.fullmatch(r"run (-?\d{1,2}) (-?\d{1,2})", text)
        m_edit = re.fullmatch(r"edit (\d{1,2}) ?: ?(.+)", text)
        if m_run:
            if self.runs <= 0:
                last = "No runs left. This turn is used up."
            else:
                self.runs -= 1
                a, b = int(m_run.group(1)), int(m_run.group(2))
                r2, reg, steps, error = run_machine(self.lines, a, b)
                regs = ", ".join(f"{k}={v}" for k, v in reg.items())
                status = f"error: {error}" if error else f"halted after {steps} steps"
                last = f"run a={a}, b={b}: {status}; registers {regs}."
        elif m_edit:
            n = int(m_edit.group(1))
            if not 1 <= n <= len(self.lines):
                last = f"Line {n} does not exist (lines 1..{len(self.lines)})."
            else:
                try:
                    parse_instruction(m_edit.group(2), len(self.lines))
                    self.lines[n - 1] = m_edit.group(2).strip()
                    last = f"Line {n} is now: {self.lines[n - 1]}"
                except ValueError as exc:
                    last = f"Edit refused: {exc}."
        else:
            last = ("Unknown action. Use \\boxed{run A B}, \\boxed{edit N: instruction} or "
                    "\\boxed{submit}. This turn is used up.")
        if self.turn >= self.max_turns:
            self.done = True
            return last + "\nOut of turns without a submission.", 0.0, False, False, {}
        return self.render(last), 0.0, False, False, {}

    def solution(self):
        """Restore the broken lines, check one example, submit."""
        replies = ["\\boxed{edit " + str(k + 1) + ": " + self.good[k] + "}"
                   for k in self.bug_lines]
        a, b = self.examples[0]
        return replies + ["\\boxed{run " + str(a) + " " + str(b) + "}", "\\boxed{submit}"]

    def hint(self):
        """Approach only."""
        return ("Trace one small example by hand and note the first step where a register "
                "departs from what the specification needs; check registers, jump targets "
                "and inc/dec or add/sub choices. Use runs to confirm a fix before submitting.")
