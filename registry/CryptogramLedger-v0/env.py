"""CryptogramLedger: break a letter-substitution cipher word by word using word shapes."""

import random
import string

from spadegym.program import extract_boxed, read_difficulty

WORDS = (
    "APPLE BANANA CHERRY LEMON MANGO PEACH GRAPE MELON BERRY OLIVE "
    "RIVER OCEAN STORM CLOUD THUNDER BREEZE WINTER SUMMER AUTUMN SPRING "
    "CASTLE BRIDGE TOWER GARDEN FOREST VALLEY CANYON DESERT ISLAND HARBOR "
    "PENCIL LETTER PAPER MARKET SILVER COPPER MIRROR BOTTLE KETTLE BASKET "
    "RABBIT KITTEN PUPPY TIGER ZEBRA HORSE MOOSE SHEEP LLAMA PARROT "
    "BALLOON COFFEE CANDLE WAGON ANCHOR SADDLE PEPPER COOKIE RIBBON BUTTON "
    "PLANET COMET ORBIT GALAXY ROCKET METEOR SHADOW SIGNAL PUZZLE JIGSAW "
    "NUMBER SQUARE CIRCLE LADDER HAMMER TUNNEL GOBLIN WIZARD DRAGON KNIGHT"
).split()
LETTERS = string.ascii_uppercase


def count_decodings(cipher_words, dictionary, limit):
    """Count (up to `limit`) ways to read every cipher word as a dictionary word under one
    consistent one-to-one letter substitution."""
    found = [0]

    def extend(i, forward, backward):
        if found[0] >= limit:
            return
        if i == len(cipher_words):
            found[0] += 1
            return
        cw = cipher_words[i]
        for word in dictionary:
            if len(word) != len(cw):
                continue
            f, b = dict(forward), dict(backward)
            ok = True
            for c, p in zip(cw, word):
                if f.get(c, p) != p or b.get(p, c) != c:
                    ok = False
                    break
                f[c] = p
                b[p] = c
            if ok:
                extend(i + 1, f, b)

    extend(0, {}, {})
    return found[0]


class CryptogramLedgerEnv:
    """Cryptogram Ledger: decode a substitution-ciphered message one word at a time.

    Every letter of the message was replaced by another letter (the same replacement
    everywhere, two letters never share a replacement). All plain words come from the word
    list shown. Decode the cipher words one by one; a right decoding adds its letters to the
    key table. A wrong decoding costs a life. Decode every word to win.
    Action: \\boxed{decode I WORD}, meaning cipher word number I reads as WORD."""

    max_turns = 12
    skill = "Pattern_Recognition"

    def reset(self, seed=None, options=None):
        """Draw a message with a unique decoding and a random cipher."""
        self.rng = random.Random(seed)
        self.difficulty = read_difficulty(options, default=2)
        count = self.difficulty + 2
        list_size = 12 + 4 * self.difficulty
        for attempt in range(60):  # noqa: B007 (no leading-underscore names allowed)
            self.dictionary = sorted(self.rng.sample(WORDS, list_size))
            self.plain = self.rng.sample(self.dictionary, count)
            shuffled = list(LETTERS)
            self.rng.shuffle(shuffled)
            self.key = dict(zip(LETTERS, shuffled))
            self.cipher = ["".join(self.key[c] for c in w) for w in self.plain]
            if count_decodings(self.cipher, self.dictionary, 2) == 1:
                break
        self.decoded = {}
        self.known = {}
        self.lives = 2
        self.turn = 0
        self.done = False
        return self.render(
            "A fresh cryptogram. Match word shapes against the word list."
        ), self.info()

    def info(self):
        """Small JSON info for logs."""
        return {"turn": self.turn, "decoded": len(self.decoded), "lives": self.lives}

    def render(self, message):
        """The observation: progress, last result, state and actions."""
        rows = []
        for i, cw in enumerate(self.cipher):
            partial = "".join(self.known.get(c, ".") for c in cw)
            status = f"= {self.decoded[i]}" if i in self.decoded else f"partial {partial}"
            rows.append(f"  {i + 1}. {cw}  {status}")
        table = " ".join(f"{c}->{p}" for c, p in sorted(self.known.items())) or "(empty)"
        return (
            f"Turn {self.turn} of {self.max_turns}. Words decoded {len(self.decoded)} of "
            f"{len(self.cipher)}; lives {self.lives}.\n{message}\n\n"
            "Cipher words:\n" + "\n".join(rows) + "\n"
            f"Key table (cipher->plain): {table}\n"
            f"Word list: {' '.join(self.dictionary)}\n\n"
            "Action: \\boxed{decode I WORD}, e.g. \\boxed{decode 1 APPLE}."
        )

    def step(self, action):
        """Try one decoding."""
        if self.done:
            return "The episode is over.", 0.0, True, False, self.info()
        self.turn += 1
        text = extract_boxed(action) if isinstance(action, str) else None
        words = text.split() if text else []
        reward, terminated = 0.0, False
        if (
            len(words) == 3
            and words[0].lower() == "decode"
            and words[1].isdigit()
            and len(words[1]) < 4
        ):
            index = int(words[1]) - 1
            guess = words[2].upper()
            if index < 0 or index >= len(self.cipher):
                message = f"There is no cipher word {index + 1}; words are 1-{len(self.cipher)}."
            elif index in self.decoded:
                message = f"Word {index + 1} is already decoded."
            elif guess != self.plain[index]:
                self.lives -= 1
                message = f"Wrong: word {index + 1} is not {guess[:20]}. You lose a life."
                if self.lives <= 0:
                    message += " No lives left. You lose."
                    terminated = True
            else:
                self.decoded[index] = guess
                for c, p in zip(self.cipher[index], guess):
                    self.known[c] = p
                message = f"Right: word {index + 1} is {guess}. Its letters join the key table."
                if len(self.decoded) == len(self.cipher):
                    message += " The whole message is decoded. You win!"
                    reward, terminated = 1.0, True
        else:
            message = "Could not read the action. Write \\boxed{decode I WORD}, e.g. \\boxed{decode 2 RIVER}."
        self.done = terminated
        truncated = not terminated and self.turn >= self.max_turns
        if truncated:
            message += " Out of turns."
            self.done = True
        return self.render(message), reward, terminated, truncated, self.info()

    def solution(self):
        """Decode every word with the hidden plain text."""
        return [
            f"\\boxed{{decode {i + 1} {w}}}"
            for i, w in enumerate(self.plain)
            if i not in self.decoded
        ]

    def hint(self):
        """A nudge toward the method."""
        return (
            "Start with the cipher word whose length and pattern of repeated letters fits the "
            "fewest listed words; each solved word fixes letters that narrow the others."
        )
