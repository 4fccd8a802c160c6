"""FunctionRepair: find and patch the bugs in a small program against its tests (reasoning)."""

import random
import re

from spadegym.program import extract_boxed, read_difficulty

RULES = ("Semantics: lines run in order from line 1. 'v = expr' sets v; 'if expr goto N' jumps "
         "to line N when expr is not 0; 'goto N' jumps; 'return expr' ends with that value. "
         "Integers only: / is division rounding down, % is the remainder (same sign as the "
         "divisor), comparisons give 1 or 0.")
SWAPS = {"+": "-", "-": "+", "*": "+", "/": "%", "%": "/", "<": "<=", "<=": "<", ">": ">=",
         ">=": ">", "==": "!=", "!=": "=="}

TOKEN = r"\s*(?:(\d+)|([a-z][a-z0-9]*)|(==|!=|<=|>=|[-+*/%<>()]))"
KEYWORDS = ("if", "goto", "return")
COMPARE = ("<", "<=", ">", ">=", "==", "!=")
LIMIT = 4000


def tokenize(text):
    """Split an expression into ('num', int), ('name', str) and ('op', str) tokens."""
    tokens = []
    pos = 0
    text = text.strip()
    while pos < len(text):
        m = re.match(TOKEN, text[pos:])
        if m is None or m.end() == 0:
            raise ValueError(f"cannot read the expression at {text[pos:pos + 12]!r}")
        if m.group(1) is not None:
            if len(m.group(1)) > 9:
                raise ValueError("numbers are limited to 9 digits")
            tokens.append(("num", int(m.group(1))))
        elif m.group(2) is not None:
            tokens.append(("name", m.group(2)))
        else:
            tokens.append(("op", m.group(3)))
        pos += m.end()
    return tokens


class ExprParser:
    """Recursive-descent parser: comparison < + - < * / % < unary minus < atoms."""

    def __init__(self, tokens):
        self.tokens = tokens
        self.pos = 0

    def peek(self):
        """The next token, or ('end', None)."""
        return self.tokens[self.pos] if self.pos < len(self.tokens) else ("end", None)

    def take(self):
        """Consume and return the next token."""
        tok = self.peek()
        self.pos += 1
        return tok

    def parse(self):
        """A whole expression; every token must be used."""
        if not self.tokens:
            raise ValueError("empty expression")
        node = self.compare()
        if self.pos != len(self.tokens):
            raise ValueError(f"unexpected {self.peek()[1]!r} in the expression")
        return node

    def compare(self):
        """additive [cmp additive]."""
        left = self.additive()
        tok = self.peek()
        if tok[0] == "op" and tok[1] in COMPARE:
            self.take()
            return ("bin", tok[1], left, self.additive())
        return left

    def additive(self):
        """term {(+|-) term}."""
        node = self.term()
        while self.peek()[0] == "op" and self.peek()[1] in ("+", "-"):
            op = self.take()[1]
            node = ("bin", op, node, self.term())
        return node

    def term(self):
        """unary {(*|/|%) unary}."""
        node = self.unary()
        while self.peek()[0] == "op" and self.peek()[1] in ("*", "/", "%"):
            op = self.take()[1]
            node = ("bin", op, node, self.unary())
        return node

    def unary(self):
        """[-] atom."""
        if self.peek() == ("op", "-"):
            self.take()
            return ("neg", self.unary())
        return self.atom()

    def atom(self):
        """number, variable or parenthesised expression."""
        tok = self.take()
        if tok[0] == "num":
            return ("num", tok[1])
        if tok[0] == "name":
            if tok[1] in KEYWORDS:
                raise ValueError(f"'{tok[1]}' is a keyword, not a variable")
            return ("var", tok[1])
        if tok == ("op", "("):
            node = self.compare()
            if self.take() != ("op", ")"):
                raise ValueError("missing ')'")
            return node
        raise ValueError(f"expected a number, variable or '(' but found {tok[1]!r}")


def parse_expr(text):
    """Parse an expression string into a tree."""
    return ExprParser(tokenize(text)).parse()


