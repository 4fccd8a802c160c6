"""Crack a substitution cipher using the shapes of words."""

import random
import string

from spadegym.program import extract_boxed

VOCAB = ("APPLE BANANA CHERRY LEMON MANGO PEACH GRAPE MELON BERRY OLIVE RIVER OCEAN STORM CLOUD "
         "THUNDER BREEZE WINTER SUMMER AUTUMN SPRING CASTLE BRIDGE TOWER GARDEN FOREST VALLEY "
         "CANYON DESERT ISLAND HARBOR PENCIL LETTER PAPER MARKET SILVER COPPER MIRROR BOTTLE "
         "KETTLE BASKET RABBIT KITTEN PUPPY TIGER ZEBRA HORSE MOOSE SHEEP LLAMA PARROT BALLOON "
         "COFFEE CANDLE WAGON ANCHOR SADDLE PEPPER COOKIE RIBBON BUTTON PLANET COMET ORBIT "
         "GALAXY ROCKET METEOR SHADOW SIGNAL PUZZLE JIGSAW NUMBER SQUARE CIRCLE LADDER HAMMER "
         "TUNNEL GOBLIN WIZARD DRAGON KNIGHT").split()
ALPHABET = string.ascii_uppercase


class CipherWordsEnv:
    """Cipher Words: recover a letter-substituted message one word at a time.

    Each letter of the message was swapped for another (consistently everywhere, and no two
    letters share a substitute). Every original word is on the vocabulary list shown. Solve
    the coded words one by one; a correct solution fills in its letters in the key. A wrong
    solution costs one of two lives. Solve every word to win.
    Reply \\boxed{decode I WORD}: coded word number I stands for WORD."""

    skill = "Pattern_Recognition"
    max_turns = 12

    def readings(self, coded, cap):
        """How many consistent one-to-one readings the coded words have (stops at ``cap``)."""
        total = 0
        stack = [(0, {}, {})]
        while stack and total < cap:
            i, there, back = stack.pop()
            if i == len(coded):
                total += 1
                continue
            word = coded[i]
            for plain in reversed(self.vocab):
                if len(plain) != len(word):
                    continue
                fwd = dict(there)
                rev = dict(back)
                fits = True
                for c, p in zip(word, plain):
                    if fwd.get(c, p) != p or rev.get(p, c) != c:
                        fits = False
                        break
                    fwd[c] = p
                    rev[p] = c
                if fits:
                    stack.append((i + 1, fwd, rev))
        return total

    def reset(self, seed=None, options=None):
        """Choose a message that decodes one way only, and a cipher."""
        self.rng = random.Random(seed)
        level = 2
        if isinstance(options, dict) and isinstance(options.get("difficulty", 2), int):
            level = max(1, min(5, options.get("difficulty", 2)))
        self.level = level
        words = level + 2
        for attempt in range(60):  # noqa: B007
            self.vocab = sorted(self.rng.sample(VOCAB, 4 * level + 12))
            self.message = self.rng.sample(self.vocab, words)
            scrambled = list(ALPHABET)
            self.rng.shuffle(scrambled)
            cipher = {}
            for plain, coded in zip(ALPHABET, scrambled):
                cipher[plain] = coded
            self.coded = ["".join([cipher[ch] for ch in word]) for word in self.message]
            if self.readings(self.coded, 2) == 1:
                break
        self.solved = {}
        self.key = {}
        self.lives = 2
        self.t = 0
        self.over = False
        return self.sheet("A new coded message. Compare word shapes with the vocabulary."), self.meta()

    def meta(self):
        return {"turn": self.t, "decoded": len(self.solved), "lives": self.lives}

    def sheet(self, note):
        lines = [f"{len(self.solved)} of {len(self.coded)} words solved, {self.lives} lives, turn "
                 f"{self.t}/{self.max_turns}.", note, "", "Coded words:"]
        for i, word in enumerate(self.coded):
            if i in self.solved:
                lines.append(f"  {i + 1}. {word}  = {self.solved[i]}")
            else:
                lines.append(f"  {i + 1}. {word}  partial " + "".join([self.key.get(c, ".") for c in word]))
        pairs = " ".join([f"{c}->{p}" for c, p in sorted(self.key.items())])
        lines.append(f"Key so far (coded->plain): {pairs or '(empty)'}")
        lines.append("Vocabulary: " + " ".join(self.vocab))
        lines.append("")
        lines.append("Reply \\boxed{decode I WORD}, for example \\boxed{decode 1 APPLE}.")
        return "\n".join(lines)

    def step(self, action):
        """Try to solve one word."""
        if self.over:
            return "Game over.", 0.0, True, False, self.meta()
        self.t += 1
        content = extract_boxed(action) if isinstance(action, str) else None
        parts = content.split() if content else []
        reward = 0.0
        ended = False
        readable = len(parts) == 3 and parts[0].lower() == "decode" and parts[1].isdigit() and len(parts[1]) < 4
        if not readable:
            note = "Unreadable reply. Write \\boxed{decode I WORD}, such as \\boxed{decode 2 RIVER}."
        else:
            i = int(parts[1]) - 1
            guess = parts[2].upper()
            if i < 0 or i >= len(self.coded):
                note = f"No coded word {i + 1}; words are 1-{len(self.coded)}."
            elif i in self.solved:
                note = f"Word {i + 1} has been solved already."
            elif guess == self.message[i]:
                self.solved[i] = guess
                for c, p in zip(self.coded[i], guess):
                    self.key[c] = p
                note = f"Correct: word {i + 1} is {guess}. Its letters enter the key."
                if len(self.solved) == len(self.coded):
                    note += " The message is fully decoded. Victory!"
                    reward = 1.0
                    ended = True
            else:
                self.lives -= 1
                note = f"Incorrect: word {i + 1} is not {guess[:20]}. One life lost."
                if self.lives == 0:
                    note += " No lives remain. Defeat."
                    ended = True
        self.over = ended
        cut = not ended and self.t >= self.max_turns
        if cut:
            note += " No turns remain."
            self.over = True
        return self.sheet(note), reward, ended, cut, self.meta()

    def solution(self):
        """Every unsolved word with its plain text."""
        return ["\\boxed{decode %d %s}" % (i + 1, word) for i, word in enumerate(self.message) if i not in self.solved]

    def hint(self):
        """Method only."""
        return ("Begin with the coded word whose length and pattern of repeated letters matches the "
                "fewest vocabulary words; each solved word fixes letters that narrow the rest.")
