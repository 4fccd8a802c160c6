import random
import re

from spadegym.program import extract_boxed, read_difficulty


class SumChoiceEnv:
    """Sum Choice: work out a small sum and pick it from the choices.

    The game asks for the value of a short expression and lists a few choices, one of them
    right. Answer with the value in \\boxed{N}; a reply without a box counts when it names
    exactly one of the choices. A right first answer scores 1.0; after a wrong one you get a
    second try worth 0.5. Higher difficulty uses bigger numbers, more terms,
    subtraction and multiplication, and more choices."""

    max_turns = 2
    skill = "Mathematical_Reasoning"

    def reset(self, seed=None, options=None):
        self.rng = random.Random(seed)
        difficulty = read_difficulty(options, default=1)
        top = (10, 20, 50, 100, 200)[difficulty - 1]
        terms = 2 if difficulty < 3 else 3
        numbers = [self.rng.randint(1, top) for _ in range(terms)]
        signs = ["+"]
        for _ in range(terms - 2):
            signs.append(self.rng.choice(["+", "-"]))
        if difficulty >= 4:
            signs[0] = "*"
            numbers[1] = self.rng.randint(2, 9)
        self.text = str(numbers[0])
        value = numbers[0]
        for sign, number in zip(signs, numbers[1:]):
            self.text += f" {sign} {number}"
        value = numbers[0] * numbers[1] if signs[0] == "*" else numbers[0] + numbers[1]
        for sign, number in zip(signs[1:], numbers[2:]):
            value = value + number if sign == "+" else value - number
        self.answer = value
        count = 3 + (difficulty + 1) // 2
        wrong = set()
        while len(wrong) < count - 1:
            offset = self.rng.choice([-10, -2, -1, 1, 2, 10, self.rng.randint(-20, 20)])
            if offset != 0 and value + offset not in numbers:
                wrong.add(value + offset)
        self.choices = sorted(wrong | {value})
        self.rng.shuffle(self.choices)
        self.tries = 0
        self.done = False
        return self.question(), {}

    def question(self):
        listed = ", ".join(str(c) for c in self.choices)
        return f"What is {self.text}? Choices: {listed}. Answer with the value in \\boxed{{N}}."

    def step(self, action):
        if self.done:
            return "The round is over.", 0.0, True, False, {}
        self.tries += 1
        value = self.read_answer(action)
        if value == self.answer:
            self.done = True
            score = 1.0 if self.tries == 1 else 0.5
            return f"Right: {self.text} = {self.answer}.", score, True, False, {}
        if value is None:
            note = "Name one of the choices, best in \\boxed{N}."
        elif value not in self.choices:
            note = f"{value} is not one of the choices."
        else:
            note = f"No, {self.text} is not {value}."
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
        return "Work the expression left to right, then check the last digit of each choice."
