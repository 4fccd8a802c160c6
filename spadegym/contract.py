"""The numbers, lists and rules of the environment program contract (v1.1), in one place.

``docs/CONTRACT.md`` is the prose; this module is what the policy, the sandbox, the
validator, the memory and the designer prompt read, so that none of them can drift from the
others.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable
from typing import Literal

from spadegym.errors import ConfigError

CONTRACT_VERSION = "1.1"

MAX_PROGRAM_BYTES = 64 * 1024
"""A program, or a raw designer reply, is at most 64 KiB of UTF-8."""

MAX_OBSERVATION_CHARS = 8192
"""An observation is a ``str`` of at most this many characters."""

MAX_ACTION_CHARS = 65536
"""Actions longer than this are refused before they reach a program (about 16k tokens)."""

MAX_INFO_BYTES = 16 * 1024
"""``info`` is at most 16 KiB once encoded as JSON."""

MIN_TURNS, MAX_TURNS = 1, 100
"""``max_turns`` must lie in this range."""

REWARD_MIN, REWARD_MAX = -1.0, 1.0
"""Rewards are finite numbers in this closed range."""

MAX_HINT_CHARS = 500
"""A hint is 1-3 sentences under this many characters."""

MAX_SOLUTION_STEPS = 100
"""``solution()`` may not be longer than the longest allowed episode."""

ALLOWED_IMPORTS: dict[str, str] = {
    "math": "pure arithmetic",
    "cmath": "pure complex arithmetic",
    "random": "seeded generators (only the Random class is offered)",
    "re": "pattern matching on observations and replies",
    "json": "encoding structured observations and tool arguments",
    "string": "character constants",
    "itertools": "combinatorics for puzzle generation",
    "functools": "reduce, partial and caches",
    "collections": "Counter, deque, defaultdict and friends",
    "collections.abc": "abstract base classes for isinstance checks",
    "heapq": "priority queues for search and optimisation games",
    "bisect": "sorted insertion",
    "fractions": "exact rational arithmetic",
    "decimal": "exact decimal arithmetic",
    "statistics": "means and medians",
    "operator": "arithmetic as functions (attribute getters are withheld)",
    "copy": "copying game states",
    "textwrap": "formatting observations",
    "typing": "type names for annotations",
    "dataclasses": "small state records",
    "enum": "named constants",
    "spadegym.program": "extract_boxed, parse_tool_calls, read_difficulty and ToolEnv",
}
"""Every module a program may import, with the reason it is allowed."""

SKILLS: tuple[str, ...] = (
    "Mathematical_Reasoning",
    "Logical_Deduction",
    "Spatial_Reasoning",
    "Pattern_Recognition",
    "Optimization",
    "Causal_Inference",
)
"""The six skills of the SPADE recipe, the default skill tags."""

KINDS: tuple[str, ...] = ("puzzle", "tool", "two_player")
"""The kinds of environment of contract section 6."""

# --------------------------------------------------------------------------------------------
# Difficulty: reset's options may carry {"difficulty": d}.

MIN_DIFFICULTY, MAX_DIFFICULTY = 1, 5
"""Difficulties are ints in this closed range."""

DIFFICULTIES: tuple[int, ...] = tuple(range(MIN_DIFFICULTY, MAX_DIFFICULTY + 1))
"""Every difficulty, easiest first."""

DEFAULT_DIFFICULTY = 3
"""What ``spadegym.program.read_difficulty`` gives when the options carry no valid one."""


def is_difficulty(value: object) -> bool:
    """Whether ``value`` is a difficulty: an int (not a bool) in ``1..5``."""
    return type(value) is int and MIN_DIFFICULTY <= value <= MAX_DIFFICULTY


def check_difficulty(value: object, name: str = "difficulty") -> int:
    """Return ``value`` if it is a difficulty.

    Raises:
        ConfigError: it is not; the message names ``name`` and the range.
    """
    if not is_difficulty(value):
        raise ConfigError(
            f"{name}={value!r}: difficulties are ints in {MIN_DIFFICULTY}..{MAX_DIFFICULTY}."
        )
    return value  # type: ignore[return-value]


# --------------------------------------------------------------------------------------------
# Which class is the environment (section 1).


def is_environment_class_name(name: str) -> bool:
    """Whether a class of this name is an environment class: public, ending in ``Env``."""
    return name.endswith("Env") and not name.startswith("_")


def environment_class(class_names: Iterable[str]) -> str:
    """The environment class among the names of the classes a program defines at top level.

    The static checks, the worker's loader, validation, the registry and the memory all decide
    with this one rule: exactly one public class whose name ends in ``Env``.

    Raises:
        ValueError: none or several qualify; the message says which and what to do.
    """
    names = list(dict.fromkeys(n for n in class_names if is_environment_class_name(n)))
    if len(names) == 1:
        return names[0]
    if not names:
        raise ValueError(
            "the program defines no public class whose name ends in 'Env'; define exactly "
            "one (for example class LockPickEnv:)"
        )
    raise ValueError(
        f"the program defines {len(names)} classes whose names end in 'Env' "
        f"({', '.join(names)}); keep exactly one and give helper classes other names"
    )


def environment_class_def(tree: ast.Module) -> ast.ClassDef:
    """The ``class`` statement of the environment, by ``environment_class``'s rule.

    Raises:
        ValueError: as ``environment_class``.
    """
    classes = {node.name: node for node in tree.body if isinstance(node, ast.ClassDef)}
    return classes[environment_class(classes)]


# --------------------------------------------------------------------------------------------
# How a program can fail at run time.

ProgramErrorKind = Literal[
    "exception",
    "contract",
    "timeout",
    "crash",
    "policy",
    "missing",
    "broken",
    "lost",
    "sandbox",
    "action",
    "protocol",
    "quarantined",
]
"""The ``kind`` of a ``spadegym.errors.ProgramError``; ``PROGRAM_ERROR_KINDS`` says each."""

PROGRAM_ERROR_KINDS: dict[str, str] = {
    "exception": "the program raised (while loading, or in a method)",
    "contract": "the program returned a value the contract does not allow",
    "timeout": "a call ran past its deadline",
    "crash": "the worker died (a memory or CPU limit, a signal) or broke the protocol",
    "policy": "the program breaks the restricted policy (the worker refused to load it)",
    "missing": "the environment has no such method (hint, solution)",
    "broken": "the instance failed earlier and was used again before reset()",
    "lost": "the instance's worker restarted (or a batch-mate broke it); reset() re-creates it",
    "sandbox": "the sandbox (a pool or a Ray actor) failed around the program",
    "action": "the player's action was refused before it reached the program (too long)",
    "protocol": "the worker refused a request (a second program, a malformed request)",
    "quarantined": "the pool's watchdog stopped the program: it slowed past its budget, or its "
    "probe replay changed, as it ran (spadegym.sandbox.watchdog)",
}
"""Every ``ProgramErrorKind`` with what it means."""


RESERVED_INFO_KEYS: tuple[str, ...] = (
    "error",
    "episode_outcome",
    "episode_turns",
    "final_info",
    "final_observation",
)
"""Info keys that spadegym's wrappers (``ProgramEnv``, ``EnvBatch``) write; programs may not."""
