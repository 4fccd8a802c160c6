"""MosaicRestorer: restore the missing tiles of a periodic mosaic by finding its hidden motif."""

import random

from spadegym.program import extract_boxed, read_difficulty

SYMBOLS = "ABCDE"


class MosaicRestorerEnv:
    """Mosaic Restorer: fill the damaged cells of a patterned mosaic.

    The mosaic is built by repeating a small hidden motif across the grid; from difficulty 3
    each band of motif rows is shifted sideways (like bricks), and at difficulty 5 the letters
    also cycle from one band to the next. Some cells are damaged (shown as ?). Restore them
    one at a time; a wrong letter costs a life. Restore every damaged cell to win.
    Action: \\boxed{fill R C X}: row R, column C (both counted from 1) gets letter X."""

    max_turns = 16
    skill = "Pattern_Recognition"

    def reset(self, seed=None, options=None):
        """Draw the motif, its shift and the damaged cells."""
        self.rng = random.Random(seed)
        d = read_difficulty(options, default=2)
        self.difficulty = d
        self.py = self.rng.randint(2, 3)
        self.px = self.rng.randint(2, 3 + (d >= 3))
        letters = SYMBOLS[: 3 + (d >= 2) + (d >= 4)]
        self.motif = [[self.rng.choice(letters) for c in range(self.px)] for r in range(self.py)]
        self.motif[0][0], self.motif[-1][-1] = letters[0], letters[1]
        self.shift = self.rng.randint(1, self.px - 1) if d >= 3 else 0
        self.cycle = letters if d >= 5 else ""
        self.height = 3 * self.py + (d >= 4)
        self.width = 3 * self.px + 1 + (d >= 3)
        holes = 3 + d
        cells = [(r, c) for r in range(self.height) for c in range(self.width)]
        for attempt in range(200):  # noqa: B007 (no leading-underscore names allowed)
            chosen = self.rng.sample(cells, holes)
            visible = set(cells) - set(chosen)
            keys = set(self.class_key(r, c) for r, c in visible)
            if all(self.class_key(r, c) in keys for r, c in chosen):
                break
        self.holes = sorted(chosen)
        self.restored = set()
        self.lives = 2
        self.turn = 0
        self.done = False
        return self.render("A damaged mosaic. Find the repeating motif."), self.info()

    def class_key(self, r, c):
        """Cells with the same key always hold the same letter."""
        band = r // self.py
        key = (r % self.py, (c + self.shift * band) % self.px)
        if self.cycle:
            key = key + (band % len(self.cycle),)
        return key

    def letter(self, r, c):
        """The true letter at row r, column c (0-based)."""
        band = r // self.py
        base = self.motif[r % self.py][(c + self.shift * band) % self.px]
        if self.cycle:
            base = self.cycle[(self.cycle.index(base) + band) % len(self.cycle)]
        return base

    def info(self):
        """Small JSON info for logs."""
        return {"turn": self.turn, "restored": len(self.restored), "lives": self.lives}

    def render(self, message):
        """The observation: progress, last result, state and actions."""
        header = "     " + " ".join(str((c + 1) % 10) for c in range(self.width))
        lines = [header]
        for r in range(self.height):
            row = []
            for c in range(self.width):
                damaged = (r, c) in self.holes and (r, c) not in self.restored
                row.append("?" if damaged else self.letter(r, c))
            lines.append(f"  {r + 1:2d} " + " ".join(row))
        left = len(self.holes) - len(self.restored)
        return (
            f"Turn {self.turn} of {self.max_turns}. Damaged cells left {left}; lives {self.lives}.\n"
            f"{message}\n\nMosaic (column numbers shown mod 10):\n" + "\n".join(lines) + "\n\n"
            "Action: \\boxed{fill R C X}, e.g. \\boxed{fill 2 5 A}. A wrong letter costs a life."
        )

    def step(self, action):
        """Restore one damaged cell."""
        if self.done:
            return "The episode is over.", 0.0, True, False, self.info()
        self.turn += 1
        text = extract_boxed(action) if isinstance(action, str) else None
        words = text.replace(",", " ").split() if text else []
        reward, terminated = 0.0, False
        if (
            len(words) == 4
            and words[0].lower() == "fill"
            and words[1].isdigit()
            and words[2].isdigit()
            and len(words[1]) < 4
            and len(words[2]) < 4
        ):
            r, c, x = int(words[1]) - 1, int(words[2]) - 1, words[3].upper()
            if (r, c) not in self.holes:
                message = f"Cell ({r + 1}, {c + 1}) is not damaged; pick a ? cell."
            elif (r, c) in self.restored:
                message = f"Cell ({r + 1}, {c + 1}) is already restored."
            elif x != self.letter(r, c):
                self.lives -= 1
                message = f"Wrong: {x[:5]} does not belong at ({r + 1}, {c + 1}). You lose a life."
                if self.lives <= 0:
                    message += " No lives left. You lose."
                    terminated = True
            else:
                self.restored.add((r, c))
                message = f"Right: ({r + 1}, {c + 1}) is {x}."
                if len(self.restored) == len(self.holes):
                    message += " The mosaic is whole again. You win!"
                    reward, terminated = 1.0, True
        else:
            message = (
                "Could not read the action. Write \\boxed{fill R C X}, e.g. \\boxed{fill 3 4 B}."
            )
        self.done = terminated
        truncated = not terminated and self.turn >= self.max_turns
        if truncated:
            message += " Out of turns."
            self.done = True
        return self.render(message), reward, terminated, truncated, self.info()

    def solution(self):
        """Fill every damaged cell with its true letter."""
        return [
            f"\\boxed{{fill {r + 1} {c + 1} {self.letter(r, c)}}}"
            for r, c in self.holes
            if (r, c) not in self.restored
        ]

    def hint(self):
        """A nudge toward the method."""
        return (
            "Find the smallest block of rows and columns that repeats; compare each band of "
            "rows with the band above it to see whether it is shifted sideways or uses "
            "relabelled letters."
        )
