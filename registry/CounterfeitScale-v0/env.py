"""CounterfeitScale: find the fake coin with a balance scale (Logical_Deduction)."""

import random

from spadegym.program import extract_boxed, read_difficulty

COINS = {1: 5, 2: 9, 3: 6, 4: 9, 5: 12}
SLACK = 1


def outcome(left, right, fake, heavy):
    """What the scale shows: 'left', 'right' (the heavier pan) or 'balance'."""
    if fake in left:
        return "left" if heavy else "right"
    if fake in right:
        return "right" if heavy else "left"
    return "balance"


def best_weighing(hyps, n):
    """The weighing (left, right) whose worst outcome leaves the fewest hypotheses."""
    heavy_ok = {c for c, h in hyps if h}
    light_ok = {c for c, h in hyps if not h}
    both = sorted(heavy_ok & light_ok)
    only_h = sorted(heavy_ok - light_ok)
    only_l = sorted(light_ok - heavy_ok)
    genuine = [c for c in range(n) if c not in heavy_ok and c not in light_ok]
    best = None
    for u1 in range(len(both) + 1):
        for u2 in range(len(both) - u1 + 1):
            for h1 in range(len(only_h) + 1):
                for h2 in range(len(only_h) - h1 + 1):
                    for l1 in range(len(only_l) + 1):
                        for l2 in range(len(only_l) - l1 + 1):
                            a, b = u1 + h1 + l1, u2 + h2 + l2
                            pad = abs(a - b)
                            if a + b == 0 or pad > len(genuine):
                                continue
                            left_heavy = u1 + u2 + h1 + l2
                            right_heavy = u1 + u2 + h2 + l1
                            rest = len(hyps) - left_heavy - right_heavy
                            sizes = sorted([left_heavy, right_heavy, rest], reverse=True)
                            key = (sizes, a + b + pad)
                            if best is None or key < best[0]:
                                best = (key, (u1, u2, h1, h2, l1, l2, pad, a < b))
    u1, u2, h1, h2, l1, l2, pad, pad_left = best[1]
    left = both[:u1] + only_h[:h1] + only_l[:l1]
    right = both[u1:u1 + u2] + only_h[h1:h1 + h2] + only_l[l1:l1 + l2]
    if pad_left:
        left = left + genuine[:pad]
    else:
        right = right + genuine[:pad]
    return sorted(left), sorted(right)


def reference_play(n, fake, heavy, known_heavy):
    """Weighings a minimax player makes against this fake coin."""
    hyps = [(c, True) for c in range(n)] + ([] if known_heavy else [(c, False) for c in range(n)])
    plays = []
    while len(hyps) > 1:
        left, right = best_weighing(hyps, n)
        seen = outcome(left, right, fake, heavy)
        hyps = [(c, h) for c, h in hyps if outcome(left, right, c, h) == seen]
        plays.append((left, right))
    return plays


