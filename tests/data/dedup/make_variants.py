"""Regenerate the mechanical variants and pairs.jsonl of the dedup development set.

Hand-written files are inputs: the originals, their same-topic siblings and ``*_rewrite.py``
programs; ``rw_*.py``, hand-written rewrites of games of the shipped library (new names,
wording, layout, method order and control flow, random numbers drawn in the same order);
``rwd_*.py``, the same rewrites with the order of the random draws changed as well; and
``st_*.py``, different games on the topic of a library game. ``*_renamed``, ``*_reformatted``,
``*_reworded`` and ``*_combo`` are derived here: renamed identifiers, reordered methods plus a
reformat, reworded texts with a changed turn limit, and all three together.

Library programs are named ``lib/<Folder>`` (``registry/<Folder>-v0/env.py``). Every pair has
a ``split``: ``tune`` when every game it involves is one of ``TUNE_GAMES``, else ``heldout``;
thresholds are tuned on the first half only. Run from the repository root:
``python tests/data/dedup/make_variants.py``.
"""

from __future__ import annotations

import ast
import io
import itertools
import json
import re
import tokenize
from pathlib import Path

HERE = Path(__file__).parent
PROGRAMS = HERE / "programs"

SIBLINGS = {  # original -> a different game on the same topic
    "lock": "safe_dial",
    "nim": "stone_scale",
    "maze": "maze_count",
    "wordle": "anagram",
    "countdown": "sum_quiz",
    "hanoi": "pancakes",
    "knapsack": "coins",
    "sequence": "odd_one",
}
REWRITES = ["lock", "wordle", "hanoi"]

LIBRARY_REWRITES = {  # rw_<key>.py rewrites the library folder; rwd_<key>.py also redraws
    "barter": "BarterSplitDuel",
    "beaconrover": "BeaconRover",
    "blackout": "BlackoutCascade",
    "cargohold": "CargoHoldPacker",
    "codepeg": "CodePegBreaker",
    "connect4": "ConnectFourDuel",
    "cryptogram": "CryptogramLedger",
    "currency": "CurrencyRelay",
    "envelope": "EnvelopeMystery",
    "fountain": "FountainValveLab",
    "geardial": "GearDialSync",
    "greenhouse": "GreenhouseTrials",
    "heightlineup": "HeightLineup",
    "homehub": "HomeHub",
    "knightknave": "KnightKnaveCensus",
    "kuhn": "KuhnPokerDuel",
    "liarsdice": "LiarsDiceDuel",
    "machineshop": "MachineShopBalance",
    "modvault": "ModularVault",
    "mosaic": "MosaicRestorer",
    "nim": "NimDuel",
    "numberforge": "NumberForge",
    "pegleap": "PegLeap",
    "riversource": "RiverSourceTrace",
    "ruleshift": "RuleShiftSort",
    "sequence": "SequenceOracle",
    "stackmachine": "StackMachineEval",
    "stringmachine": "StringMachine",
    "switchboard": "SwitchboardMapping",
    "tictactoe": "TicTacToeDuel",
    "timber": "TimberCutter",
}
TOPIC_SIBLINGS = {  # st_<name>.py: a different game on the topic of a library folder
    "alibi": "EnvelopeMystery",
    "anagram": "CryptogramLedger",
    "bincount": "CargoHoldPacker",
    "caesar": "StringMachine",
    "coinchange": "CurrencyRelay",
    "columnduel": "ConnectFourDuel",
    "dicerace": "LiarsDiceDuel",
    "digitops": "NumberForge",
    "dosefinder": "GreenhouseTrials",
    "faultylamp": "SwitchboardMapping",
    "fifteen": "TicTacToeDuel",
    "gearchain": "GearDialSync",
    "highcard": "KuhnPokerDuel",
    "knighthop": "PegLeap",
    "liarcount": "KnightKnaveCensus",
    "logstack": "TimberCutter",
    "median": "HeightLineup",
    "mirrortiles": "MosaicRestorer",
    "misere": "NimDuel",
    "modinverse": "ModularVault",
    "oddcard": "RuleShiftSort",
    "pegquery": "CodePegBreaker",
    "riverquiz": "RiverSourceTrace",
    "roverend": "BeaconRover",
    "rpn": "StackMachineEval",
    "seqgap": "SequenceOracle",
    "spt": "MachineShopBalance",
    "thermoaudit": "HomeHub",
}
LOOKALIKES = [  # different games of the library on one topic
    ("InputFinder", "LoopTrace"),
    ("InputFinder", "FunctionRepair"),
    ("InputFinder", "TraceOracle"),
    ("InputFinder", "StackMachineEval"),
    ("InputFinder", "RegisterBugfix"),
    ("LoopTrace", "FunctionRepair"),
    ("LoopTrace", "TraceOracle"),
    ("LoopTrace", "StackMachineEval"),
    ("LoopTrace", "RegisterBugfix"),
    ("FunctionRepair", "TraceOracle"),
    ("FunctionRepair", "StackMachineEval"),
    ("FunctionRepair", "RegisterBugfix"),
    ("TraceOracle", "StackMachineEval"),
    ("TraceOracle", "RegisterBugfix"),
    ("StackMachineEval", "RegisterBugfix"),
    ("ConnectFourDuel", "TicTacToeDuel"),
    ("GearDialSync", "ModularVault"),
    ("EnvelopeMystery", "EliminationLedger"),
    ("FountainValveLab", "StuckGateHunt"),
    ("SwitchboardMapping", "StuckGateHunt"),
    ("MosaicRestorer", "BeadPatternLoom"),
    ("RuleShiftSort", "BongardBins"),
    ("StringMachine", "RuleProbeLab"),
    ("HomeHub", "SheetEditor"),
    ("NimDuel", "LiarsDiceDuel"),
    ("RiverSourceTrace", "BlackoutCascade"),
    ("GreenhouseTrials", "ClinicRemedyTrials"),
    ("GreenhouseTrials", "GeneKnockoutLab"),
    ("KnightKnaveCensus", "HouseRowRiddle"),
    ("HeightLineup", "CounterfeitScale"),
    ("CargoHoldPacker", "MachineShopBalance"),
    ("CargoHoldPacker", "TimberCutter"),
    ("CurrencyRelay", "TankerRoute"),
    ("BeaconRover", "FoggyLabyrinth"),
    ("BeaconRover", "CrateShove"),
    ("SequenceOracle", "AutomatonForecast"),
    ("KuhnPokerDuel", "LiarsDiceDuel"),
    ("NumberForge", "FractionPantry"),
]
TUNE_GAMES = frozenset(
    {
        # fixtures of the original set
        "countdown",
        "knapsack",
        "lock",
        "maze",
        # library games (with their rewrites and siblings)
        "BeadPatternLoom",
        "BongardBins",
        "CodePegBreaker",
        "EliminationLedger",
        "EnvelopeMystery",
        "FountainValveLab",
        "GearDialSync",
        "HomeHub",
        "InputFinder",
        "LiarsDiceDuel",
        "LoopTrace",
        "ModularVault",
        "MosaicRestorer",
        "NimDuel",
        "RuleProbeLab",
        "RuleShiftSort",
        "SheetEditor",
        "StringMachine",
        "StuckGateHunt",
        "SwitchboardMapping",
        "TicTacToeDuel",
        "TimberCutter",
    }
)
"""The tuning half, by game. Every other game is held out: no threshold sees its pairs."""

