"""SheetEditor: compute and fill in cells of a sales sheet with spreadsheet tools (tool env)."""

import json
import random
import re

from spadegym.program import ToolEnv, read_difficulty

REPS = ["Abebe", "Bianca", "Carlos", "Dagny", "Eun-ji", "Farah", "Gideon", "Hanna", "Ilse",
        "Jamal", "Kirra", "Leon", "Mira", "Nadia", "Oskar", "Pita", "Quinn", "Rosa"]
REGIONS = ["North", "South", "East", "West"]
CELL = r"^([A-H])([1-9][0-9]?)$"
COLS = "ABCDEFGH"
MAX_READ = 36


def call(tool, **arguments):
    """Format one tool call the way the player writes it."""
    return "<tool_call>" + json.dumps({"name": tool, "arguments": arguments}) + "</tool_call>"


def parse_cell(value, what="cell"):
    """Validate a cell name like C7 (columns A-H, rows 1-99)."""
    if not isinstance(value, str) or not re.match(CELL, value.strip().upper()):
        raise ValueError(f"'{what}' must be a cell like 'C7' (columns A-H, rows 1-99), "
                         f"got {value!r}")
    m = re.match(CELL, value.strip().upper())
    return m.group(1), int(m.group(2))


def as_number(value):
    """A cell value as a number when it is one, else None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return value
    if isinstance(value, str):
        try:
            return float(value.strip())
        except ValueError:
            return None
    return None


class SheetEditorEnv(ToolEnv):
    """SheetEditor: fill in a quarterly sales sheet.

    You edit a spreadsheet with columns A=Rep, B=Region, C=Q1, D=Q2, E=Q3, F=Total, G=Flag and
    H for notes; row 1 holds the headers. The first message says which cells to compute and
    fill. Read cells with read_range (at most 36 cells per call), write with set_cell, erase
    with clear_cell. Call tools with
    <tool_call>{"name": "read_range", "arguments": {"range": "A1:F6"}}</tool_call>. When done,
    reply <answer>X</answer> with the region's grand total. You win when every requested cell
    holds the right value, nothing else changed, and X is right."""

    max_turns = 24
    skill = "Tool_Use"
    tools = [
        {"name": "read_range",
         "description": "Values of a rectangular range such as A1:F6, row by row (max 36 cells).",
         "parameters": {"type": "object", "properties": {
             "range": {"type": "string", "description": "TopLeft:BottomRight, e.g. A1:F6"}},
             "required": ["range"]}},
        {"name": "set_cell", "description": "Write a number or text into one cell.",
         "parameters": {"type": "object", "properties": {
             "cell": {"type": "string", "description": "e.g. F3"},
             "value": {"type": ["number", "string"], "description": "the new value"}},
             "required": ["cell", "value"]}},
        {"name": "clear_cell", "description": "Empty one cell.",
         "parameters": {"type": "object", "properties": {
             "cell": {"type": "string", "description": "e.g. F3"}},
             "required": ["cell"]}},
    ]

    def reset(self, seed=None, options=None):
        """Build the sheet and the instructions."""
        self.rng = random.Random(seed)
        self.difficulty = read_difficulty(options, default=2)
        self.turn = 0
        self.done = False
        rng = self.rng
        d = self.difficulty
        self.rows = 3 + 2 * d + rng.randint(0, 1)
        self.cells = {"A1": "Rep", "B1": "Region", "C1": "Q1", "D1": "Q2", "E1": "Q3",
                      "F1": "Total", "G1": "Flag", "H1": "Notes"}
        self.region = rng.choice(REGIONS)
        reps = rng.sample(REPS, self.rows)
        regions = [self.region, self.region] + [rng.choice(REGIONS) for _ in range(self.rows - 2)]
        rng.shuffle(regions)
        for k in range(self.rows):
            r = k + 2
            self.cells[f"A{r}"] = reps[k]
            self.cells[f"B{r}"] = regions[k]
            for col in "CDE":
                self.cells[f"{col}{r}"] = rng.randint(5, 99) * 10
        self.mine = [k + 2 for k in range(self.rows) if regions[k] == self.region]
        self.flag_top = d >= 3
        self.start = dict(self.cells)
        self.summary_row = self.rows + rng.randint(2, 4)
        self.quarters = rng.choice(["CDE", "CDE", "CD", "DE", "CE"])
        self.largest = rng.random() < 0.5
        self.target = dict(self.start)
        totals = {}
        for r in self.mine:
            totals[r] = sum(self.start[f"{c}{r}"] for c in self.quarters)
            self.target[f"F{r}"] = totals[r]
        self.grand = sum(totals.values())
        self.target[f"A{self.summary_row}"] = f"{self.region} total"
        self.target[f"F{self.summary_row}"] = self.grand
        if self.flag_top:
            best = max(totals.values()) if self.largest else min(totals.values())
            self.top = [r for r in self.mine if totals[r] == best][0]
            self.target[f"G{self.top}"] = "TOP"
        return self.render_intro(), {"turn": 0}

    def render_intro(self):
        """The task, the tools and the formats."""
        names = {"C": "Q1", "D": "Q2", "E": "Q3"}
        formula = " + ".join(names[c] for c in self.quarters)
        steps = [f"For every rep whose Region is {self.region}, set Total (column F) to "
                 f"{formula}. Leave the Total of other regions empty.",
                 f"In row {self.summary_row}, write the text '{self.region} total' in column A and "
                 f"the sum of the {self.region} totals in column F."]
        if self.flag_top:
            which = "largest" if self.largest else "smallest"
            steps.append(f"Write TOP in column G of the {self.region} rep with the {which} Total "
                         "(the upper row if tied).")
        text = "\n".join(f"{k + 1}. {s}" for k, s in enumerate(steps))
        return (
            f"The sheet has data in rows 2 to {self.rows + 1}. Instructions:\n{text}\n"
            "Finish with <answer>X</answer>, X = the grand total you wrote.\n\n"
            f"Tools (JSON specs):\n{self.describe_tools()}\n\n"
            'Call a tool: <tool_call>{"name": "read_range", "arguments": {"range": "A1:F6"}}'
            "</tool_call>. Several calls per reply are fine; the answer ends the episode.\n"
            f"Turn 0 of {self.max_turns}."
        )

    def step(self, action):
        """Run the reply's tool calls (base class), then report progress."""
        self.turn += 1
        if self.done:
            return "The episode is over.", 0.0, True, False, {"turn": self.turn}
        obs, reward, terminated, truncated, info = ToolEnv.step(self, action)
        self.done = terminated
        if len(obs) > 7600:
            # many calls in one reply can overflow the observation limit; keep the head
            obs = obs[:7600] + "\n[output truncated: make fewer tool calls per reply]"
        obs = f"{obs}\nTurn {self.turn} of {self.max_turns}."
        if not terminated and self.turn >= self.max_turns:
            obs += " Out of turns."
        return obs, reward, terminated, False, {"turn": self.turn}

    def tool_read_range(self, range=None):
        """Read a block of cells."""
        if not isinstance(range, str) or range.count(":") != 1:
            raise ValueError(f"'range' must look like 'A1:F6', got {range!r}")
        left, right = range.split(":")
        c1, r1 = parse_cell(left, "range start")
        c2, r2 = parse_cell(right, "range end")
        if COLS.index(c2) < COLS.index(c1) or r2 < r1:
            raise ValueError("the range must go from the top-left to the bottom-right cell")
        width = COLS.index(c2) - COLS.index(c1) + 1
        if width * (r2 - r1 + 1) > MAX_READ:
            raise ValueError(f"at most {MAX_READ} cells per read; split the range")
        rows = []
        row = r1
        while row <= r2:
            cols = COLS[COLS.index(c1):COLS.index(c2) + 1]
            rows.append({f"{c}{row}": self.cells.get(f"{c}{row}", "") for c in cols})
            row += 1
        return rows

    def tool_set_cell(self, cell=None, value=None):
        """Write one cell."""
        col, row = parse_cell(cell)
        if isinstance(value, bool) or not isinstance(value, (int, float, str)):
            raise ValueError("'value' must be a number or a string")
        if isinstance(value, str) and len(value) > 60:
            raise ValueError("text values are limited to 60 characters")
        if row == 1:
            raise ValueError("row 1 holds the headers and is locked")
        self.cells[f"{col}{row}"] = value
        return f"{col}{row} = {value!r}"

    def tool_clear_cell(self, cell=None):
        """Empty one cell."""
        col, row = parse_cell(cell)
        if row == 1:
            raise ValueError("row 1 holds the headers and is locked")
        self.cells.pop(f"{col}{row}", None)
        return f"{col}{row} cleared"

    def same(self, have, want):
        """Numbers compare by value, text case-insensitively."""
        if isinstance(want, str):
            return isinstance(have, str) and have.strip().lower() == want.lower()
        number = as_number(have)
        return number is not None and abs(number - want) < 1e-9

    def check(self, answer):
        """1.0 when the sheet equals the target exactly and X is the grand total."""
        keys = set(self.cells) | set(self.target)
        for key in keys:
            if key not in self.target or key not in self.cells:
                return 0.0
            if not self.same(self.cells[key], self.target[key]):
                return 0.0
        number = as_number(str(answer).replace(",", ""))
        return 1.0 if number is not None and abs(number - self.grand) < 1e-9 else 0.0

    def solution(self):
        """Read in chunks, write totals, summary, flag, answer."""
        replies = []
        row = 1
        while row <= self.rows + 1:
            end = min(self.rows + 1, row + 5)
            replies.append(call("read_range", range=f"A{row}:E{end}"))
            row = end + 1
        for r in self.mine:
            replies.append(call("set_cell", cell=f"F{r}", value=self.target[f"F{r}"]))
        replies.append(call("set_cell", cell=f"A{self.summary_row}", value=f"{self.region} total"))
        replies.append(call("set_cell", cell=f"F{self.summary_row}", value=self.grand))
        if self.flag_top:
            replies.append(call("set_cell", cell=f"G{self.top}", value="TOP"))
        replies.append(f"<answer>{self.grand}</answer>")
        return replies

    def hint(self):
        """Approach only."""
        return ("Read the data in blocks that fit the read limit and note which rows belong to "
                "the region before writing. Sum only the quarters the instruction names in each row, then the row totals; "
                "write nothing outside the requested cells.")
