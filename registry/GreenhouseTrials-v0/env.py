"""GreenhouseTrials: separate real growth factors from confounded ones with controlled trials."""

import random

from spadegym.program import extract_boxed, read_difficulty

FACTORS = ["compost", "lamp", "mist", "music", "bluepot", "seaweed", "shade", "heatmat"]


class GreenhouseTrialsEnv:
    """Greenhouse Trials: find which treatments really change plant height.

    Each plant gets any combination of on/off treatments. Some treatments change the height
    a plant reaches (up or down); the rest do nothing. The gardener's old records are shown,
    but treatments there were not assigned at random, so some useless treatments look
    helpful. Grow trial plants with treatments of your choosing (heights vary by a couple of
    cm from plant to plant), then name exactly the treatments that have an effect.
    Actions: \\boxed{grow compost=1 lamp=0 ...} (unlisted treatments are off);
    \\boxed{answer T1 T2 ...} names the effective treatments (final; \\boxed{answer none})."""

    max_turns = 12
    skill = "Causal_Inference"

    def reset(self, seed=None, options=None):
        """Draw effects, a confounded record book and the noise stream."""
        self.rng = random.Random(seed)
        self.difficulty = read_difficulty(options, default=2)
        count = 2 + (self.difficulty + 1) // 2
        self.factors = self.rng.sample(FACTORS, count)
        causal_count = self.rng.randint(1, min(3, count - 1))
        self.causal = self.rng.sample(self.factors, causal_count)
        self.effects = {}
        for f in self.factors:
            if f in self.causal:
                size = self.rng.randint(5, 12)
                self.effects[f] = size if self.rng.random() < 0.75 else -size
            else:
                self.effects[f] = 0
        self.base = self.rng.randint(20, 40)
        self.noise_span = 1 + (self.difficulty >= 4)
        # The gardener pampered some plants: those got a real treatment and a useless one together.
        decoy = self.rng.choice([f for f in self.factors if f not in self.causal])
        helper = max(self.causal, key=lambda f: self.effects[f])
        self.records = []
        while len(self.records) < 8:
            pampered = self.rng.random() < 0.5
            setting = {}
            for f in self.factors:
                if f in (decoy, helper):
                    setting[f] = int(pampered) if self.rng.random() < 0.9 else int(not pampered)
                else:
                    setting[f] = self.rng.randint(0, 1)
            self.records.append((setting, self.height(setting)))
        self.trials = []
        self.turn = 0
        self.done = False
        return self.render("The greenhouse is ready."), self.info()

    def height(self, setting):
        """Height of one plant: base plus effects plus a little plant-to-plant noise."""
        noise = self.rng.randint(-self.noise_span, self.noise_span)
        return self.base + sum(self.effects[f] * setting.get(f, 0) for f in self.factors) + noise

    def info(self):
        """Small JSON info for logs."""
        return {"turn": self.turn, "trials": len(self.trials)}

    def describe(self, setting):
        """Treatments that are on, or 'nothing'."""
        on = [f for f in self.factors if setting.get(f, 0)]
        return "+".join(on) if on else "nothing"

    def render(self, message):
        """The observation: progress, last result, state and actions."""
        records = "\n".join(f"  {self.describe(s)}: {h} cm" for s, h in self.records)
        trials = (
            "\n".join(f"  {self.describe(s)}: {h} cm" for s, h in self.trials[-10:]) or "  (none)"
        )
        return (
            f"Turn {self.turn} of {self.max_turns}.\n{message}\n\n"
            f"Treatments: {', '.join(self.factors)}\n"
            f"Gardener's old records (treatments on: height):\n{records}\n"
            f"Your trial plants:\n{trials}\n\n"
            "Actions: \\boxed{grow " + self.factors[0] + "=1 " + self.factors[1] + "=0} "
            "(unlisted treatments off), \\boxed{answer T1 T2} (final)."
        )

    def step(self, action):
        """Grow a trial plant or answer."""
        if self.done:
            return "The episode is over.", 0.0, True, False, self.info()
        self.turn += 1
        text = extract_boxed(action) if isinstance(action, str) else None
        words = text.lower().replace(",", " ").split() if text else []
        verb = words[0] if words else ""
        reward, terminated = 0.0, False
        if verb == "grow":
            setting, problem = {}, ""
            for w in words[1:]:
                parts = w.split("=")
                if len(parts) == 1 and parts[0] in self.factors:
                    parts = [parts[0], "1"]
                if len(parts) != 2 or parts[0] not in self.factors or parts[1] not in ("0", "1"):
                    problem = (
                        f"'{w[:20]}' is not TREATMENT=0 or TREATMENT=1 with a listed treatment."
                    )
                    break
                setting[parts[0]] = int(parts[1])
            if problem:
                message = problem + " Nothing was grown."
            else:
                h = self.height(setting)
                self.trials.append((setting, h))
                message = f"Grew a plant with {self.describe(setting)}: {h} cm."
        elif verb == "answer" and len(words) >= 2:
            chosen = set(w for w in words[1:] if w != "none")
            if any(w not in self.factors for w in chosen):
                message = "Name only listed treatments (or none). Nothing was answered."
            else:
                terminated = True
                if chosen == set(self.causal):
                    reward = 1.0
                    message = (
                        f"Correct: only {', '.join(sorted(self.causal))} change height. You win!"
                    )
                else:
                    message = f"Wrong: the effective treatments were {', '.join(sorted(self.causal))}. You lose."
        else:
            message = (
                "Could not read the action. Use \\boxed{grow T=1 ...} or \\boxed{answer T1 T2}."
            )
        self.done = terminated
        truncated = not terminated and self.turn >= self.max_turns
        if truncated:
            message += " Out of turns."
            self.done = True
        return self.render(message), reward, terminated, truncated, self.info()

    def solution(self):
        """A control plant, one plant per single treatment, then the effective set."""
        moves = ["\\boxed{grow}"]
        for f in self.factors:
            moves.append(f"\\boxed{{grow {f}=1}}")
        return moves + ["\\boxed{answer " + " ".join(sorted(self.causal)) + "}"]

    def hint(self):
        """A nudge toward the method."""
        return (
            "Do not trust the old records: treatments there travel together. Grow a plant with "
            "nothing, then plants that differ from it in exactly one treatment, and count only "
            "differences larger than the plant-to-plant noise."
        )