REWORDS = {
    "lock": [
        ("Pick a combination lock by listening to the clicks.", "Crack a three-digit padlock."),
        (
            "A 3-digit lock: each guess tells you how many digits are in the right place.",
            "After every attempt you learn how many of your digits sit in the correct slot.",
        ),
        ("You win when the lock opens.", "The padlock springs open when you hit the code."),
        ("A 3-digit lock. Guess with", "A padlock with three digits. Try a code with"),
        ("Click. The lock opens.", "The shackle pops open."),
        ("digit(s) in the right place.", "digit(s) correctly placed."),
        ("max_turns = 8", "max_turns = 10"),
    ],
    "nim": [
        (
            "Take the last stone in a game of Nim against a careful opponent.",
            "Win a Nim duel by removing the final counter.",
        ),
        ("There are several piles of stones.", "Counters lie in a few heaps."),
        ("Whoever takes the last stone wins.", "The player who empties the table wins."),
        ("Your move.", "You start."),
        ('f"pile {i + 1}: {n}"', 'f"heap {i + 1}: {n}"'),
        ("You took the last stone. You win.", "You cleared the table and won."),
        ("max_turns = 20", "max_turns = 24"),
    ],
    "maze": [
        ("Walk out of a walled maze one step at a time.", "Escape the labyrinth."),
        (
            "You are @ and the exit is E on a small grid with walls #.",
            "The map marks you with @, the way out with E and stone walls with #.",
        ),
        ("Reach the exit before you run out of steps.", "Get out before your moves run out."),
        ("Find the exit.", "You wake up in a labyrinth."),
        ("A wall blocks the way.", "You bump into stone."),
        ("You step through the exit.", "Daylight: you escaped."),
        ("max_turns = 30", "max_turns = 36"),
    ],
    "wordle": [
        (
            "Guess the hidden five-letter word from coloured feedback.",
            "Deduce a secret word of five letters.",
        ),
        (
            "After each guess, every letter is marked G (right place), Y (in the word elsewhere) "
            "or",
            "Each attempt is scored letter by letter: G for a hit, Y for a letter misplaced and",
        ),
        ("- (absent).", "- for a letter not in the word."),
        ("Guess the five-letter word.", "A secret word is hidden."),
        ("you found the word.", "solved."),
        ("max_turns = 6", "max_turns = 7"),
    ],
    "countdown": [
        (
            "Reach the target number by combining the numbers you are given.",
            "Build the goal value from a handful of numbers.",
        ),
        (
            "Each turn pick two of the available numbers and an operation with",
            "On every move combine two numbers you hold using",
        ),
        ("You win when the target appears.", "Make the goal value to win."),
        ("target reached.", "goal made!"),
        ("Target:", "Goal:"),
        ("max_turns = 5", "max_turns = 6"),
    ],
    "hanoi": [
        (
            "Move the tower of discs to the target peg, never putting a disc on a smaller one.",
            "Solve the Tower of Hanoi.",
        ),
        (
            "Three pegs A, B and C; all discs start on one of them.",
            "Rings sit on one rod; the other two are empty.",
        ),
        (
            "A larger disc may never rest on a smaller disc.",
            "Never stack a big ring on a small one.",
        ),
        ("Move the tower from {self.start} to {self.goal}.", "Shift every ring from rod {self.start} to rod {self.goal}."),
        ("Tower moved in", "All rings moved after"),
        ("max_turns = 40", "max_turns = 50"),
    ],
    "knapsack": [
        (
            "Pack a bag with the most valuable items that fit under its weight limit.",
            "Fill a backpack with loot without exceeding its capacity.",
        ),
        ("Items are listed with weight and value.", "Each treasure has a weight and a worth."),
        ("You win with the best possible value;", "Only the optimal haul counts as a win;"),
        ("Pack the bag.", "Choose your loot."),
        ("Too heavy: the bag tears.", "Over capacity: the backpack rips."),
        ("max_turns = 12", "max_turns = 14"),
    ],
    "sequence": [
        ("Find the next term of a number sequence.", "Continue the number pattern."),
        (
            "A sequence follows a hidden rule (adding, multiplying or alternating steps).",
            "The numbers are produced by a secret rule: a constant step, a ratio, or two steps "
            "taken in turn.",
        ),
        (
            "After a wrong answer you get one more term as a clue.",
            "Miss, and one more number is shown.",
        ),
        ("Next term?", "What comes next?"),
        ("max_turns = 3", "max_turns = 4"),
    ],
}


