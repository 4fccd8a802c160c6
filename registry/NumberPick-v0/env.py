import random
import re

from spadegym.program import extract_boxed, read_difficulty


class NumberPickEnv:
    """Number Pick: choose the largest or the smallest number of a short list.

    The game shows a few whole numbers and asks for the largest or the smallest of them.
    Answer with the number itself in \\boxed{N}; a reply without a box counts when it names
    exactly one of the listed numbers. A right first answer scores 1.0; after a wrong one you
    get a second try worth 0.5. Higher difficulty lists more numbers, with more
    digits, closer together and, from difficulty 4, negative ones."""

    max_turns = 2
    skill = "Mathematical_Reasoning"

    def reset(self, seed=None, options=None):
        self.rng = random.Random(seed)
        difficulty = read_difficulty(options, default=1)
        count = 2 + difficulty
        top = 10 ** min(difficulty + 1, 4)
        low = -top if difficulty >= 4 else 1
        self.numbers = self.rng.sample(range(low, top), count)
        if difficulty >= 3:
            base = self.numbers[0]
            spread = max(count * 2, top // 20)
            self.numbers = self.rng.sample(range(base - spread, base + spread), count)
        self.want = self.rng.choice(["largest", "smallest"])
        pick = max if self.want == "largest" else min
        self.answer = pick(self.numbers)
        self.tries = 0
        self.done = False
        return self.question(), {}

    def question(self):
        listed = ", ".join(str(n) for n in self.numbers)
        return f"Which number is the {self.want}: {listed}? Answer with it in \\boxed{{N}}."

    def step(self, action):
        if self.done:
            return "The round is over.", 0.0, True, False, {}
        self.tries += 1
        last = self.tries >= 2
        value = self.read_answer(action)
        if value == self.answer:
            self.done = True
            score = 1.0 if self.tries == 1 else 0.5
            return f"Right: {self.answer} is the {self.want}.", score, True, False, {}
        if value is None:
            note = "Name one of the numbers, best in \\boxed{N}."
        elif value not in self.numbers:
            note = f"{value} is not in the list."
        else:
            note = f"No, {value} is not the {self.want}."
        if last:
            self.done = True
            return f"{note} The answer was {self.answer}.", 0.0, True, False, {}
        return f"{note} One more try. " + self.question(), 0.0, False, False, {}

    def read_answer(self, action):
        """The boxed number, else the one choice the reply names; None if none or several."""
        boxed = extract_boxed(action)
        if boxed is not None:
            text = boxed.strip().rstrip(".").replace(",", "")
            return int(text) if re.fullmatch(r"-?[0-9]{1,9}", text) else None
        numbers = re.findall(r"(?<![0-9])-?[0-9]{1,9}(?![0-9])", action)
        named = {int(n) for n in numbers if int(n) in self.numbers}
        return named.pop() if len(named) == 1 else None

    def solution(self):
        return ["\\boxed{" + str(self.answer) + "}"]

    def hint(self):
        return f"Compare the numbers two at a time and keep the {self.want} so far."
