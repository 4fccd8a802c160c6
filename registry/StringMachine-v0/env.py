"""StringMachine: find a hidden pipeline of string operations by feeding it words."""

import random
import string

from spadegym.program import extract_boxed, read_difficulty

LETTERS = string.ascii_uppercase


def apply_op(op, word):
    """Apply one operation (name, parameter) to an uppercase word."""
    name, k = op
    if not word:
        return word
    if name == "reverse":
        return word[::-1]
    if name == "rotate":
        k = k % len(word)
        return word[k:] + word[:k]
    if name == "caesar":
        return "".join(LETTERS[(LETTERS.index(c) + k) % 26] for c in word)
    if name == "swap":
        chars = list(word)
        for i in range(0, len(chars) - 1, 2):
            chars[i], chars[i + 1] = chars[i + 1], chars[i]
        return "".join(chars)
    if name == "echo":
        return word + word[-1]
    if name == "drop":
        return word[1:] if len(word) > 1 else word
    if name == "sort":
        return "".join(sorted(word))
    return word


def run_pipeline(ops, word):
    """Feed a word through every operation in order."""
    for op in ops:
        word = apply_op(op, word)
    return word


class StringMachineEnv:
    """String Machine: learn what a hidden word machine does, then predict its outputs.

    A machine applies a hidden, fixed sequence of operations to any word of capital letters
    (operations such as reversing, rotating, shifting letters in the alphabet, swapping
    neighbours, repeating or dropping letters). Feed it words to watch what it does, then
    predict its output for each test word. A wrong prediction ends the game; predicting all
    test words right wins.
    Actions (one per turn): \\boxed{feed WORD} with 1-10 capital letters (not a test word);
    \\boxed{answer I OUTPUT} predicts the output for test word number I."""

    max_turns = 12
    skill = "Pattern_Recognition"

    def reset(self, seed=None, options=None):
        """Build a hidden pipeline and test words from the seed and difficulty."""
        self.rng = random.Random(seed)
        self.difficulty = read_difficulty(options, default=2)
        depth = {1: 1, 2: 2, 3: 2, 4: 3, 5: 3}[self.difficulty]
        names = ["reverse", "rotate", "caesar", "swap"]
        if self.difficulty >= 3:
            names += ["echo", "drop"]
        if self.difficulty >= 5:
            names.append("sort")
        self.ops = []
        while len(self.ops) < depth:
            name = self.rng.choice(names)
            if self.ops and self.ops[-1][0] == name:
                continue
            param = self.rng.randint(1, 3) if name == "rotate" else self.rng.randint(1, 7)
            self.ops.append((name, param))
        count = 2 if self.difficulty <= 2 else 3
        self.tests = []
        while len(self.tests) < count:
            word = "".join(self.rng.choice(LETTERS) for k in range(self.rng.randint(5, 8)))
            if word not in self.tests and word != run_pipeline(self.ops, word):
                self.tests.append(word)
        self.answered = {}
        self.log = []
        self.turn = 0
        self.done = False
        return self.render("The machine hums. Feed it words to learn what it does."), self.info()

    def info(self):
        """Small JSON info for logs."""
        return {"turn": self.turn, "answered": len(self.answered)}

    def render(self, message):
        """The observation: progress, last result, state and actions."""
        fed = "\n".join(f"  {a} -> {b}" for a, b in self.log[-12:]) or "  (nothing fed yet)"
        tests = "\n".join(
            f"  Test {i + 1}: {w} -> " + (self.answered[i] if i in self.answered else "?")
            for i, w in enumerate(self.tests)
        )
        return (
            f"Turn {self.turn} of {self.max_turns}.\n{message}\n\n"
            f"Words fed so far:\n{fed}\nTest words:\n{tests}\n\n"
            "Actions: \\boxed{feed WORD} (1-10 capital letters, not a test word) or "
            "\\boxed{answer I OUTPUT} to predict the output for test I. "
            "One wrong prediction ends the game."
        )

    def step(self, action):
        """Feed a word or predict a test output."""
        if self.done:
            return "The episode is over.", 0.0, True, False, self.info()
        self.turn += 1
        text = extract_boxed(action) if isinstance(action, str) else None
        words = text.split() if text else []
        reward, terminated = 0.0, False
        verb = words[0].lower() if words else ""
        if verb == "feed" and len(words) == 2:
            word = words[1].upper()
            if not (1 <= len(word) <= 10 and all(c in LETTERS for c in word)):
                message = f"'{word[:20]}' is not 1-10 letters A-Z; feed another word."
            elif word in self.tests:
                message = f"{word} is a test word and cannot be fed; predict it instead."
            else:
                out = run_pipeline(self.ops, word)
                self.log.append((word, out))
                message = f"The machine turns {word} into {out}."
        elif verb == "answer" and len(words) == 3 and words[1].isdigit() and len(words[1]) < 4:
            index = int(words[1]) - 1
            guess = words[2].upper()
            if index < 0 or index >= len(self.tests):
                message = f"There is no test {index + 1}; tests are 1-{len(self.tests)}."
            elif index in self.answered:
                message = f"Test {index + 1} is already answered."
            elif guess != run_pipeline(self.ops, self.tests[index]):
                message = f"Wrong: the machine does not turn {self.tests[index]} into {guess[:20]}. You lose."
                terminated = True
            else:
                self.answered[index] = guess
                message = f"Correct: {self.tests[index]} -> {guess}."
                if len(self.answered) == len(self.tests):
                    message += " Every test predicted. You win!"
                    reward, terminated = 1.0, True
        else:
            message = (
                "Could not read the action. Use \\boxed{feed WORD} or \\boxed{answer I OUTPUT}, "
                "for example \\boxed{feed ABCDE} or \\boxed{answer 1 XYZ}."
            )
        self.done = terminated
        truncated = not terminated and self.turn >= self.max_turns
        if truncated:
            message += " Out of turns."
            self.done = True
        return self.render(message), reward, terminated, truncated, self.info()

    def solution(self):
        """Feed two revealing probe words, then predict every test from the hidden pipeline."""
        moves = []
        for probe in ("ABCDEFG", "AZBYC"):
            if probe not in self.tests:
                moves.append(f"\\boxed{{feed {probe}}}")
        for i, word in enumerate(self.tests):
            moves.append(f"\\boxed{{answer {i + 1} {run_pipeline(self.ops, word)}}}")
        return moves

    def hint(self):
        """A nudge toward the method."""
        return (
            "Feed words with distinct letters in alphabetical order, so each output letter shows "
            "both where it moved and how far it shifted; vary the length to spot rotations."
        )