def chosen_names(source: str) -> list[str]:
    """Names the program chose (not contract, builtin or imported), longest first."""
    from spadegym.memory.fingerprint import _BUILTINS, CONTRACT_NAMES, _imported_names

    tree = ast.parse(source)
    keep = set(CONTRACT_NAMES) | set(_BUILTINS) | _imported_names(tree)
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            names.add(node.id)
        elif isinstance(node, ast.arg):
            names.add(node.arg)
        elif isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
            names.add(node.attr)
    return sorted((n for n in names - keep if not n.startswith("__")), key=len, reverse=True)


def rename(source: str) -> str:
    """Rename chosen identifiers in code and inside f-string fields, never in plain text."""
    mapping = {
        name: ("q" + name.title().replace("_", "")) if not name.endswith("Env") else "Alt" + name
        for name in chosen_names(source)
    }
    word = re.compile(r"\b[A-Za-z_]\w*\b")
    lines = source.splitlines(keepends=True)
    edits = []
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type == tokenize.NAME and tok.string in mapping:
            edits.append((tok.start, tok.end, mapping[tok.string]))
        elif tok.type == tokenize.STRING and "f" in tok.string.split('"')[0].split("'")[0].lower():
            text = re.sub(
                r"(?<!\{)\{([^{}]*)\}",
                lambda m: (
                    "{" + word.sub(lambda w: mapping.get(w.group(0), w.group(0)), m.group(1)) + "}"
                ),
                tok.string,
            )
            edits.append((tok.start, tok.end, text))
    for (row, col), (end_row, end_col), text in reversed(edits):
        if row != end_row:
            continue
        line = lines[row - 1]
        lines[row - 1] = line[:col] + text + line[end_col:]
    return "".join(lines)


