import random
import re

from spadegym.program import extract_boxed, read_difficulty

CATEGORIES = {
    "fruit": ["apricot", "banana", "cherry", "grape", "lemon", "mango", "peach", "pear", "plum"],
    "animal": ["cat", "dog", "horse", "lion", "mouse", "rabbit", "sheep", "tiger", "zebra"],
    "colour": ["red", "grey", "green", "yellow", "purple", "orange", "pink", "brown", "black"],
    "vehicle": ["car", "bus", "train", "truck", "bicycle", "boat", "plane", "tractor", "van"],
    "body part": ["arm", "leg", "hand", "foot", "nose", "ear", "knee", "elbow", "finger"],
    "tool": ["hammer", "saw", "drill", "wrench", "shovel", "chisel", "pliers", "rake", "axe"],
    "instrument": ["piano", "guitar", "violin", "drum", "flute", "trumpet", "harp", "cello"],
    "weather": ["rain", "snow", "wind", "fog", "hail", "storm", "thunder", "sleet", "frost"],
}
CLOSE_PAIRS = [("fruit", "colour"), ("animal", "body part"), ("tool", "instrument"),
               ("vehicle", "tool"), ("weather", "colour")]


class OddWordOutEnv:
    """Odd Word Out: find the one word that does not belong with the others.

    All the listed words but one name things of the same kind; the odd one names something
    else. Answer with the odd word in \\boxed{word}; a reply without a box counts when it
    names exactly one of the listed words. A right first answer scores 1.0; after a wrong one
    you get a second try worth 0.5. Difficulty 1 lists three words; higher difficulty lists
    more and, from difficulty 4, draws the odd one from a kind close to the others'."""

    max_turns = 2
    skill = "Pattern_Recognition"

    def reset(self, seed=None, options=None):
        self.rng = random.Random(seed)
        difficulty = read_difficulty(options, default=1)
        size = 2 + difficulty
        if difficulty >= 4:
            group, odd_kind = self.rng.choice(CLOSE_PAIRS)
            if self.rng.random() < 0.5:
                group, odd_kind = odd_kind, group
        else:
            group, odd_kind = self.rng.sample(sorted(CATEGORIES), 2)
        odd_words = [w for w in CATEGORIES[odd_kind] if w not in CATEGORIES[group]]
        self.group = group
        self.answer = self.rng.choice(odd_words)
        self.words = self.rng.sample(CATEGORIES[group], size - 1)
        self.words.insert(self.rng.randrange(size), self.answer)
        self.tries = 0
        self.done = False
        return self.question(), {}

    def question(self):
        listed = ", ".join(self.words)
        return (
            f"Which word does not belong with the others? {listed}. "
            "Answer with that word in \\boxed{word}."
        )

    def step(self, action):
        if self.done:
            return "The round is over.", 0.0, True, False, {}
        self.tries += 1
        guess = self.read_answer(action)
        if guess == self.answer:
            self.done = True
            score = 1.0 if self.tries == 1 else 0.5
            return f"Right: {self.answer} is the odd one out.", score, True, False, {}
        if guess is None:
            note = "Name one of the words, best in \\boxed{word}."
        elif guess not in self.words:
            note = f"'{guess[:40]}' is not one of the words."
        else:
            note = f"No, {guess} belongs with the others."
        if self.tries >= 2:
            self.done = True
            return f"{note} The odd word was {self.answer}.", 0.0, True, False, {}
        return f"{note} One more try. " + self.question(), 0.0, False, False, {}

    def read_answer(self, action):
        """The boxed word, else the one listed word the reply names; None if none or several."""
        boxed = extract_boxed(action)
        if boxed is not None:
            return boxed.strip().strip(".").lower()
        named = {word for word in re.findall(r"[a-z]+", action.lower()) if word in self.words}
        return named.pop() if len(named) == 1 else None

    def solution(self):
        return ["\\boxed{" + self.answer + "}"]

    def hint(self):
        return f"Most of the words name a kind of {self.group}; look for the one that does not."
