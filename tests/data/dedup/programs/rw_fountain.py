"""Map the hidden plumbing between taps and sprinklers."""

import random

from spadegym.program import extract_boxed

TAPS = {1: 4, 2: 5, 3: 5, 4: 6, 5: 7}
HEADS = {1: 3, 2: 3, 3: 4, 4: 4, 5: 5}


class SprinklerPlumbingEnv:
    """Sprinkler Plumbing: find out which taps supply each sprinkler head.

    Below the lawn each sprinkler head is connected to a secret set of one to three taps. A
    TOGGLE head sprays when an odd number of its taps are open, so flipping any of its taps
    flips it. From difficulty 3 a head may be ALL (spraying only if every one of its taps is
    open) or ANY (spraying if at least one is open), and then flipping a tap may do nothing
    visible. Flip taps and observe the heads, then declare each head's taps. A wrong
    declaration costs a life; declaring every head correctly wins.
    Replies: \\boxed{turn V} flips tap V; \\boxed{pipe J V1 V2 ...} declares that head J is
    supplied by exactly taps V1, V2, ..."""

    skill = "Causal_Inference"
    max_turns = 20

    def sprays(self, head, taps):
        members, rule = self.links[head]
        opened = len([t for t in members if taps[t]])
        if rule == "ALL":
            return opened == len(members)
        if rule == "ANY":
            return opened >= 1
        return opened % 2 == 1

    def head_states(self):
        return [self.sprays(h, self.taps) for h in range(len(self.links))]

    def reset(self, seed=None, options=None):
        """Connect the heads and set the taps."""
        self.rng = random.Random(seed)
        level = 2
        if isinstance(options, dict) and isinstance(options.get("difficulty", 2), int):
            level = max(1, min(5, options.get("difficulty", 2)))
        self.level = level
        self.count = TAPS[level]
        rules = ["TOGGLE", "ALL", "ANY"] if level >= 3 else ["TOGGLE"]
        self.links = []
        while len(self.links) < HEADS[level]:
            size = self.rng.randint(1, min(3, self.count - 1))
            members = sorted(self.rng.sample(range(self.count), size))
            rule = "TOGGLE" if size == 1 else self.rng.choice(rules)
            duplicate = False
            for other, other_rule in self.links:  # noqa: B007
                if other == members:
                    duplicate = True
            if not duplicate:
                self.links.append((members, rule))
        self.taps = [self.rng.randint(0, 1) for k in range(self.count)]
        self.known = set()
        self.lives = 2
        self.events = []
        self.t = 0
        self.over = False
        return self.lawn("The sprinklers are on."), self.meta()

    def meta(self):
        return {"turn": self.t, "solved": len(self.known), "lives": self.lives}

    def lawn(self, note):
        taps = ", ".join(["V" + str(k + 1) + (" open" if v else " closed") for k, v in enumerate(self.taps)])
        heads = ", ".join(["J" + str(h + 1) + (" spraying" if s else " still") for h, s in enumerate(self.head_states())])
        confirmed = []
        for h in sorted(self.known):
            confirmed.append(f"J{h + 1}: " + " ".join(["V" + str(t + 1) for t in self.links[h][0]]))
        rules = "TOGGLE only" if self.level < 3 else "TOGGLE, ALL or ANY"
        return (f"{note}\nTurn {self.t}/{self.max_turns}; lives {self.lives}.\n\n"
                f"Taps: {taps}\nHeads: {heads}\nHead rules on this lawn: {rules}.\n"
                f"Declared correctly: {', '.join(confirmed) or 'none'}\n"
                f"Recent turns: {'; '.join(self.events[-8:]) or 'none'}\n\n"
                "Replies: \\boxed{turn V} (such as \\boxed{turn 2}) or \\boxed{pipe J V1 V2 ...} "
                "(such as \\boxed{pipe 1 2 4}).")

    def step(self, action):
        """Flip a tap or declare a head's taps."""
        if self.over:
            return "Game over.", 0.0, True, False, self.meta()
        self.t += 1
        content = extract_boxed(action) if isinstance(action, str) else None
        tokens = content.upper().replace(",", " ").split() if content else []
        values = []
        for token in tokens[1:]:
            token = token.lstrip("VJ")
            if token.isdigit() and len(token) < 4:
                values.append(int(token))
            else:
                values.append(-1)
        reward = 0.0
        ended = False
        verb = tokens[0] if tokens else ""
        if verb == "TURN" and len(values) == 1:
            tap = values[0] - 1
            if tap < 0 or tap >= self.count:
                note = f"Taps are V1-V{self.count}."
            else:
                before = self.head_states()
                self.taps[tap] = 1 - self.taps[tap]
                after = self.head_states()
                moved = [f"J{h + 1}" for h in range(len(self.links)) if before[h] != after[h]]
                what = ", ".join(moved) or "no jet"
                state = "open" if self.taps[tap] else "closed"
                self.events.append(f"V{tap + 1} {state} changed {what}")
                note = f"V{tap + 1} is now {state}; that changed {what}."
        elif verb == "PIPE" and len(values) > 1:
            head = values[0] - 1
            members = sorted({v - 1 for v in values[1:]})
            if head < 0 or head >= len(self.links):
                note = f"Heads are J1-J{len(self.links)}."
            elif head in self.known:
                note = f"J{head + 1} has already been declared."
            elif min(members) < 0 or max(members) >= self.count:
                note = f"Taps are V1-V{self.count}."
            elif members == self.links[head][0]:
                self.known.add(head)
                note = f"Correct: J{head + 1} is a {self.links[head][1]} head on those taps."
                if len(self.known) == len(self.links):
                    note += " Every head is mapped. Victory!"
                    reward = 1.0
                    ended = True
            else:
                self.lives -= 1
                note = f"Incorrect: J{head + 1} is not supplied that way. One life lost."
                if self.lives == 0:
                    note += " No lives remain. Defeat."
                    ended = True
        else:
            note = "Unreadable reply. Use \\boxed{turn V} or \\boxed{pipe J V1 V2 ...}."
        self.over = ended
        cut = not ended and self.t >= self.max_turns
        if cut:
            note += " No turns remain."
            self.over = True
        return self.lawn(note), reward, ended, cut, self.meta()

    def solution(self):
        """Flip each tap once, then declare every head."""
        replies = ["\\boxed{turn " + str(k + 1) + "}" for k in range(self.count)]
        for head, link in enumerate(self.links):
            if head in self.known:
                continue
            replies.append("\\boxed{pipe " + str(head + 1) + " " + " ".join(str(t + 1) for t in link[0]) + "}")
        return replies

    def hint(self):
        """Method only."""
        return ("Flip one tap at a time and record which heads react. A head that ignores a tap "
                "may still use it: put its other taps at the threshold (all but one open for ALL, "
                "all closed for ANY) and flip it again.")
