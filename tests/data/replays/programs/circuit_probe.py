import random

from spadegym.program import extract_boxed


class CircuitProbeEnv:
    """Circuit probe: find which switch drives each lamp.

    A panel has several switches and lamps. Each lamp is wired to exactly one switch, and
    flipping a switch toggles every lamp wired to it. Flip switches with \\boxed{flip K} and
    watch the lamps; when you know the wiring, answer with \\boxed{answer A B C ...}, the switch
    of lamp 1, lamp 2, and so on. One answer only: a wrong one ends the game.
    """

    max_turns = 10
    skill = "Causal_Inference"

    def reset(self, seed=None, options=None):
        self.rng = random.Random(seed)
        difficulty = 1
        if isinstance(options, dict) and options.get("difficulty") in (1, 2, 3, 4, 5):
            difficulty = options["difficulty"]
        self.switches = 3 + min(difficulty, 3)
        self.lamps = self.switches + 1
        self.wiring = [self.rng.randrange(self.switches) for _ in range(self.lamps)]
        self.lit = [self.rng.random() < 0.5 for _ in range(self.lamps)]
        self.flips = 0
        return self.describe("The panel powers up."), {"flips": 0}

    def describe(self, lead):
        lamps = " ".join(f"L{k + 1}:{'on' if on else 'off'}" for k, on in enumerate(self.lit))
        return (
            f"{lead}\nLamps: {lamps}\nSwitches: 1..{self.switches}. Flips used: {self.flips}. "
            "Flip a switch with \\boxed{flip K}, or give the switch of every lamp in order with "
            f"\\boxed{{answer A B ...}} ({self.lamps} numbers). A wrong answer loses."
        )

    def step(self, action):
        text = extract_boxed(action)
        words = [] if text is None else text.lower().split()
        if len(words) == 2 and words[0] == "flip" and words[1].isdigit():
            switch = int(words[1]) - 1
            if not 0 <= switch < self.switches:
                return self.describe("There is no such switch."), 0.0, False, False, {}
            self.flips += 1
            changed = []
            for lamp in range(self.lamps):
                if self.wiring[lamp] == switch:
                    self.lit[lamp] = not self.lit[lamp]
                    changed.append(f"L{lamp + 1}")
            what = ", ".join(changed) if changed else "nothing"
            lead = f"You flip switch {switch + 1}; {what} changed."
            return self.describe(lead), 0.0, False, False, {"flips": self.flips}
        if words and words[0] == "answer":
            guess = words[1:]
            if len(guess) != self.lamps or not all(w.isdigit() for w in guess):
                lead = f"An answer needs {self.lamps} switch numbers."
                return self.describe(lead), 0.0, False, False, {}
            if [int(w) - 1 for w in guess] == self.wiring:
                return "The wiring diagram is right. You win!", 1.0, True, False, {}
            return "That wiring is wrong. The inspector fails you.", 0.0, True, False, {}
        return self.describe("Write \\boxed{flip K} or \\boxed{answer ...}."), 0.0, False, False, {}

    def solution(self):
        moves = [f"\\boxed{{flip {k + 1}}}" for k in range(self.switches - 1)]
        answer = " ".join(str(w + 1) for w in self.wiring)
        return moves + ["\\boxed{answer " + answer + "}"]
