"""The numbers and lists of the environment program contract (v1), in one place.

``shared/CONTRACT.md`` is the prose; this module is what the policy, the sandbox, the
validator and the designer prompt read, so that none of them can drift from the others.
"""

from __future__ import annotations

CONTRACT_VERSION = "1"

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
    "spadegym.program": "extract_boxed, parse_tool_calls and ToolEnv",
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

RESERVED_INFO_KEYS: tuple[str, ...] = (
    "error",
    "episode_outcome",
    "episode_turns",
    "final_info",
    "final_observation",
)
"""Info keys that spadegym's wrappers (``ProgramEnv``, ``EnvBatch``) write; programs may not."""
