"""BeadPatternLoom: continue a necklace whose beads follow a hidden generating rule."""

import random

from spadegym.program import extract_boxed, read_difficulty

BEADS = "RGBYWKO"
NAMES = {
    "R": "red",
    "G": "green",
    "B": "blue",
    "Y": "yellow",
    "W": "white",
    "K": "black",
    "O": "orange",
}


def ones(n):
    """Number of 1 bits in the binary form of n >= 0."""
    count = 0
    while n:
        count += n & 1
        n >>= 1
    return count


def generate(rng, family, palette, length):
    """Return `length` beads made by the rule `family` over the colours in `palette`."""
    out = []
    if family == "motif":
        motif = [rng.choice(palette) for k in range(rng.randint(3, 5))]
        while len(set(motif)) < 2:
            motif = [rng.choice(palette) for k in range(len(motif))]
        while len(out) < length:
            out.extend(motif)
    elif family == "mirror":
        motif = rng.sample(palette, min(len(palette), rng.randint(3, 4)))
        unit = motif + motif[-2:0:-1]
        while len(out) < length:
            out.extend(unit)
    elif family == "blocks":
        order = rng.sample(palette, min(len(palette), 3))
        top = rng.randint(3, 4)
        j = 0
        while len(out) < length:
            out.extend([order[j % len(order)]] * (j % top + 1))
            j += 1
    elif family == "interleave":
        odd = rng.sample(palette, 2)
        even = rng.sample(palette, 3)
        i = 0
        while len(out) < length:
            out.append(odd[(i // 2) % 2] if i % 2 == 0 else even[(i // 2) % 3])
            i += 1
    elif family == "thue":
        a, b = rng.sample(palette, 2)
        for i in range(length):
            out.append(a if ones(i) % 2 == 0 else b)
    else:  # counting runs: a run of the first colour grows by one each cycle
        a, b, c = rng.sample(palette, 3)
        n = 1
        while len(out) < length:
            out.extend([a] * n + [b, c])
            n += 1
    return out[:length]


class BeadPatternLoomEnv:
    """Bead Pattern Loom: predict the next bead of a patterned necklace.

    The loom threads beads by a hidden rule (repeating motifs, mirrored motifs, growing
    runs, interleaved cycles, ...). Each turn you predict the colour of the next bead; the
    true bead is then threaded, whether you were right or not. Make the required number of
    correct predictions before you run out of mistakes.
    Action: \\boxed{C}, one colour letter from the palette shown (for example \\boxed{R})."""

    max_turns = 18
    skill = "Pattern_Recognition"

    def reset(self, seed=None, options=None):
        """Choose a hidden rule and thread the opening beads."""
        self.rng = random.Random(seed)
        self.difficulty = read_difficulty(options, default=2)
        pools = {
            1: ["motif", "mirror"],
            2: ["motif", "mirror", "blocks"],
            3: ["blocks", "interleave", "mirror"],
            4: ["interleave", "counting", "blocks"],
            5: ["counting", "thue", "interleave"],
        }
        self.family = self.rng.choice(pools[self.difficulty])
        size = min(len(BEADS), 3 + self.difficulty // 2 + self.rng.randint(0, 1))
        self.palette = sorted(self.rng.sample(BEADS, size))
        self.need = 7 + self.difficulty
        self.lives = 3
        shown = {1: 12, 2: 14, 3: 16, 4: 18, 5: 18}[self.difficulty]
        self.beads = generate(self.rng, self.family, self.palette, shown + self.max_turns + 2)
        self.position = shown
        self.correct = 0
        self.wrong = 0
        self.turn = 0
        self.done = False
        return self.render("The loom starts. Predict the next bead."), self.info()

    def info(self):
        """Small JSON info for logs."""
        return {"turn": self.turn, "correct": self.correct, "wrong": self.wrong}

    def render(self, message):
        """The observation: progress, last result, state and actions."""
        thread = " ".join(self.beads[: self.position])
        palette = ", ".join(f"{c}={NAMES[c]}" for c in self.palette)
        return (
            f"Turn {self.turn} of {self.max_turns}. Correct {self.correct} of {self.need} "
            f"needed; mistakes {self.wrong} of {self.lives} allowed.\n{message}\n\n"
            f"Necklace so far ({self.position} beads, left to right):\n{thread}\n"
            f"Palette: {palette}\n\n"
            "Action: \\boxed{C} with C one palette letter, your prediction for the next bead."
        )

    def step(self, action):
        """Predict the next bead; the true bead is threaded either way."""
        if self.done:
            return "The episode is over.", 0.0, True, False, self.info()
        self.turn += 1
        text = extract_boxed(action) if isinstance(action, str) else None
        guess = text.strip().upper() if text else ""
        reward, terminated = 0.0, False
        if len(guess) != 1 or guess not in self.palette:
            message = (
                f"'{guess[:20]}' is not a palette letter ({', '.join(self.palette)}). "
                "No bead was threaded; this turn is lost."
            )
        else:
            bead = self.beads[self.position]
            self.position += 1
            if guess == bead:
                self.correct += 1
                message = f"Right: the next bead was {bead} ({NAMES[bead]})."
                if self.correct >= self.need:
                    message += " The necklace is finished. You win!"
                    reward, terminated = 1.0, True
            else:
                self.wrong += 1
                message = f"Wrong: you said {guess}, the bead was {bead} ({NAMES[bead]})."
                if self.wrong >= self.lives:
                    message += " No mistakes left. You lose."
                    terminated = True
        self.done = terminated
        truncated = not terminated and self.turn >= self.max_turns
        if truncated:
            message += " Out of turns."
            self.done = True
        return self.render(message), reward, terminated, truncated, self.info()

    def solution(self):
        """Predict each upcoming bead from the hidden rule."""
        upcoming = self.beads[self.position : self.position + self.need - self.correct]
        return [f"\\boxed{{{b}}}" for b in upcoming]

    def hint(self):
        """A nudge toward the method."""
        return (
            "Split the necklace into runs and candidate repeating units; check whether the "
            "unit is fixed, mirrored, growing, or made of two interleaved cycles at odd and "
            "even positions."
        )
