"""AutomatonForecast: infer a hidden elementary cellular-automaton rule and forecast rows."""

import random

from spadegym.program import extract_boxed, read_difficulty

RULES = [30, 45, 54, 57, 60, 62, 73, 90, 102, 105, 110, 122, 126, 150, 18, 22, 26, 106, 184, 169]
PATTERNS = ["111", "110", "101", "100", "011", "010", "001", "000"]


def rule_output(rule, pattern):
    """Output bit of an elementary rule for a 3-cell pattern such as '110'."""
    index = int(pattern, 2)
    return (rule >> index) & 1


def next_row(rule, row):
    """One generation on a ring: each cell looks at its left neighbour, itself, its right."""
    n = len(row)
    out = []
    for i in range(n):
        pattern = str(row[(i - 1) % n]) + str(row[i]) + str(row[(i + 1) % n])
        out.append(rule_output(rule, pattern))
    return out


def show(row):
    """A row as '#' (on) and '.' (off)."""
    return "".join("#" if c else "." for c in row)


class AutomatonForecastEnv:
    """Automaton Forecast: learn a hidden cellular-automaton rule and forecast generations.

    A ring of cells, each on (#) or off (.), evolves in generations: every cell's next state
    depends only on its left neighbour, itself and its right neighbour (the ring wraps), by a
    hidden fixed rule. Some generations are shown. Forecast each target generation before the
    automaton reaches it. A wrong forecast ends the game; all targets right wins.
    Actions (one per turn): \\boxed{advance} reveals the next generation (not past an open
    target); \\boxed{test ABC} reveals the rule's output for the pattern ABC of three cells,
    written with # and .; \\boxed{predict G ROW} forecasts generation G as ROW (# and .)."""

    max_turns = 12
    skill = "Pattern_Recognition"

    def reset(self, seed=None, options=None):
        """Pick a rule and a starting row whose targets are not trivial."""
        self.rng = random.Random(seed)
        self.difficulty = read_difficulty(options, default=2)
        width = 9 + 2 * self.difficulty
        count = 2 if self.difficulty <= 2 else 3
        shown = 3 if self.difficulty <= 3 else 2
        self.targets = [shown + 1 + 2 * k for k in range(count)]
        for attempt in range(100):  # noqa: B007 (no leading-underscore names allowed)
            self.rule = self.rng.choice(RULES)
            row = [1 if self.rng.random() < 0.4 else 0 for k in range(width)]
            self.rows = [row]
            while len(self.rows) <= self.targets[-1]:
                self.rows.append(next_row(self.rule, self.rows[-1]))
            lively = all(
                self.rows[t] != self.rows[t - 1] and any(self.rows[t]) for t in self.targets
            )
            if lively:
                break
        self.revealed = shown - 1
        self.tested = {}
        self.predicted = {}
        self.turn = 0
        self.done = False
        return self.render("The automaton waits. Study the generations shown."), self.info()

    def info(self):
        """Small JSON info for logs."""
        return {"turn": self.turn, "revealed": self.revealed, "predicted": len(self.predicted)}

    def render(self, message):
        """The observation: progress, last result, state and actions."""
        rows = [f"  gen {g:2d}: {show(self.rows[g])}" for g in range(self.revealed + 1)]
        tests = (
            " ".join(
                f"{p.replace('1', '#').replace('0', '.')}->{'#' if v else '.'}"
                for p, v in sorted(self.tested.items())
            )
            or "none"
        )
        open_targets = [t for t in self.targets if t not in self.predicted]
        return (
            f"Turn {self.turn} of {self.max_turns}.\n{message}\n\n"
            "Generations revealed:\n" + "\n".join(rows) + "\n"
            f"Rule tests done: {tests}\n"
            f"Targets still to forecast: {', '.join('gen ' + str(t) for t in open_targets)}\n"
            f"Forecasts right so far: {', '.join('gen ' + str(t) for t in sorted(self.predicted)) or 'none'}\n\n"
            "Actions: \\boxed{advance}; \\boxed{test ABC} (e.g. \\boxed{test #.#}); "
            f"\\boxed{{predict G ROW}} with ROW {len(self.rows[0])} cells of # and . "
            "One wrong forecast ends the game."
        )

    def step(self, action):
        """Advance, test a pattern, or forecast a target generation."""
        if self.done:
            return "The episode is over.", 0.0, True, False, self.info()
        self.turn += 1
        text = extract_boxed(action) if isinstance(action, str) else None
        words = text.split() if text else []
        verb = words[0].lower() if words else ""
        reward, terminated = 0.0, False
        width = len(self.rows[0])
        if verb == "advance" and len(words) == 1:
            nxt = self.revealed + 1
            if nxt in self.targets and nxt not in self.predicted:
                message = f"Generation {nxt} is an open target: forecast it before advancing."
            elif nxt >= len(self.rows):
                message = "All generations needed are revealed; forecast the targets."
            else:
                self.revealed = nxt
                message = f"Generation {nxt} is now revealed (see below)."
        elif verb == "test" and len(words) == 2:
            cells = words[1].replace("#", "1").replace(".", "0")
            if len(cells) != 3 or any(c not in "01" for c in cells):
                message = (
                    "A test needs exactly three cells written with # and ., e.g. \\boxed{test ##.}."
                )
            else:
                self.tested[cells] = rule_output(self.rule, cells)
                out = "#" if self.tested[cells] else "."
                message = f"Test: a cell whose neighbourhood is {words[1]} becomes {out}."
        elif verb == "predict" and len(words) == 3 and words[1].isdigit() and len(words[1]) < 4:
            gen = int(words[1])
            cells = words[2].replace("#", "1").replace(".", "0")
            if gen not in self.targets:
                message = f"Generation {gen} is not a target; targets are {self.targets}."
            elif gen in self.predicted:
                message = f"Generation {gen} is already forecast."
            elif len(cells) != width or any(c not in "01" for c in cells):
                message = f"A row needs exactly {width} cells of # and .; nothing was forecast."
            elif [int(c) for c in cells] != self.rows[gen]:
                message = f"Wrong forecast for generation {gen}. You lose."
                terminated = True
            else:
                self.predicted[gen] = True
                message = f"Right: your forecast of generation {gen} is correct."
                if len(self.predicted) == len(self.targets):
                    message += " Every target forecast. You win!"
                    reward, terminated = 1.0, True
        else:
            message = "Could not read the action. Use \\boxed{advance}, \\boxed{test ABC} or \\boxed{predict G ROW}."
        self.done = terminated
        truncated = not terminated and self.turn >= self.max_turns
        if truncated:
            message += " Out of turns."
            self.done = True
        return self.render(message), reward, terminated, truncated, self.info()

    def solution(self):
        """Advance up to each target and forecast it from the hidden rule."""
        moves = []
        revealed = self.revealed
        for t in self.targets:
            if t in self.predicted:
                continue
            while revealed + 1 < t:
                moves.append("\\boxed{advance}")
                revealed += 1
            moves.append(f"\\boxed{{predict {t} {show(self.rows[t])}}}")
        return moves

    def hint(self):
        """A nudge toward the method."""
        return (
            "Read the rule off the revealed generations: for each cell, note its three-cell "
            "neighbourhood above and what it became. Test only the neighbourhoods you have not "
            "yet seen."
        )
