import random
import re

from spadegym.program import extract_boxed, read_difficulty


class NextInLineEnv:
    """Next In Line: continue a number sequence, choosing from a few candidates.

    The game shows the first terms of a sequence built by one simple rule and a few
    candidates for the next term. Answer with the next term in \\boxed{N}; a reply without a
    box counts when it names exactly one of the candidates. A right first answer scores 1.0; after a wrong one you get a second try worth 0.5. Difficulty 1 counts up or
    down by a fixed step; higher difficulty adds doubling, alternating steps and growing steps,
    shows fewer terms and offers more candidates."""

    max_turns = 2
    skill = "Pattern_Recognition"

    def reset(self, seed=None, options=None):
        self.rng = random.Random(seed)
        difficulty = read_difficulty(options, default=1)
        rules = ["add", "subtract", "double", "alternate", "grow"][: 1 + difficulty]
        self.rule = self.rng.choice(rules)
        shown = 5 if difficulty <= 2 else 4
        start = self.rng.randint(1, 5 + 5 * difficulty)
        step = self.rng.randint(2, 3 + 2 * difficulty)
        other = self.rng.randint(1, step)
        terms = [start if self.rule != "subtract" else start + step * (shown + 2)]
        while len(terms) < shown + 1:
            k = len(terms)
            last = terms[-1]
            if self.rule == "add":
                terms.append(last + step)
            elif self.rule == "subtract":
                terms.append(last - step)
            elif self.rule == "double":
                terms.append(last * 2)
            elif self.rule == "alternate":
                terms.append(last + (step if k % 2 else other))
            else:
                terms.append(last + k)
        self.terms = terms[:shown]
        self.answer = terms[shown]
        count = 3 + difficulty // 2
        wrong = set()
        while len(wrong) < count - 1:
            offset = self.rng.choice([-step, -1, 1, 2, step, self.rng.randint(-9, 9)])
            if offset != 0 and self.answer + offset not in self.terms:
                wrong.add(self.answer + offset)
        self.choices = sorted(wrong | {self.answer})
        self.rng.shuffle(self.choices)
        self.tries = 0
        self.done = False
        return self.question(), {}

    def question(self):
        shown = ", ".join(str(t) for t in self.terms)
        listed = ", ".join(str(c) for c in self.choices)
        return (
            f"What comes next: {shown}, ...? Candidates: {listed}. "
            "Answer with the next term in \\boxed{N}."
        )

    def step(self, action):
        if self.done:
            return "The round is over.", 0.0, True, False, {}
        self.tries += 1
        value = self.read_answer(action)
        if value == self.answer:
            self.done = True
            score = 1.0 if self.tries == 1 else 0.5
            return f"Right: the next term is {self.answer}.", score, True, False, {}
        if value is None:
            note = "Name one of the candidates, best in \\boxed{N}."
        elif value not in self.choices:
            note = f"{value} is not one of the candidates."
        else:
            note = f"No, {value} does not come next."
        if self.tries >= 2:
            self.done = True
            return f"{note} It was {self.answer}.", 0.0, True, False, {}
        return f"{note} One more try. " + self.question(), 0.0, False, False, {}

    def read_answer(self, action):
        """The boxed number, else the one choice the reply names; None if none or several."""
        boxed = extract_boxed(action)
        if boxed is not None:
            text = boxed.strip().rstrip(".").replace(",", "")
            return int(text) if re.fullmatch(r"-?[0-9]{1,9}", text) else None
        numbers = re.findall(r"(?<![0-9])-?[0-9]{1,9}(?![0-9])", action)
        named = {int(n) for n in numbers if int(n) in self.choices}
        return named.pop() if len(named) == 1 else None

    def solution(self):
        return ["\\boxed{" + str(self.answer) + "}"]

    def hint(self):
        return "Look at the difference between each term and the one before it."
