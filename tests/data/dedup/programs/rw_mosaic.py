"""Repair a tiled wall whose pattern repeats."""

import random

from spadegym.program import extract_boxed

GLYPHS = "ABCDE"


class TileWallRepairEnv:
    """Tile Wall Repair: put back the lost tiles of a repeating wall pattern.

    The wall repeats one small secret block over and over. From difficulty 3 every strip of
    block rows is slid sideways like brickwork, and at difficulty 5 the glyphs also rotate by
    one from strip to strip. Lost tiles show as ?. Replace them one per turn; a wrong glyph
    costs one of your two chances. Replace every lost tile to win.
    Reply \\boxed{fill R C X} to put glyph X at row R, column C (counting from 1)."""

    skill = "Pattern_Recognition"
    max_turns = 16

    def solution(self):
        """Every missing tile with its true glyph."""
        moves = []
        for r, c in self.missing:
            if (r, c) in self.fixed:
                continue
            moves.append("\\boxed{fill " + str(r + 1) + " " + str(c + 1) + " " + self.glyph_at(r, c) + "}")
        return moves

    def glyph_at(self, r, c):
        strip = r // self.tall
        g = self.block[r % self.tall][(c + self.slide * strip) % self.wide]
        if self.rotation:
            g = self.rotation[(self.rotation.index(g) + strip) % len(self.rotation)]
        return g

    def key(self, r, c):
        strip = r // self.tall
        k = (r % self.tall, (c + self.slide * strip) % self.wide)
        return k + (strip % len(self.rotation),) if self.rotation else k

    def reset(self, seed=None, options=None):
        """Draw the block, the slide and the lost tiles."""
        self.rng = random.Random(seed)
        level = 2
        if isinstance(options, dict):
            wanted = options.get("difficulty", 2)
            if isinstance(wanted, int):
                level = max(1, min(5, wanted))
        self.level = level
        self.tall = self.rng.randint(2, 3)
        self.wide = self.rng.randint(2, 3 + (1 if level >= 3 else 0))
        count = 3
        if level >= 2:
            count += 1
        if level >= 4:
            count += 1
        glyphs = GLYPHS[:count]
        self.block = []
        for r in range(self.tall):
            self.block.append([self.rng.choice(glyphs) for c in range(self.wide)])
        self.block[0][0] = glyphs[0]
        self.block[-1][-1] = glyphs[1]
        self.slide = self.rng.randint(1, self.wide - 1) if level >= 3 else 0
        self.rotation = glyphs if level >= 5 else ""
        self.rows = self.tall * 3 + (1 if level >= 4 else 0)
        self.cols = self.wide * 3 + 1 + (1 if level >= 3 else 0)
        everything = [(r, c) for r in range(self.rows) for c in range(self.cols)]
        tries = 0
        while tries < 200:
            tries += 1
            lost = self.rng.sample(everything, level + 3)
            seen = {self.key(r, c) for r, c in everything if (r, c) not in lost}
            if all(self.key(r, c) in seen for r, c in lost):
                break
        self.missing = sorted(lost)
        self.fixed = set()
        self.chances = 2
        self.t = 0
        self.over = False
        return self.board("The wall has gaps. Work out the repeating block."), self.meta()

    def meta(self):
        return {"turn": self.t, "restored": len(self.fixed), "lives": self.chances}

    def board(self, note):
        lines = ["     " + " ".join([str((c + 1) % 10) for c in range(self.cols)])]
        for r in range(self.rows):
            cells = ["?" if (r, c) in self.missing and (r, c) not in self.fixed else self.glyph_at(r, c)
                     for c in range(self.cols)]
            lines.append("  %2d " % (r + 1) + " ".join(cells))
        gaps = len(self.missing) - len(self.fixed)
        return (f"{gaps} gap(s) remain, {self.chances} chance(s), turn {self.t}/{self.max_turns}.\n"
                f"{note}\n\nWall (column numbers mod 10):\n" + "\n".join(lines) + "\n\n"
                "Reply \\boxed{fill R C X}, for example \\boxed{fill 2 5 A}; a wrong glyph costs a chance.")

    def step(self, action):
        """Replace one lost tile."""
        if self.over:
            return "This game has ended.", 0.0, True, False, self.meta()
        self.t += 1
        content = extract_boxed(action) if isinstance(action, str) else None
        parts = content.replace(",", " ").split() if content else []
        reward = 0.0
        ended = False
        readable = (len(parts) == 4 and parts[0].lower() == "fill" and parts[1].isdigit()
                    and parts[2].isdigit() and len(parts[1]) < 4 and len(parts[2]) < 4)
        if not readable:
            note = "Unreadable reply. Use \\boxed{fill R C X}, such as \\boxed{fill 3 4 B}."
        else:
            r = int(parts[1]) - 1
            c = int(parts[2]) - 1
            glyph = parts[3].upper()
            if (r, c) not in self.missing:
                note = f"({r + 1}, {c + 1}) is intact; choose a ? square."
            elif (r, c) in self.fixed:
                note = f"({r + 1}, {c + 1}) was already replaced."
            elif glyph == self.glyph_at(r, c):
                self.fixed.add((r, c))
                note = f"Correct: ({r + 1}, {c + 1}) holds {glyph}."
                if len(self.fixed) == len(self.missing):
                    note += " The wall is complete. Victory!"
                    reward = 1.0
                    ended = True
            else:
                self.chances -= 1
                note = f"Incorrect: {glyph[:5]} is not the tile at ({r + 1}, {c + 1}). One chance gone."
                if self.chances <= 0:
                    note += " No chances remain. Defeat."
                    ended = True
        self.over = ended
        cut = not ended and self.t >= self.max_turns
        if cut:
            note += " No turns remain."
            self.over = True
        return self.board(note), reward, ended, cut, self.meta()

    def hint(self):
        """Method only."""
        return ("Look for the smallest block of rows and columns that repeats, and compare each "
                "strip with the one above it to see if it slides sideways or renames glyphs.")
