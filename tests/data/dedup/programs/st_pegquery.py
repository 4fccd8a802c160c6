"""Find a hidden colour code by asking yes/no questions about single pegs."""

import random

from spadegym.program import extract_boxed


def level_of(options, default):
    """The difficulty 1..5 in ``options``, else ``default``."""
    value = options.get("difficulty", default) if isinstance(options, dict) else default
    if isinstance(value, bool) or not isinstance(value, int):
        return default
    return min(5, max(1, value))

COLOURS = "RGBYOP"


class PegQuestionsEnv:
    """Peg Questions: uncover a hidden row of coloured pegs with yes/no questions.

    A row of pegs hides one colour per position (colours may repeat). Each turn ask about one
    position and one colour, \\boxed{ask 2 G}, and hear yes or no. Questions are limited, so
    rule colours out cleverly. Finish by stating the whole row: \\boxed{code RGBY}. A wrong
    row loses.
    """

    max_turns = 16
    skill = "Logical_Deduction"

    def reset(self, seed=None, options=None):
        self.rng = random.Random(seed)
        level = level_of(options, 2)
        self.length = 3 if level <= 2 else 4
        self.palette = COLOURS[: 3 + level // 2]
        self.code = [self.rng.choice(self.palette) for _ in range(self.length)]
        self.answers = []
        self.turn = 0
        self.done = False
        return self.render("A new row is hidden."), {"turn": 0}

    def render(self, note):
        lines = [note, f"Row length {self.length}; colours {self.palette}. Turn {self.turn} of {self.max_turns}."]
        for pos, colour, said in self.answers:
            lines.append(f"  position {pos} is {colour}? {said}")
        lines.append("Ask \\boxed{ask P C} or answer \\boxed{code ...} with one letter per position.")
        return "\n".join(lines)

    def step(self, action):
        if self.done:
            return "Over.", 0.0, True, False, {"turn": self.turn}
        self.turn += 1
        box = extract_boxed(action) or ""
        words = box.upper().split()
        if len(words) == 3 and words[0] == "ASK" and words[1].isdigit() and len(words[1]) < 3:
            pos, colour = int(words[1]), words[2]
            if 1 <= pos <= self.length and colour in self.palette and len(colour) == 1:
                said = "yes" if self.code[pos - 1] == colour else "no"
                self.answers.append((pos, colour, said))
                note = f"Position {pos} {'is' if said == 'yes' else 'is not'} {colour}."
            else:
                note = "Ask about a listed position and colour."
        elif len(words) == 2 and words[0] == "CODE":
            self.done = True
            if list(words[1]) == self.code:
                return "The row is right. You win!", 1.0, True, False, {"turn": self.turn}
            return "That row is wrong.", 0.0, True, False, {"turn": self.turn}
        else:
            note = "Unreadable. Use \\boxed{ask P C} or \\boxed{code ...}."
        if self.turn >= self.max_turns:
            self.done = True
            return self.render(note + " Out of turns."), 0.0, True, False, {"turn": self.turn}
        return self.render(note), 0.0, False, False, {"turn": self.turn}

    def solution(self):
        moves = []
        for pos, colour in enumerate(self.code, start=1):
            for other in self.palette:
                if len(moves) >= self.max_turns - 2:
                    break
                moves.append(f"\\boxed{{ask {pos} {other}}}")
                if other == colour:
                    break
        return moves[: self.max_turns - 1] + ["\\boxed{code " + "".join(self.code) + "}"]
