"""The numbers, lists and rules of the environment program contract (v1.2), in one place.

``docs/CONTRACT.md`` is the prose; this module is what the policy, the sandbox, the
validator, the memory and the designer prompt read, so that none of them can drift from the
others.
"""

from __future__ import annotations

import ast
import math
from collections.abc import Iterable
from typing import Any, Literal, TypeGuard

from spadegym.errors import ConfigError, SpadegymError

CONTRACT_VERSION = "1.2"

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


def is_difficulty(value: object) -> TypeGuard[int]:
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
    return value


# --------------------------------------------------------------------------------------------
# Which class is the environment (section 1).


def check_max_turns(turns: object, fix: str = "") -> int:
    """``turns`` as a turn limit; a ``SpadegymError`` naming the range (and ``fix``) if not."""
    if isinstance(turns, bool) or not isinstance(turns, int) or not MIN_TURNS <= turns <= MAX_TURNS:
        raise SpadegymError(
            f"max_turns={turns!r}: the program must set an int max_turns in "
            f"{MIN_TURNS}..{MAX_TURNS}{fix}."
        )
    return turns


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


# --------------------------------------------------------------------------------------------
# Scoring: the outcome of an episode, "solved", regret and the chance-adjusted win rate.
# Validation, evaluation, the memory's statistics, the dataset and the trainer's rewards all
# read these, so a win means the same thing everywhere.

SOLVED_OUTCOME = 1.0
"""The outcome of a solved episode (section 3): the last reward of a terminated episode."""

_SOLVED_TOLERANCE = 1e-9
"""Outcomes are floats that crossed JSON; this much below 1.0 still counts as solved."""


def is_solved(outcome: float | None) -> bool:
    """Whether an episode outcome counts as solved (1.0, within float rounding)."""
    return outcome is not None and outcome >= SOLVED_OUTCOME - _SOLVED_TOLERANCE


def clip_reward(value: Any) -> float:
    """A reward or outcome as a float in ``[-1, 1]``; anything not finite counts as 0."""
    try:
        number = float(value)
    except (TypeError, ValueError):
        return 0.0
    return max(REWARD_MIN, min(REWARD_MAX, number)) if math.isfinite(number) else 0.0


def episode_outcome(
    reward: float, terminated: bool, info: dict[str, Any], num_players: int, mover: int = 0
) -> Any:
    """The contract's outcome of an episode that ended on this step.

    One player: the last reward if the episode terminated, else 0.0. Two players: ``[0.0, 0.0]``
    unless the game terminated; then the program's ``info["outcome"]`` (``[r0, r1]``) when it
    gives a well-formed one, else the mover's reward and its negation (zero-sum). Values are
    clipped to ``[-1, 1]``, anything not finite counting as 0.

    Args:
        reward: the last step's reward (the mover's, in a two-player game).
        terminated: whether the program ended the episode.
        info: the last step's info.
        num_players: 1 or 2.
        mover: the seat that made the last move (two-player games).
    """
    if num_players != 2:
        return clip_reward(reward) if terminated else 0.0
    if not terminated:
        return [0.0, 0.0]
    outcome = info.get("outcome")
    if isinstance(outcome, list) and len(outcome) == 2:
        return [clip_reward(outcome[0]), clip_reward(outcome[1])]
    mine = clip_reward(reward)
    return [mine, -mine] if mover == 0 else [-mine, mine]


def as_win_rate(outcome: float, num_players: int) -> float:
    """An outcome on the win-rate scale: two-player results in [-1, 1] become (r + 1) / 2."""
    return (outcome + 1.0) / 2.0 if num_players == 2 else outcome


def regret(hint_rate: float, plain_rate: float) -> float:
    """SPADE's regret: how much better the solver does with the hint, never below 0."""
    return max(0.0, hint_rate - plain_rate)


def chance_adjusted(win_rate: float, floor: float | None) -> float:
    """A win rate read against the environment's chance floor: ``(win - floor) / (1 - floor)``.

    The floor is the best score of the cheap shortcut solvers validation plays (a random
    listed option, a number copied from the observation, ...). 0 means no better than the
    best shortcut, 1 means always solved; below 0 means worse than the shortcut. A floor of
    ``None`` (not measured, two-player games) reads the rate as it is; a floor of 1 or more
    leaves nothing to learn, so every rate reads 0.

    Args:
        win_rate: the mean outcome (win-rate scale).
        floor: the environment's chance floor, in ``[0, 1]``, or ``None``.
    """
    if floor is None:
        return win_rate
    floor = max(0.0, floor)
    if floor >= 1.0 - _SOLVED_TOLERANCE:
        return 0.0
    return (win_rate - floor) / (1.0 - floor)


def environment_kind(num_players: int | None, tool_env: bool) -> str:
    """The kind of an environment (``KINDS``) from what loading it tells."""
    if num_players == 2:
        return "two_player"
    return "tool" if tool_env else "puzzle"