class CounterfeitScaleEnv:
    """Counterfeit Scale: find the one fake coin with as few weighings as possible.

    Each coin is stamped with a label such as K4. All are genuine except one fake, which is heavier or lighter
    than the rest (you are told which when it is known). Each turn put coins on the two pans
    of a balance (the same number on each) and see which side is heavier:
    \\boxed{weigh K4 B7 vs C2 D9}. Weighings are limited. Finish by naming the fake:
    \\boxed{fake K4 heavy} or \\boxed{fake K4 light}. A wrong accusation loses.
    """

    max_turns = 8
    skill = "Logical_Deduction"

    def reset(self, seed=None, options=None):
        """Hide a new fake from ``seed``; the difficulty in ``options`` sets the coin count."""
        self.rng = random.Random(seed)
        self.difficulty = read_difficulty(options, default=2)
        self.n = COINS[self.difficulty]
        self.known_heavy = self.difficulty <= 2
        codes = [a + b for a in "ABCDEFGHJKLMNPQRSTUVWXYZ" for b in "23456789"]
        # stamped labels differ per instance, so one instance's answer means nothing in another
        self.labels = self.rng.sample(codes, self.n)
        self.fake = self.rng.randrange(self.n)
        self.heavy = True if self.known_heavy else self.rng.random() < 0.5
        worst = 0
        for c in range(self.n):
            for h in ([True] if self.known_heavy else [True, False]):
                worst = max(worst, len(reference_play(self.n, c, h, self.known_heavy)))
        self.limit = worst + 1 + SLACK
        self.log = []
        self.turn = 0
        self.done = False
        return self.render("The coins are laid out."), self.info()

    def info(self):
        """A small JSON-able summary of the state."""
        return {"turn": self.turn, "weighings": len(self.log), "limit": self.limit,
                "difficulty": self.difficulty}

    def render(self, result):
        """The observation text: result, weighing log, actions and progress."""
        kind = "heavier" if self.known_heavy else "either heavier or lighter (you must find out which)"
        lines = [f"Turn {self.turn} of {self.limit}.", result,
                 f"Coins: {' '.join(self.labels)}. Exactly one is fake and it is {kind}."]
        if self.log:
            lines.append("Weighings so far:")
            for left, right, seen in self.log:
                shown = "balance" if seen == "balance" else f"{seen} pan heavier"
                lines.append(f"  {self.names(left)} vs {self.names(right)}: {shown}")
        lines.append("Actions: \\boxed{weigh X Y vs Z W} (coin labels, equal numbers per pan), or "
                     "\\boxed{fake X heavy} / \\boxed{fake X light}.")
        return "\n".join(lines)

    def names(self, coins):
        """Coin labels of the given indices, space-separated."""
        return " ".join(self.labels[c] for c in coins)

    def read_coins(self, text):
        """Coin indices from text like 'K4 B7', or None when malformed."""
        words = text.upper().replace(",", " ").split()
        if not words or any(w not in self.labels for w in words):
            return None
        return [self.labels.index(w) for w in words]

    def step(self, action):
        """Do one weighing or judge an accusation."""
        if self.done:
            return "The episode is over; call reset() to play again.", 0.0, True, False, self.info()
        self.turn += 1
        box = extract_boxed(action)
        text = box.strip().lower() if box is not None else ""
        if box is None:
            result = "No \\boxed{...} answer found; nothing was weighed."
        elif text.startswith("weigh"):
            sides = text[len("weigh"):].split("vs")
            left = self.read_coins(sides[0]) if len(sides) == 2 else None
            right = self.read_coins(sides[1]) if len(sides) == 2 else None
            if left is None or right is None:
                result = "Write a weighing as 'weigh X Y vs Z W' using the coin labels listed."
            elif len(left) != len(right) or len(set(left + right)) != len(left) + len(right):
                result = "Each pan needs the same number of coins and no coin can be on both pans."
            else:
                seen = outcome(left, right, self.fake, self.heavy)
                self.log.append((left, right, seen))
                result = "The scale balances." if seen == "balance" else f"The {seen} pan is heavier."
        elif text.startswith("fake"):
            words = text[len("fake"):].split()
            if not words or words[0].upper() not in self.labels:
                result = "Write 'fake X heavy' or 'fake X light' with X one of the coin labels."
            elif not self.known_heavy and (len(words) < 2 or words[1] not in ("heavy", "light", "heavier", "lighter")):
                result = "Say whether the fake is heavy or light, e.g. 'fake K4 light'."
            else:
                self.done = True
                claim_heavy = True if self.known_heavy else words[1].startswith("heav")
                if self.labels.index(words[0].upper()) == self.fake and claim_heavy == self.heavy:
                    return self.render("You found the fake. Solved!"), 1.0, True, False, self.info()
                return self.render("Wrong coin (or wrong weight). The real fake stays hidden."), 0.0, True, False, self.info()
        else:
            result = f"'{text[:40]}' is neither a weighing nor an accusation."
        if self.turn >= self.limit:
            self.done = True
            return self.render(result + " Out of turns."), 0.0, True, False, self.info()
        return self.render(result), 0.0, False, False, self.info()

    def solution(self):
        """Minimax weighings against the hidden fake, then the accusation."""
        out = []
        for left, right in reference_play(self.n, self.fake, self.heavy, self.known_heavy):
            out.append("\\boxed{weigh " + self.names(left) + " vs " + self.names(right) + "}")
        out.append("\\boxed{fake " + self.labels[self.fake] + (" heavy}" if self.heavy else " light}"))
        return out

    def hint(self):
        """A nudge about the approach."""
        return ("A weighing has three outcomes, so split the coins that could still be fake into "
                "three groups of nearly equal size: two on the pans and one aside. Coins proven "
                "genuine are useful as fillers.")