def parse_statement(text, length):
    """Parse one line: 'v = e', 'if e goto n', 'goto n' or 'return e'."""
    text = " ".join(str(text).split())
    if not text or len(text) > 80:
        raise ValueError("a statement must be 1 to 80 characters")
    m = re.fullmatch(r"if (.+) goto (\d{1,3})", text)
    if m:
        target = int(m.group(2))
        if not 1 <= target <= length:
            raise ValueError(f"goto {target} is outside lines 1..{length}")
        return ("if", parse_expr(m.group(1)), target)
    m = re.fullmatch(r"goto (\d{1,3})", text)
    if m:
        target = int(m.group(1))
        if not 1 <= target <= length:
            raise ValueError(f"goto {target} is outside lines 1..{length}")
        return ("goto", target)
    m = re.fullmatch(r"return (.+)", text)
    if m:
        return ("return", parse_expr(m.group(1)))
    m = re.fullmatch(r"([a-z][a-z0-9]*) = (.+)", text)
    if m and m.group(1) not in KEYWORDS:
        return ("set", m.group(1), parse_expr(m.group(2)))
    raise ValueError("use 'v = expr', 'if expr goto N', 'goto N' or 'return expr'")


def evaluate(node, env):
    """Value of an expression tree; / and % round down; comparisons give 1 or 0."""
    kind = node[0]
    if kind == "num":
        return node[1]
    if kind == "var":
        if node[1] not in env:
            raise ValueError(f"variable {node[1]} is used before it is set")
        return env[node[1]]
    if kind == "neg":
        return -evaluate(node[1], env)
    op = node[1]
    a = evaluate(node[2], env)
    b = evaluate(node[3], env)
    if op in ("/", "%") and b == 0:
        raise ValueError("division by zero")
    if op == "+":
        value = a + b
    elif op == "-":
        value = a - b
    elif op == "*":
        value = a * b
    elif op == "/":
        value = a // b
    elif op == "%":
        value = a % b
    else:
        value = int((op == "<" and a < b) or (op == "<=" and a <= b) or (op == ">" and a > b)
                    or (op == ">=" and a >= b) or (op == "==" and a == b)
                    or (op == "!=" and a != b))
    if abs(value) > 10 ** 12:
        raise ValueError("a value grew beyond 10^12")
    return value


def run_program(program, inputs, watch=None, limit=LIMIT):
    """Run parsed lines from line 1; returns (value, error, snapshots at the watched line)."""
    env = dict(inputs)
    pc = 1
    steps = 0
    seen = []
    while True:
        if not 1 <= pc <= len(program):
            return None, f"control reached line {pc}, which does not exist", seen
        if steps >= limit:
            return None, f"no return after {limit} steps (endless loop?)", seen
        steps += 1
        if pc == watch:
            seen.append(dict(env))
        stmt = program[pc - 1]
        try:
            if stmt[0] == "set":
                env[stmt[1]] = evaluate(stmt[2], env)
                pc += 1
            elif stmt[0] == "if":
                pc = stmt[2] if evaluate(stmt[1], env) else pc + 1
            elif stmt[0] == "goto":
                pc = stmt[1]
            else:
                return evaluate(stmt[1], env), None, seen
        except ValueError as exc:
            return None, f"line {pc}: {exc}", seen


def listing(lines):
    """Number the source lines for display."""
    return "\n".join(f"{k + 1:>3}  {line}" for k, line in enumerate(lines))


