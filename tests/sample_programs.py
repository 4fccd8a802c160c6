"""Small programs the test packages share (imported as a plain module, not via conftest)."""

from __future__ import annotations

import textwrap
from pathlib import Path

LOCK_PICK = textwrap.dedent('''
    from spadegym.program import extract_boxed
    import random

    class LockPickEnv:
        """Pick a combination lock by listening to the clicks.

        A 3-digit lock: each guess tells you how many digits are in the right place.
        Answer with \\\\boxed{ddd}. You win when the lock opens."""

        max_turns = 8
        skill = "Logical_Deduction"

        def reset(self, seed=None, options=None):
            self.rng = random.Random(seed)
            self.code = "".join(str(self.rng.randrange(10)) for _ in range(3))
            self.turn = 0
            return "A 3-digit lock. Guess with \\\\boxed{ddd}.", {}

        def step(self, action):
            self.turn += 1
            guess = extract_boxed(action)
            if guess is None or len(guess) != 3 or not guess.isdigit():
                return "Answer with three digits in \\\\boxed{}.", 0.0, False, False, {}
            if guess == self.code:
                return "Click. The lock opens.", 1.0, True, False, {}
            right = sum(1 for a, b in zip(guess, self.code) if a == b)
            return f"{right} digit(s) in the right place.", 0.0, False, False, {}

        def solution(self):
            return ["\\\\boxed{" + self.code + "}"]

        def hint(self):
            return "Change one digit at a time and watch the count."
''')


def make_program(
    step_body: str,
    *,
    reset_body: str = 'return "Say something.", {}',
    extra: str = "",
    max_turns: int = 5,
    header: str = "",
) -> str:
    """A minimal program whose step runs ``step_body`` (indented for you)."""
    step = textwrap.indent(textwrap.dedent(step_body).strip(), " " * 8)
    reset = textwrap.indent(textwrap.dedent(reset_body).strip(), " " * 8)
    more = textwrap.indent(textwrap.dedent(extra).strip(), " " * 4)
    return (
        f'{header}\nclass ProbeEnv:\n    """A probe.\n\n    Reply anything."""\n\n'
        f"    max_turns = {max_turns}\n\n"
        f"    def reset(self, seed=None, options=None):\n{reset}\n\n"
        f"    def step(self, action):\n{step}\n\n{more}\n"
    )


# Ends when told "stop" (reward -1) or after `target` steps, which the seed picks (1..6), so
# max_turns=5 truncates some: instances end at different steps, and each reset shows its seed.
COUNTER = make_program(
    """
    self.n += 1
    if action == "stop":
        return f"stopped at {self.n}", -1.0, True, False, {"n": self.n}
    done = self.n >= self.target
    return f"{self.n} of {self.target}", float(done), done, False, {"n": self.n}
    """,
    reset_body="""
    self.target = random.Random(seed).randrange(1, 7)
    self.n = 0
    return f"seed {seed}: count to {self.target}", {"target": self.target}
    """,
    header="import random",
    max_turns=5,
)


EXAMPLES = Path(__file__).resolve().parent.parent / "examples" / "good"


def example_registry(path: Path) -> Path:
    """A registry root at ``path`` holding every good example program; returns ``path``."""
    from spadegym.registry import Registry

    registry = Registry(path)
    for program in sorted(EXAMPLES.glob("*.py")):
        registry.add(program.read_text(encoding="utf-8"))
    return path
