"""Truth-tellers and liars: sort the villagers by asking about each other."""

import random

from spadegym.program import extract_boxed

VILLAGERS = ["Ada", "Bram", "Cleo", "Dov", "Esme", "Finn", "Gus", "Hana", "Ivo", "Juno", "Kai", "Lux"]
HEADCOUNT = [4, 5, 6, 7, 8]
RUMOURS = [1, 1, 2, 2, 2]


class HonestLiarVillageEnv:
    """Honest Liar Village: tell the honest villagers from the liars by questioning them.

    Honest villagers always speak the truth and liars never do. On a turn you ask a villager
    about another one (\\boxed{ask Ada about Bram}) and hear 'knight' (honest) or 'knave'
    (liar). You are also told how the two groups compare in size. Once sure, list every honest
    villager with \\boxed{knights Ada, Cleo} (\\boxed{knights none} for nobody). Any mistake
    loses, and the number of turns is limited.
    """

    skill = "Logical_Deduction"
    max_turns = 12

    def hint(self):
        """Approach."""
        return ("A villager calls another honest exactly when both are of the same kind. Ask "
                "questions until everyone falls into two same-kind groups, then use the group "
                "sizes to tell which group is honest.")

    def reset(self, seed=None, options=None):
        """Populate the village."""
        self.rng = random.Random(seed)
        level = 2
        if isinstance(options, dict):
            raw = options.get("difficulty", 2)
            if isinstance(raw, (int, float)) and not isinstance(raw, bool):
                level = max(1, min(5, int(raw)))
        self.level = level
        size = HEADCOUNT[level - 1]
        self.folk = self.rng.sample(VILLAGERS, size)
        honest_count = 0
        balanced = True
        while balanced:
            self.honest = {}
            for person in self.folk:
                self.honest[person] = self.rng.random() < 0.5
            honest_count = len([p for p in self.folk if self.honest[p]])
            balanced = honest_count * 2 == size
        if level <= 2:
            self.census = f"Precisely {honest_count} of the {size} villagers are honest."
        elif honest_count * 2 > size:
            self.census = "There are more honest villagers than liars."
        else:
            self.census = "There are more liars than honest villagers."
        self.rumours = []
        for k in range(RUMOURS[level - 1]):  # noqa: B007
            speaker, subject = self.rng.sample(self.folk, 2)
            self.rumours.append((speaker, subject, self.reply(speaker, subject)))
        self.heard = self.rumours[:]
        self.budget = len(self.questions()) + 3
        self.t = 0
        self.closed = False
        return self.page("You reach the village."), self.meta()

    def reply(self, speaker, subject):
        claim = self.honest[subject]
        if not self.honest[speaker]:
            claim = not claim
        return "knight" if claim else "knave"

    def questions(self):
        """A spanning set of questions joining every villager to the first one."""
        group = {}
        for p in self.folk:
            group[p] = p

        def root(x):
            while group[x] != x:
                x = group[x]
            return x

        for speaker, subject, said in self.rumours:
            group[root(speaker)] = root(subject)
        first = self.folk[0]
        asked = []
        for p in self.folk[1:]:
            if root(p) == root(first):
                continue
            asked.append((first, p))
            group[root(p)] = root(first)
        return asked

    def solution(self):
        """Join everyone to the first villager, then list the honest ones."""
        replies = [f"\\boxed{{ask {a} about {b}}}" for a, b in self.questions()]
        honest = [p for p in self.folk if self.honest[p]]
        replies.append("\\boxed{knights " + (", ".join(honest) or "none") + "}")
        return replies

    def meta(self):
        return {"turn": self.t, "questions": len(self.heard) - len(self.rumours), "limit": self.budget,
                "difficulty": self.level}

    def lookup(self, word):
        for p in self.folk:
            if word.strip().lower() == p.lower():
                return p
        return None

    def page(self, note):
        rows = [note, f"{self.budget - self.t} turn(s) left.",
                "Villagers: " + ", ".join(self.folk) + ".", self.census,
                "Statements heard (X on Y: what X claimed Y is):"]
        rows += [f"  {a} on {b}: {said}" for a, b, said in self.heard]
        rows.append("Replies: \\boxed{ask X about Y}, or end with \\boxed{knights X, Y, ...} "
                    "(\\boxed{knights none} for nobody).")
        return "\n".join(rows)

    def step(self, action):
        """Ask a question or give the verdict."""
        if self.closed:
            return "Game over; reset to play again.", 0.0, True, False, self.meta()
        self.t += 1
        box = extract_boxed(action)
        body = "" if box is None else box.strip()
        if box is None:
            note = "No \\boxed{...} reply; you asked nobody."
        elif body.lower().startswith("knights"):
            words = body[7:].replace(":", " ").replace(",", " ").replace(" and ", " ").split()
            named = [self.lookup(w) for w in words if w.lower() != "none"]
            if None in named:
                note = "Only villagers from the list may be named. No verdict recorded."
            else:
                self.closed = True
                if sorted(set(named)) == sorted(p for p in self.folk if self.honest[p]):
                    return self.page("Every villager is sorted correctly. Well reasoned!"), 1.0, True, False, self.meta()
                return self.page("That sorting is wrong. The village sends you away."), 0.0, True, False, self.meta()
        elif body.lower().startswith("ask"):
            words = body.replace(",", " ").split()
            ok = len(words) == 4 and words[2].lower() == "about"
            speaker = self.lookup(words[1]) if ok else None
            subject = self.lookup(words[3]) if ok else None
            if speaker and subject:
                said = self.reply(speaker, subject)
                self.heard.append((speaker, subject, said))
                note = f"{speaker} claims: '{subject} is a {said}.'"
            else:
                note = f"'{body[:40]}' should be 'ask X about Y' with two villagers."
        else:
            note = f"'{body[:40]}' is not a question and not a verdict."
        if self.t >= self.budget:
            self.closed = True
            return self.page(note + " No turns remain."), 0.0, True, False, self.meta()
        return self.page(note), 0.0, False, False, self.meta()
