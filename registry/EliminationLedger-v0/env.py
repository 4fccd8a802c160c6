"""EliminationLedger: solve a linear system by explicit row operations (Mathematical_Reasoning)."""

import random
import re
from fractions import Fraction

from spadegym.program import extract_boxed, read_difficulty

SIZE = {1: 2, 2: 2, 3: 3, 4: 3, 5: 3}
COEFF = {1: 3, 2: 5, 3: 3, 4: 4, 5: 6}
VARIABLES = ["x", "y", "z"]
SLACK = 3
ROW_OP = re.compile(r"^r(\d)\s*(?:=|->|:=|<-)\s*(.+)$")
NUMBER = r"(\d+(?:/\d+)?)"
TERM = re.compile(r"^([+-]?)\s*" + NUMBER + r"?\s*\*?\s*r(\d)$")


def parse_terms(text):
    """A list of (coefficient, row index) from text like 'r2 - 3/2 r1', or None."""
    text = text.replace(" ", "")
    pieces = re.findall(r"[+-]?[^+-]+", text)
    out = []
    for piece in pieces:
        match = TERM.match(piece)
        if match is None:
            return None
        sign, number, row = match.groups()
        if number and (len(number) > 12 or ("/" in number and int(number.split("/")[1]) == 0)):
            return None
        value = Fraction(number) if number else Fraction(1)
        out.append((-value if sign == "-" else value, int(row) - 1))
    return out


def gauss_jordan_ops(rows):
    """Row operations (kind, target, source, factor) that reduce ``rows`` to the identity."""
    rows = [list(r) for r in rows]
    n = len(rows)
    ops = []
    for col in range(n):
        pivot = next(r for r in range(col, n) if rows[r][col] != 0)
        if pivot != col:
            rows[col], rows[pivot] = rows[pivot], rows[col]
            ops.append(("swap", col, pivot, Fraction(1)))
        if rows[col][col] != 1:
            k = 1 / rows[col][col]
            rows[col] = [k * v for v in rows[col]]
            ops.append(("scale", col, col, k))
        for r in range(n):
            if r != col and rows[r][col] != 0:
                k = -rows[r][col]
                rows[r] = [a + k * b for a, b in zip(rows[r], rows[col])]
                ops.append(("add", r, col, k))
    return ops


def show_number(v):
    """A fraction as text: 3, -1/2."""
    return str(v.numerator) if v.denominator == 1 else f"{v.numerator}/{v.denominator}"


