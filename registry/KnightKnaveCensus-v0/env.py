"""KnightKnaveCensus: classify islanders by interrogating them (Logical_Deduction)."""

import random

from spadegym.program import extract_boxed, read_difficulty

NAMES = ["Ada", "Bram", "Cleo", "Dov", "Esme", "Finn", "Gus", "Hana", "Ivo", "Juno", "Kai", "Lux"]
PEOPLE = {1: 4, 2: 5, 3: 6, 4: 7, 5: 8}
FREE_STATEMENTS = {1: 1, 2: 1, 3: 2, 4: 2, 5: 2}
SLACK = 2


def find(parent, x):
    """Union-find root of ``x``."""
    while parent[x] != x:
        x = parent[x]
    return x


class KnightKnaveCensusEnv:
    """Knight Knave Census: find out who is a knight and who is a knave by asking questions.

    Knights always tell the truth and knaves always lie. Each turn ask one islander about
    another (\\boxed{ask Ada about Bram}); the answer is 'knight' or 'knave'. You also know how
    the two kinds compare in number. When you are sure, name every knight with
    \\boxed{knights Ada, Cleo} (an empty list is written \\boxed{knights none}). One wrong
    classification loses; you have a limited number of turns.
    """

    max_turns = 12
    skill = "Logical_Deduction"

    def reset(self, seed=None, options=None):
        """Populate a new island from ``seed`` and the difficulty in ``options``."""
        self.rng = random.Random(seed)
        self.difficulty = read_difficulty(options, default=2)
        n = PEOPLE[self.difficulty]
        self.people = self.rng.sample(NAMES, n)
        while True:
            self.knight = {p: self.rng.random() < 0.5 for p in self.people}
            knights = sum(1 for p in self.people if self.knight[p])
            if 2 * knights != n:
                break
        self.count_fact = self.describe_count(knights, n)
        self.statements = []
        for i in range(FREE_STATEMENTS[self.difficulty]):
            a, b = self.rng.sample(self.people, 2)
            self.statements.append((a, b, self.answer(a, b)))
        self.heard = list(self.statements)
        self.limit = self.plan_length() + SLACK
        self.turn = 0
        self.done = False
        return self.render("You arrive on the island."), self.info()

    def describe_count(self, knights, n):
        """The public fact about the numbers of each kind."""
        if self.difficulty <= 2:
            return f"Exactly {knights} of the {n} islanders are knights."
        if knights * 2 > n:
            return "Knights outnumber knaves on this island."
        return "Knaves outnumber knights on this island."

    def answer(self, asker, subject):
        """What ``asker`` says when asked about ``subject``."""
        truth = self.knight[subject]
        said = truth if self.knight[asker] else not truth
        return "knight" if said else "knave"

    def plan(self):
        """Questions that link everyone to one islander, given the free statements."""
        parent = {p: p for p in self.people}
        for a, b, said in self.statements:
            parent[find(parent, a)] = find(parent, b)
        questions = []
        anchor = self.people[0]
        for p in self.people[1:]:
            if find(parent, p) != find(parent, anchor):
                questions.append((anchor, p))
                parent[find(parent, p)] = find(parent, anchor)
        return questions

    def plan_length(self):
        """Turns the reference play needs: its questions and the final answer."""
        return len(self.plan()) + 1

    def info(self):
        """A small JSON-able summary of the state."""
        return {"turn": self.turn, "questions": len(self.heard) - len(self.statements),
                "limit": self.limit, "difficulty": self.difficulty}

    def render(self, result):
        """The observation text: result, what has been heard, actions and progress."""
        lines = [f"Turn {self.turn} of {self.limit}.", result,
                 "Islanders: " + ", ".join(self.people) + ".", self.count_fact,
                 "What you have heard (X on Y: what X said Y is):"]
        for a, b, said in self.heard:
            lines.append(f"  {a} on {b}: {said}")
        lines.append("Actions: \\boxed{ask X about Y}, or finish with \\boxed{knights X, Y, ...} "
                     "(\\boxed{knights none} if there are none).")
        return "\n".join(lines)

    def person(self, word):
        """The islander whose name matches ``word`` (case-insensitive), or None."""
        for p in self.people:
            if p.lower() == word.strip().lower():
                return p
        return None

    def step(self, action):
        """Ask one question or give the final classification."""
        if self.done:
            return "The episode is over; call reset() to play again.", 0.0, True, False, self.info()
        self.turn += 1
        box = extract_boxed(action)
        text = box.strip() if box is not None else ""
        lower = text.lower()
        if box is None:
            result = "No \\boxed{...} answer found; nobody was asked."
        elif lower.startswith("ask"):
            words = text.replace(",", " ").split()
            if len(words) == 4 and words[2].lower() == "about" and self.person(words[1]) and self.person(words[3]):
                a, b = self.person(words[1]), self.person(words[3])
                said = self.answer(a, b)
                self.heard.append((a, b, said))
                result = f"{a} says: '{b} is a {said}.'"
            else:
                result = f"'{text[:40]}' is not 'ask X about Y' with two islanders' names."
        elif lower.startswith("knights"):
            rest = text[len("knights"):].replace(":", " ").replace(",", " ").replace(" and ", " ").split()
            named = [self.person(w) for w in rest if w.lower() != "none"]
            if any(p is None for p in named):
                result = "Name only islanders from the list. Nothing was decided."
            else:
                self.done = True
                truth = sorted(p for p in self.people if self.knight[p])
                if sorted(set(named)) == truth:
                    return self.render("Correct: every islander is classified. Solved!"), 1.0, True, False, self.info()
                return self.render("Wrong classification. The islanders laugh you off the island."), 0.0, True, False, self.info()
        else:
            result = f"'{text[:40]}' is neither a question nor a final answer."
        if self.turn >= self.limit:
            self.done = True
            return self.render(result + " Out of turns."), 0.0, True, False, self.info()
        return self.render(result), 0.0, False, False, self.info()

    def solution(self):
        """Link everyone to one islander with questions, then name the knights."""
        out = ["\\boxed{ask " + a + " about " + b + "}" for a, b in self.plan()]
        knights = [p for p in self.people if self.knight[p]]
        out.append("\\boxed{knights " + (", ".join(knights) if knights else "none") + "}")
        return out

    def hint(self):
        """A nudge about the approach."""
        return ("Whatever X is, X calls Y a knight exactly when X and Y are the same kind. Use "
                "questions to split the islanders into two same-kind groups, then let the "
                "population fact decide which group are the knights.")
