"""A black-box word transformer: probe it, then forecast its outputs."""

import random
import string

from spadegym.program import extract_boxed

ABC = string.ascii_uppercase


class WordMangleBoxEnv:
    """Word Mangle Box: discover what a secret word transformer does and forecast its output.

    The box runs every capitalised word through a fixed hidden chain of steps (reversing,
    rotating, shifting letters along the alphabet, swapping neighbours, doubling or removing
    letters, and so on). Send it words to observe it, then forecast what it outputs for each
    challenge word. One wrong forecast loses; forecasting every challenge correctly wins.
    Replies (one per turn): \\boxed{feed WORD} with 1-10 capitals (not a challenge word);
    \\boxed{answer I OUTPUT} forecasts the output for challenge number I."""

    skill = "Pattern_Recognition"
    max_turns = 12

    def transform(self, word):
        """Run ``word`` through the secret chain."""
        for kind, amount in self.chain:
            if not word:
                break
            if kind == "reverse":
                word = word[::-1]
            elif kind == "rotate":
                shift = amount % len(word)
                word = word[shift:] + word[:shift]
            elif kind == "caesar":
                word = "".join([ABC[(ABC.index(ch) + amount) % 26] for ch in word])
            elif kind == "swap":
                letters = list(word)
                i = 0
                while i + 1 < len(letters):
                    letters[i], letters[i + 1] = letters[i + 1], letters[i]
                    i += 2
                word = "".join(letters)
            elif kind == "echo":
                word = word + word[-1]
            elif kind == "drop":
                if len(word) > 1:
                    word = word[1:]
            elif kind == "sort":
                word = "".join(sorted(word))
        return word

    def solution(self):
        """Two telling probes, then every forecast."""
        replies = [f"\\boxed{{feed {w}}}" for w in ("ABCDEFG", "AZBYC") if w not in self.challenges]
        for k, word in enumerate(self.challenges):
            replies.append(f"\\boxed{{answer {k + 1} {self.transform(word)}}}")
        return replies

    def reset(self, seed=None, options=None):
        """Choose the secret chain and the challenge words."""
        self.rng = random.Random(seed)
        level = 2
        if isinstance(options, dict) and isinstance(options.get("difficulty", 2), int):
            level = max(1, min(5, options.get("difficulty", 2)))
        self.level = level
        length = [1, 2, 2, 3, 3][level - 1]
        kinds = ["reverse", "rotate", "caesar", "swap"]
        if level >= 3:
            kinds = kinds + ["echo", "drop"]
        if level == 5:
            kinds = kinds + ["sort"]
        self.chain = []
        while len(self.chain) < length:
            kind = self.rng.choice(kinds)
            if len(self.chain) > 0 and self.chain[-1][0] == kind:
                continue
            if kind == "rotate":
                amount = self.rng.randint(1, 3)
            else:
                amount = self.rng.randint(1, 7)
            self.chain.append((kind, amount))
        wanted = 2 if level < 3 else 3
        self.challenges = []
        while len(self.challenges) < wanted:
            size = self.rng.randint(5, 8)
            word = "".join([self.rng.choice(ABC) for k in range(size)])
            if word in self.challenges or self.transform(word) == word:
                continue
            self.challenges.append(word)
        self.forecasts = {}
        self.observed = []
        self.t = 0
        self.over = False
        return self.screen("The box whirs. Send it words to see what it does."), self.meta()

    def meta(self):
        return {"turn": self.t, "answered": len(self.forecasts)}

    def screen(self, note):
        seen = "\n".join([f"  {a} -> {b}" for a, b in self.observed[-12:]])
        rows = []
        for k, word in enumerate(self.challenges):
            rows.append(f"  Challenge {k + 1}: {word} -> {self.forecasts.get(k, '?')}")
        return (f"{note}\n{self.max_turns - self.t} turn(s) left.\n\n"
                f"Words sent so far:\n{seen or '  (none yet)'}\nChallenge words:\n" + "\n".join(rows)
                + "\n\nReplies: \\boxed{feed WORD} (1-10 capitals, not a challenge word) or "
                "\\boxed{answer I OUTPUT} to forecast challenge I. A single wrong forecast loses.")

    def step(self, action):
        """Send a word or forecast a challenge."""
        if self.over:
            return "Game over.", 0.0, True, False, self.meta()
        self.t += 1
        content = extract_boxed(action) if isinstance(action, str) else None
        parts = content.split() if content else []
        head = parts[0].lower() if parts else ""
        reward = 0.0
        ended = False
        if head == "answer" and len(parts) == 3 and parts[1].isdigit() and len(parts[1]) < 4:
            k = int(parts[1]) - 1
            guess = parts[2].upper()
            if not 0 <= k < len(self.challenges):
                note = f"No challenge {k + 1}; challenges are 1-{len(self.challenges)}."
            elif k in self.forecasts:
                note = f"Challenge {k + 1} already has a forecast."
            elif guess == self.transform(self.challenges[k]):
                self.forecasts[k] = guess
                note = f"Right: {self.challenges[k]} -> {guess}."
                if len(self.forecasts) == len(self.challenges):
                    note += " All challenges forecast. Victory!"
                    reward = 1.0
                    ended = True
            else:
                note = f"Wrong: {self.challenges[k]} does not become {guess[:20]}. Defeat."
                ended = True
        elif head == "feed" and len(parts) == 2:
            word = parts[1].upper()
            if len(word) < 1 or len(word) > 10 or any(ch not in ABC for ch in word):
                note = f"'{word[:20]}' is not 1-10 letters A-Z; send another word."
            elif word in self.challenges:
                note = f"{word} is a challenge word and cannot be sent; forecast it instead."
            else:
                result = self.transform(word)
                self.observed.append((word, result))
                note = f"The box turns {word} into {result}."
        else:
            note = ("Unreadable reply. Use \\boxed{feed WORD} or \\boxed{answer I OUTPUT}, "
                    "such as \\boxed{feed ABCDE} or \\boxed{answer 1 XYZ}.")
        self.over = ended
        cut = not ended and self.t >= self.max_turns
        if cut:
            note += " No turns remain."
            self.over = True
        return self.screen(note), reward, ended, cut, self.meta()

    def hint(self):
        """Method only."""
        return ("Send words whose letters are distinct and in alphabetical order, so every output "
                "letter shows where it went and how far it moved; change the length to expose rotations.")