def make_function(rng, d):
    """A random program of one input x from a template pool that grows with difficulty.

    Returns (source lines, the line that heads its loop or None, low and high sensible x).
    """
    pool = ["sum", "piece", "power"]
    if d >= 2:
        pool += ["digits", "fib"]
    if d >= 3:
        pool += ["collatz", "gcd"]
    kind = rng.choice(pool)
    r = rng.randint
    if kind == "sum":
        lines = ["s = 0", f"i = {r(0, 3)}", "if i > x goto 7", f"s = s + i * {r(2, 5)}",
                 f"i = i + {r(1, 3)}", "goto 3", f"return s + {r(0, 9)}"]
        return lines, 3, 0, 6 + 4 * d
    if kind == "piece":
        a = r(2, 5)
        lines = [f"if x % {a} == 0 goto 4", f"y = x * {r(2, 4)} - {r(1, 9)}", "goto 5",
                 f"y = x / {a} + {r(1, 9)}", f"if y > {r(10, 40)} goto 7", "return y",
                 f"return y - {r(5, 20)}"]
        return lines, None, 0, 10 + 15 * d
    if kind == "power":
        lines = ["r = 1", "k = x", "if k == 0 goto 7", f"r = r * {r(2, 5)} % {r(11, 40)}",
                 "k = k - 1", "goto 3", f"return r + {r(0, 9)}"]
        return lines, 3, 0, 4 + 3 * d
    if kind == "digits":
        base = rng.choice([2, 3, 10])
        lines = ["t = 0", "if x == 0 goto 6", f"t = t + x % {base}", f"x = x / {base}", "goto 2",
                 f"return t * {r(1, 4)} + {r(0, 9)}"]
        return lines, 2, 1, 30 * d * d
    if kind == "fib":
        lines = [f"a = {r(0, 3)}", f"b = {r(1, 4)}", "i = 0", "if i >= x goto 10",
                 f"t = (a + b) % {r(10, 50)}", "a = b", "b = t", "i = i + 1", "goto 4", "return a"]
        return lines, 4, 0, 3 + 2 * d
    if kind == "collatz":
        lines = ["n = 0", "if x <= 1 goto 9", "if x % 2 == 0 goto 6", "x = x * 3 + 1", "goto 7",
                 "x = x / 2", "n = n + 1", "goto 2", f"return n * {r(1, 3)} + {r(0, 9)}"]
        return lines, 2, 1, 6 + 6 * d
    lines = ["a = x", f"b = {r(12, 60)}", "if b == 0 goto 8", "t = a % b", "a = b", "b = t",
             "goto 3", f"return a * {r(1, 5)} + x"]
    return lines, 3, 1, 20 + 40 * d


def parse_program(lines):
    """Parse every source line (generated programs always parse)."""
    return [parse_statement(line, len(lines)) for line in lines]


def mutate_line(rng, line):
    """Change one operator or constant of a line; None when the line has nothing to change."""
    words = line.split(" ")
    spots = []
    for k, word in enumerate(words):
        if word in SWAPS or (word.isdigit() and (k == 0 or words[k - 1] != "goto")):
            spots.append(k)
    if not spots:
        return None
    k = rng.choice(spots)
    if words[k] in SWAPS:
        words[k] = SWAPS[words[k]]
    else:
        words[k] = str(max(0, int(words[k]) + rng.choice([-1, 1, 2])))
        if words[k] == line.split(" ")[k]:
            words[k] = str(int(words[k]) + 1)
    return " ".join(words)


def outputs(program, xs):
    """f(x) for each x as comparable values (errors as text)."""
    out = []
    for x in xs:
        value, error, _ = run_program(program, {"x": x}, None, 1500)
        out.append(value if error is None else "error")
    return out


