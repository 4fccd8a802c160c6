"""FountainValveLab: work out which valves feed which fountain jets by turning them."""

import random

from spadegym.program import extract_boxed, read_difficulty


class FountainValveLabEnv:
    """Fountain Valve Lab: discover which valves feed each fountain jet.

    Under the plaza every jet is piped to a hidden set of valves (one to three). A TOGGLE
    jet sprays when an odd number of its valves are open, so turning any of them flips it.
    From difficulty 3 some jets are ALL jets (spraying only when all their valves are open)
    or ANY jets (spraying when at least one is open), so turning a valve may change nothing.
    Turn valves and watch the jets, then state each jet's piping. A wrong piping costs a
    life; piping every jet correctly wins.
    Actions: \\boxed{turn V} opens or closes valve V; \\boxed{pipe J V1 V2 ...} states that
    jet J is fed by exactly valves V1, V2, ..."""

    max_turns = 20
    skill = "Causal_Inference"

    def reset(self, seed=None, options=None):
        """Pipe the fountain and set random valve positions."""
        self.rng = random.Random(seed)
        self.difficulty = read_difficulty(options, default=2)
        d = self.difficulty
        self.n = {1: 4, 2: 5, 3: 5, 4: 6, 5: 7}[d]
        jets = {1: 3, 2: 3, 3: 4, 4: 4, 5: 5}[d]
        kinds = ["TOGGLE"] if d <= 2 else ["TOGGLE", "ALL", "ANY"]
        self.piping = []
        while len(self.piping) < jets:
            size = self.rng.randint(1, min(3, self.n - 1))
            group = sorted(self.rng.sample(range(self.n), size))
            kind = self.rng.choice(kinds) if size > 1 else "TOGGLE"
            if all(group != w[0] for w in self.piping):
                self.piping.append((group, kind))
        self.valves = [self.rng.randint(0, 1) for k in range(self.n)]
        self.solved = {}
        self.lives = 2
        self.log = []
        self.turn = 0
        self.done = False
        return self.render("The fountain is running."), self.info()

    def jet_on(self, j, valves):
        """Whether jet j sprays for the given valve positions."""
        group, kind = self.piping[j]
        ups = sum(valves[s] for s in group)
        if kind == "ALL":
            return ups == len(group)
        if kind == "ANY":
            return ups > 0
        return ups % 2 == 1

    def jets_text(self):
        """Jet states as text, e.g. 'J1 spraying, J2 still'."""
        return ", ".join(
            f"J{j + 1} {'spraying' if self.jet_on(j, self.valves) else 'still'}"
            for j in range(len(self.piping))
        )

    def info(self):
        """Small JSON info for logs."""
        return {"turn": self.turn, "solved": len(self.solved), "lives": self.lives}

    def render(self, message):
        """The observation: progress, last result, state and actions."""
        valves = ", ".join(
            f"V{i + 1} {'open' if v else 'closed'}" for i, v in enumerate(self.valves)
        )
        solved = (
            ", ".join(
                f"J{j + 1}: " + " ".join(f"V{s + 1}" for s in self.piping[j][0])
                for j in sorted(self.solved)
            )
            or "none"
        )
        kinds = "TOGGLE only" if self.difficulty <= 2 else "TOGGLE, ALL or ANY"
        return (
            f"Turn {self.turn} of {self.max_turns}. Lives {self.lives}.\n{message}\n\n"
            f"Valves: {valves}\nJets: {self.jets_text()}\n"
            f"Jet kinds in this fountain: {kinds}.\nPiping confirmed: {solved}\n"
            f"Recent turns: {'; '.join(self.log[-8:]) or 'none'}\n\n"
            "Actions: \\boxed{turn V} (e.g. \\boxed{turn 2}); \\boxed{pipe J V1 V2 ...} "
            "(e.g. \\boxed{pipe 1 2 4})."
        )

    def step(self, action):
        """Turn a valve or declare a jet's piping."""
        if self.done:
            return "The episode is over.", 0.0, True, False, self.info()
        self.turn += 1
        text = extract_boxed(action) if isinstance(action, str) else None
        words = text.upper().replace(",", " ").split() if text else []
        numbers = []
        for w in words[1:]:
            w = w.lstrip("VJ")
            numbers.append(int(w) if w.isdigit() and len(w) < 4 else -1)
        reward, terminated = 0.0, False
        if words[:1] == ["TURN"] and len(numbers) == 1:
            s = numbers[0] - 1
            if not 0 <= s < self.n:
                message = f"Valves are V1-V{self.n}."
            else:
                before = self.jets_text()
                self.valves[s] = 1 - self.valves[s]
                after = self.jets_text()
                changed = [
                    f"J{j + 1}"
                    for j in range(len(self.piping))
                    if before.split(", ")[j] != after.split(", ")[j]
                ]
                note = ", ".join(changed) if changed else "no jet"
                self.log.append(f"V{s + 1} {'open' if self.valves[s] else 'closed'} changed {note}")
                message = f"V{s + 1} is now {'open' if self.valves[s] else 'closed'}; that changed {note}."
        elif words[:1] == ["PIPE"] and len(numbers) >= 2:
            j = numbers[0] - 1
            group = sorted(set(n - 1 for n in numbers[1:]))
            if not 0 <= j < len(self.piping):
                message = f"Jets are J1-J{len(self.piping)}."
            elif j in self.solved:
                message = f"J{j + 1} is already piped."
            elif any(not 0 <= s < self.n for s in group):
                message = f"Valves are V1-V{self.n}."
            elif group != self.piping[j][0]:
                self.lives -= 1
                message = f"Wrong: that is not J{j + 1}'s piping. You lose a life."
                if self.lives <= 0:
                    message += " No lives left. You lose."
                    terminated = True
            else:
                self.solved[j] = True
                message = f"Right: J{j + 1} is a {self.piping[j][1]} jet on those valves."
                if len(self.solved) == len(self.piping):
                    message += " The whole fountain is mapped. You win!"
                    reward, terminated = 1.0, True
        else:
            message = "Could not read the action. Use \\boxed{turn V} or \\boxed{pipe J V1 V2 ...}."
        self.done = terminated
        truncated = not terminated and self.turn >= self.max_turns
        if truncated:
            message += " Out of turns."
            self.done = True
        return self.render(message), reward, terminated, truncated, self.info()

    def solution(self):
        """Turn every valve once to watch the jets, then state each piping."""
        moves = [f"\\boxed{{turn {s + 1}}}" for s in range(self.n)]
        for j, pipe in enumerate(self.piping):
            group = pipe[0]
            if j not in self.solved:
                moves.append(f"\\boxed{{pipe {j + 1} " + " ".join(str(s + 1) for s in group) + "}")
        return moves

    def hint(self):
        """A nudge toward the method."""
        return (
            "Turn one valve at a time and note which jets respond. A jet that never responds "
            "to a valve may still depend on it: set its other valves so the jet sits on the "
            "edge (all but one open for ALL, all closed for ANY) and turn it again."
        )