class EliminationLedgerEnv:
    """Elimination Ledger: reduce a system of linear equations to its solution by row operations.

    The ledger holds one equation per row (R1, R2, ...). Each turn apply one elementary row
    operation: scale a row by a nonzero number, add a multiple of another row to a row, or
    swap two rows. Win when the rows read x = ..., y = ... (each row has a single variable with
    coefficient 1, in order), within the turn limit. Answer like \\boxed{R2 = R2 - 3 R1},
    \\boxed{R1 = 1/2 R1} or \\boxed{swap R1 R2}.
    """

    max_turns = 16
    skill = "Mathematical_Reasoning"

    def reset(self, seed=None, options=None):
        """Build a new system from ``seed`` and the difficulty in ``options``."""
        self.rng = random.Random(seed)
        self.difficulty = read_difficulty(options, default=2)
        n = SIZE[self.difficulty]
        c = COEFF[self.difficulty]
        while True:
            matrix = [[Fraction(self.rng.randint(-c, c)) for j in range(n)] for i in range(n)]
            values = [self.rng.randint(-6, 6) for j in range(n)]
            rows = [row + [sum(a * v for a, v in zip(row, values))] for row in matrix]
            try:
                ops = gauss_jordan_ops(rows)
            except StopIteration:
                continue  # singular matrix
            if any(row[i] == 1 for i, row in enumerate(rows)) and self.difficulty >= 4:
                continue
            if n + 1 <= len(ops) <= self.max_turns - SLACK:
                break
        self.start = rows
        self.rows = [list(r) for r in rows]
        self.solution_ops = ops
        self.limit = len(ops) + SLACK
        self.turn = 0
        self.done = False
        return self.render("The ledger is open."), self.info()

    def info(self):
        """A small JSON-able summary of the state."""
        return {"turn": self.turn, "rows": [[show_number(v) for v in r] for r in self.rows],
                "limit": self.limit, "difficulty": self.difficulty}

    def show_row(self, row):
        """One equation as text, e.g. 2x - y = 5."""
        parts = []
        for coef, var in zip(row[:-1], VARIABLES):
            if coef == 0:
                continue
            sign = "-" if coef < 0 else "+"
            mag = abs(coef)
            text = var if mag == 1 else show_number(mag) + var
            parts.append((sign, text))
        if not parts:
            left = "0"
        else:
            left = ("-" if parts[0][0] == "-" else "") + parts[0][1]
            for sign, text in parts[1:]:
                left += f" {sign} {text}"
        return f"{left} = {show_number(row[-1])}"

    def render(self, result):
        """The observation text: result, state, actions and progress."""
        lines = [f"Turn {self.turn} of {self.limit}.", result, "Ledger:"]
        for i, row in enumerate(self.rows):
            lines.append(f"  R{i + 1}: {self.show_row(row)}")
        lines.append("Goal: R1 reads x = ..., R2 reads y = ...(, R3 reads z = ...).")
        lines.append("Actions: \\boxed{Ri = Ri + k Rj} (k may be negative or a fraction like 3/2), "
                     "\\boxed{Ri = k Ri} (k nonzero), \\boxed{swap Ri Rj}.")
        return "\n".join(lines)

    def apply(self, box):
        """Apply the row operation written in ``box``; a message describing what happened."""
        text = box.strip().lower().replace("·", "*").replace("−", "-")
        n = len(self.rows)
        swap = re.match(r"^swap\s*r(\d)\s*,?\s*(?:and\s*)?r(\d)$", text)
        if swap:
            i, j = int(swap.group(1)) - 1, int(swap.group(2)) - 1
            if not (0 <= i < n and 0 <= j < n) or i == j:
                return f"swap needs two different rows among R1..R{n}."
            self.rows[i], self.rows[j] = self.rows[j], self.rows[i]
            return f"Swapped R{i + 1} and R{j + 1}."
        match = ROW_OP.match(text)
        if match is None:
            return f"'{box[:40]}' is not a row operation such as R2 = R2 - 3 R1."
        target = int(match.group(1)) - 1
        terms = parse_terms(match.group(2))
        if not 0 <= target < n or terms is None or any(not 0 <= r < n for k, r in terms):
            return f"Could not read '{box[:40]}'; rows are R1..R{n} and coefficients are numbers like 2 or 3/4."
        own = sum((k for k, r in terms if r == target), Fraction(0))
        others = [(k, r) for k, r in terms if r != target]
        if len(others) > 1 or (others and own != 1) or (not others and own == 0):
            return "Use one operation at a time: Ri = k Ri (k nonzero) or Ri = Ri + k Rj."
        if others:
            k, r = others[0]
            self.rows[target] = [a + k * b for a, b in zip(self.rows[target], self.rows[r])]
            return f"R{target + 1} = R{target + 1} + ({show_number(k)}) R{r + 1}."
        self.rows[target] = [own * a for a in self.rows[target]]
        return f"R{target + 1} scaled by {show_number(own)}."

    def solved(self):
        """True when the coefficient part is the identity."""
        n = len(self.rows)
        return all(self.rows[i][j] == (1 if i == j else 0) for i in range(n) for j in range(n))

    def step(self, action):
        """Apply one row operation."""
        if self.done:
            return "The episode is over; call reset() to play again.", 0.0, True, False, self.info()
        self.turn += 1
        box = extract_boxed(action)
        result = "No \\boxed{...} answer found; the ledger is unchanged." if box is None else self.apply(box)
        if self.solved():
            self.done = True
            return self.render(result + " The system is solved!"), 1.0, True, False, self.info()
        if self.turn >= self.limit:
            self.done = True
            return self.render(result + " Out of turns."), 0.0, True, False, self.info()
        return self.render(result), 0.0, False, False, self.info()

    def solution(self):
        """Gauss-Jordan elimination on the starting system, one action per row operation."""
        out = []
        for kind, target, source, k in gauss_jordan_ops(self.start):
            if kind == "swap":
                out.append("\\boxed{swap R" + str(target + 1) + " R" + str(source + 1) + "}")
            elif kind == "scale":
                out.append("\\boxed{R" + str(target + 1) + " = " + show_number(k) + " R" + str(target + 1) + "}")
            else:
                sign = "-" if k < 0 else "+"
                out.append("\\boxed{R" + str(target + 1) + " = R" + str(target + 1) + " " + sign + " "
                           + show_number(abs(k)) + " R" + str(source + 1) + "}")
        return out

    def hint(self):
        """A nudge about the approach."""
        return ("Work column by column: get a 1 in the diagonal position of the current column, "
                "then use that row to clear the column's other entries. Choosing a pivot row "
                "whose coefficient divides the others keeps the numbers small.")