def reformat(source: str) -> str:
    tree = ast.parse(source)
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef):
            defs = [s for s in node.body if isinstance(s, ast.FunctionDef)]
            rest = [s for s in node.body if not isinstance(s, ast.FunctionDef)]
            node.body = rest[:1] + rest[1:][::-1] + defs[::-1]
    return ast.unparse(tree) + "\n"


def reword(source: str, base: str) -> str:
    for old, new in REWORDS[base]:
        if old not in source:
            raise ValueError(f"{base}: {old!r} not found")
        source = source.replace(old, new)
    return source


def main() -> None:
    pairs = []
    for base in SIBLINGS:
        source = (PROGRAMS / f"{base}.py").read_text()
        variants = {
            "renamed": rename(source),
            "reformatted": reformat(source),
            "reworded": reword(source, base),
            "combo": reformat(rename(reword(source, base))),
        }
        for kind, text in variants.items():
            ast.parse(text)
            (PROGRAMS / f"{base}_{kind}.py").write_text(text)
            pairs.append({"a": base, "b": f"{base}_{kind}", "same": True, "kind": kind})
            pairs.append(
                {"a": f"{base}_{kind}", "b": SIBLINGS[base], "same": False, "kind": "same_topic"}
            )
        if base in REWRITES:
            pairs.append({"a": base, "b": f"{base}_rewrite", "same": True, "kind": "rewrite"})
            pairs.append(
                {"a": f"{base}_rewrite", "b": SIBLINGS[base], "same": False, "kind": "same_topic"}
            )
    originals = sorted([*SIBLINGS, *SIBLINGS.values()])
    for a, b in itertools.combinations(originals, 2):
        topic = SIBLINGS.get(a) == b or SIBLINGS.get(b) == a
        pairs.append({"a": a, "b": b, "same": False, "kind": "same_topic" if topic else "other"})
    pairs += library_pairs()
    with open(HERE / "pairs.jsonl", "w") as f:
        for pair in pairs:
            pair["split"] = split_of(pair)
            f.write(json.dumps(pair) + "\n")


def game_of(name: str) -> str:
    """The game a program belongs to, for the split: its library folder or its base fixture."""
    if name.startswith("lib/"):
        return name[4:]
    if name.startswith(("rw_", "rwd_")):
        return LIBRARY_REWRITES[name.split("_", 1)[1]]
    if name.startswith("st_"):
        return TOPIC_SIBLINGS[name[3:]]
    for base, sibling in SIBLINGS.items():
        if name == sibling or name == base or name.startswith(base + "_"):
            return base
    raise ValueError(f"no game for {name!r}")


def split_of(pair: dict) -> str:
    """``tune`` when both programs belong to tuning games, else ``heldout``."""
    games = {game_of(pair["a"]), game_of(pair["b"])}
    return "tune" if games <= TUNE_GAMES else "heldout"


def library_pairs() -> list[dict]:
    """Rewrites of library games, their same-topic siblings, look-alikes and unrelated pairs."""
    pairs = []
    for key, folder in sorted(LIBRARY_REWRITES.items()):
        original = f"lib/{folder}"
        pairs.append({"a": original, "b": f"rw_{key}", "same": True, "kind": "rewrite"})
        if (PROGRAMS / f"rwd_{key}.py").exists():
            pairs.append({"a": original, "b": f"rwd_{key}", "same": True, "kind": "rewrite_draws"})
    for key, folder in sorted(TOPIC_SIBLINGS.items()):
        rewrites = [k for k, f in LIBRARY_REWRITES.items() if f == folder]
        others = [f"lib/{folder}"] + [f"rw_{k}" for k in rewrites]
        others += [f"rwd_{k}" for k in rewrites if (PROGRAMS / f"rwd_{k}.py").exists()]
        for other in others:
            pairs.append({"a": other, "b": f"st_{key}", "same": False, "kind": "same_topic"})
    for a, b in LOOKALIKES:
        pairs.append({"a": f"lib/{a}", "b": f"lib/{b}", "same": False, "kind": "same_topic"})
    # Each rewrite against the originals of the next two rewritten games of its own half.
    for half in (True, False):
        keys = sorted(k for k, f in LIBRARY_REWRITES.items() if (f in TUNE_GAMES) == half)
        for i, key in enumerate(keys):
            for other in (keys[(i + 1) % len(keys)], keys[(i + 2) % len(keys)]):
                pairs.append(
                    {
                        "a": f"lib/{LIBRARY_REWRITES[other]}",
                        "b": f"rw_{key}",
                        "same": False,
                        "kind": "other",
                    }
                )
    return pairs


if __name__ == "__main__":
    main()