class FunctionRepairEnv:
    """FunctionRepair: fix a buggy program so that it passes its tests.

    You are shown a short program in a tiny line-numbered language with one or two wrong
    operators or constants, and the outputs it should give on some inputs. Run the visible
    tests with \\boxed{test}, replace line N with \\boxed{patch N: new statement}, and when you
    are confident, \\boxed{submit}: the program is then checked on hidden inputs as well. You
    win (1.0) when every hidden test passes; the line count cannot change."""

    max_turns = 8
    skill = "Program_Reasoning"

    def reset(self, seed=None, options=None):
        """Generate a program, break it, and pick the tests."""
        self.rng = random.Random(seed)
        self.difficulty = read_difficulty(options, default=2)
        d = self.difficulty
        bugs = 1 if d <= 2 else 2
        while True:
            self.good, _, low, high = make_function(self.rng, d)
            good = parse_program(self.good)
            xs = list(range(low, high + 1))
            self.rng.shuffle(xs)
            self.visible = sorted(xs[:4])
            self.hidden = sorted(set(xs[:10]))
            expected = outputs(good, self.hidden)
            if "error" in expected:
                continue
            self.expected = dict(zip(self.hidden, expected, strict=True))
            self.lines = self.break_program(bugs, good)
            if self.lines is not None:
                break
        self.start_lines = list(self.lines)
        self.turn = 0
        self.done = False
        return self.render("Repair the program."), {"bugs": len(self.bug_lines)}

    def break_program(self, bugs, good):
        """Mutate distinct lines until every bug shows on the tests; None after many tries."""
        for _ in range(60):
            lines = list(self.good)
            picked = self.rng.sample(range(len(lines)), min(bugs, len(lines)))
            ok = True
            for k in picked:
                changed = mutate_line(self.rng, lines[k])
                if changed is None:
                    ok = False
                    break
                single = list(self.good)
                single[k] = changed
                if outputs(parse_program(single), self.hidden) == outputs(good, self.hidden):
                    ok = False
                    break
                lines[k] = changed
            if not ok:
                continue
            program = parse_program(lines)
            if outputs(program, self.visible) != [self.expected[x] for x in self.visible]:
                self.bug_lines = sorted(picked)
                return lines
        return None

    def render(self, last):
        """Program, expected outputs, actions and progress."""
        wants = ", ".join(f"f({x}) = {self.expected[x]}" for x in self.visible)
        return (
            f"{last}\nCurrent program f(x):\n{listing(self.lines)}\n{RULES}\n"
            f"It should give: {wants} (and more hidden cases of the same function).\n"
            f"The bugs are {len(self.bug_lines)} wrong operator(s) or constant(s); jump targets "
            "are right.\nActions: \\boxed{test} runs the visible cases; \\boxed{patch N: "
            "statement} replaces line N; \\boxed{submit} ends the episode with the hidden check. "
            f"Turn {self.turn + 1} of {self.max_turns}."
        )

    def step(self, action):
        """Test, patch or submit."""
        if self.done:
            return "The episode is over.", 0.0, True, False, {}
        self.turn += 1
        box = extract_boxed(action)
        text = " ".join(box.split()) if isinstance(box, str) else ""
        lower = text.lower()
        if lower == "submit":
            self.done = True
            got = outputs(parse_program(self.lines), self.hidden)
            passed = sum(1 for x, g in zip(self.hidden, got, strict=True) if g == self.expected[x])
            if passed == len(self.hidden):
                return (f"All {passed} hidden tests pass. Repaired!", 1.0, True, False,
                        {"passed": passed})
            return (f"Submitted: {passed} of {len(self.hidden)} hidden tests pass. Not repaired.",
                    0.0, True, False, {"passed": passed})
        if lower == "test":
            got = outputs(parse_program(self.lines), self.visible)
            rows = [f"f({x}): want {self.expected[x]}, got {g} "
                    + ("ok" if g == self.expected[x] else "FAIL")
                    for x, g in zip(self.visible, got, strict=True)]
            last = "Test results:\n" + "\n".join(rows)
        else:
            m = re.fullmatch(r"patch (\d{1,3}) ?: ?(.+)", text, re.IGNORECASE)
            if m is None:
                last = ("Unknown action. Use \\boxed{test}, \\boxed{patch N: statement} or "
                        "\\boxed{submit}. This turn is used up.")
            elif not 1 <= int(m.group(1)) <= len(self.lines):
                last = f"Line {m.group(1)} does not exist (lines 1..{len(self.lines)})."
            else:
                try:
                    parse_statement(m.group(2).lower(), len(self.lines))
                    self.lines[int(m.group(1)) - 1] = " ".join(m.group(2).lower().split())
                    last = f"Line {m.group(1)} is now: {self.lines[int(m.group(1)) - 1]}"
                except ValueError as exc:
                    last = f"Patch refused: {exc}."
        if self.turn >= self.max_turns:
            self.done = True
            return last + "\nOut of turns without a submission.", 0.0, False, False, {}
        return self.render(last), 0.0, False, False, {}

    def solution(self):
        """Restore each broken line, test, submit."""
        replies = ["\\boxed{patch " + str(k + 1) + ": " + self.good[k] + "}"
                   for k in self.bug_lines]
        return replies + ["\\boxed{test}", "\\boxed{submit}"]

    def hint(self):
        """Approach only."""
        return ("Trace the program on the smallest visible input and compare with the wanted "
                "output to find where it goes wrong; each bug is a single operator or number. "
                "Re-run the tests after every patch before submitting.")
