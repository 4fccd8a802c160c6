"""ClinicRemedyTrials: learn what each remedy cures and causes, and clear every symptom."""

import random
from collections import deque

from spadegym.program import extract_boxed, read_difficulty

SYMPTOMS = ["cough", "fever", "rash", "nausea", "headache", "chills", "dizziness", "fatigue"]
REMEDIES = ["amberol", "borvex", "citrane", "dulcor", "elvamin", "fennix", "gravotin", "hexalin"]


def apply(state, cures, causes):
    """Symptoms after one dose (all as bit masks): cured ones vanish, then side effects appear."""
    return (state & ~cures) | causes


def count_bits(mask):
    """Number of symptoms in a bit mask."""
    total = 0
    while mask:
        total += mask & 1
        mask >>= 1
    return total


class ClinicRemedyTrialsEnv:
    """Clinic Remedy Trials: cure a patient with remedies whose effects you must discover.

    Each remedy removes certain symptoms (if present) and may cause certain side-effect
    symptoms; nobody has told you which. Give one dose per turn and watch how the symptoms
    change. If the patient ever has too many symptoms at once they must go to hospital and
    you lose; the number of doses is limited too. Clear every symptom to win.
    Action: \\boxed{give REMEDY}."""

    max_turns = 10
    skill = "Causal_Inference"

    def reset(self, seed=None, options=None):
        """Draw remedy effects and a patient whose shortest cure takes several doses."""
        self.rng = random.Random(seed)
        self.difficulty = read_difficulty(options, default=2)
        d = self.difficulty
        k = 5 + d // 3
        m = 4 + d // 2
        need = {1: 3, 2: 3, 3: 4, 4: 4, 5: 5}[d]
        # The patient may never have more symptoms than on arrival.
        self.limit = k - 2
        best = None
        for attempt in range(60):  # noqa: B007 (no leading-underscore names allowed)
            symptoms = self.rng.sample(SYMPTOMS, k)
            remedies = self.rng.sample(REMEDIES, m)
            effects = {}
            for r in remedies:
                cures = self.rng.sample(range(k), self.rng.randint(1, 2))
                rest = [s for s in range(k) if s not in cures]
                causes = self.rng.sample(rest, min(len(rest), self.rng.choice([0, 1, 2, 2])))
                effects[r] = (sum(1 << s for s in cures), sum(1 << s for s in causes))
            self.remedies, self.effects = remedies, effects
            dist = self.distances(k)
            starts = [(v, st) for st, v in sorted(dist.items()) if count_bits(st) == self.limit]
            if starts:
                length, start = max(starts)
                if best is None or length > best[0]:
                    best = (length, symptoms, remedies, effects, start)
                if length >= need:
                    break
        # Keep the hardest instance seen (its cure takes at least two doses).
        length, self.symptoms, self.remedies, self.effects, self.state = best
        # A few doses of slack for learning what the remedies do.
        self.budget = length + 3
        self.doses = 0
        self.log = []
        self.turn = 0
        self.done = False
        return self.render("The patient arrives."), self.info()

    def distances(self, k):
        """Doses needed to reach no symptoms from every safe symptom set (breadth-first search
        backwards from the cured state)."""
        states = [s for s in range(1 << k) if count_bits(s) <= self.limit]
        dist = {0: 0}
        frontier = [0]
        while frontier:
            nxt = []
            for state in states:
                if state in dist:
                    continue
                for r in self.remedies:
                    after = apply(state, *self.effects[r])
                    if after in frontier:
                        dist[state] = dist[after] + 1
                        nxt.append(state)
                        break
            frontier = nxt
        return dist

    def plan(self, start):
        """Shortest safe dose sequence to no symptoms (breadth-first search), or None."""
        prev = {start: None}
        queue = deque([start])
        while queue:
            state = queue.popleft()
            if state == 0:
                path = []
                while prev[state] is not None:
                    state, r = prev[state]
                    path.append(r)
                return path[::-1]
            for r in self.remedies:
                nxt = apply(state, *self.effects[r])
                if count_bits(nxt) <= self.limit and nxt not in prev:
                    prev[nxt] = (state, r)
                    queue.append(nxt)
        return None

    def info(self):
        """Small JSON info for logs."""
        return {"turn": self.turn, "symptoms": count_bits(self.state)}

    def render(self, message):
        """The observation: progress, last result, state and actions."""
        now = ", ".join(s for i, s in enumerate(self.symptoms) if self.state >> i & 1) or "none"
        log = "\n".join("  " + line for line in self.log[-10:]) or "  (none)"
        return (
            f"Turn {self.turn} of {self.max_turns}.\n{message}\n\n"
            f"Current symptoms: {now}\nPossible symptoms: {', '.join(self.symptoms)}\n"
            f"Hospital if the patient has more than {self.limit} symptoms at once. "
            f"Doses given {self.doses} of at most {self.budget}.\n"
            f"Remedies: {', '.join(self.remedies)}\nTreatment log:\n{log}\n\n"
            "Action: \\boxed{give REMEDY}, e.g. \\boxed{give " + self.remedies[0] + "}."
        )

    def step(self, action):
        """Give one dose."""
        if self.done:
            return "The episode is over.", 0.0, True, False, self.info()
        self.turn += 1
        text = extract_boxed(action) if isinstance(action, str) else None
        words = text.lower().split() if text else []
        reward, terminated = 0.0, False
        if len(words) == 2 and words[0] == "give" and words[1] in self.remedies:
            before = self.state
            self.state = apply(before, *self.effects[words[1]])
            gone = [
                s
                for i, s in enumerate(self.symptoms)
                if before >> i & 1 and not self.state >> i & 1
            ]
            new = [
                s
                for i, s in enumerate(self.symptoms)
                if self.state >> i & 1 and not before >> i & 1
            ]
            change = f"gone: {', '.join(gone) or 'none'}; new: {', '.join(new) or 'none'}"
            self.log.append(f"{words[1]} -> {change}")
            self.doses += 1
            message = f"Gave {words[1]} ({change})."
            if self.state == 0:
                message += " The patient is symptom-free. You win!"
                reward, terminated = 1.0, True
            elif count_bits(self.state) > self.limit:
                message += " Too many symptoms at once: the patient goes to hospital. You lose."
                terminated = True
            elif self.doses >= self.budget:
                message += " That was the last dose the patient can take. You lose."
                terminated = True
        else:
            message = f"Could not read the action. Write \\boxed{{give REMEDY}} with one of: {', '.join(self.remedies)}."
        self.done = terminated
        truncated = not terminated and self.turn >= self.max_turns
        if truncated:
            message += " Out of turns."
            self.done = True
        return self.render(message), reward, terminated, truncated, self.info()

    def solution(self):
        """The shortest safe cure, found by breadth-first search over symptom sets."""
        return [f"\\boxed{{give {r}}}" for r in (self.plan(self.state) or [])]

    def hint(self):
        """A nudge toward the method."""
        return (
            "A remedy only shows that it cures a symptom when that symptom is present, so "
            "keep a table of what each dose removed and added, and order doses so each one "
            "clears the side effects of the previous."
        )
