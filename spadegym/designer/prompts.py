"""The designer's prompts, in the project's own words: design, repair, and hint-writer.

The contract's rules in the design prompt are generated from ``spadegym.contract``, the same
numbers the validator enforces, so the prompt and the checks cannot drift apart. Everything
here is pure text building: no model, no memory, no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from spadegym import contract
from spadegym.errors import ConfigError
from spadegym.llm.base import Message
from spadegym.policy.names import SPECIAL_METHODS

__all__ = [
    "DIFFICULTY_LEVELS",
    "HINT_MARKER",
    "KIND_NOTES",
    "SKILL_IDEAS",
    "Example",
    "contract_rules",
    "design_messages",
    "hint_messages",
    "repair_messages",
]

SKILL_IDEAS: dict[str, str] = {
    "Mathematical_Reasoning": "arithmetic under constraints, number theory, building a target "
    "value from parts, exact fractions and ratios, counting and probability, measurement",
    "Logical_Deduction": "hidden information narrowed down by questions or tests, constraint "
    "satisfaction, who-did-what grids, truth-tellers and liars, ordering from clues",
    "Spatial_Reasoning": "grids and mazes, sliding and rotating pieces, packing, paths on maps, "
    "moving several objects that block each other, mirror and symmetry puzzles",
    "Pattern_Recognition": "hidden rules behind sequences or classifications, learning a rule "
    "from feedback, codes and ciphers, rules that switch and must be re-found",
    "Optimization": "scheduling, budgets and knapsacks, routes and flows, trade-offs between "
    "competing goals, where a greedy choice loses to a planned one",
    "Causal_Inference": "a hidden system of causes probed by interventions, diagnosing a fault "
    "from tests, separating correlation from effect, delayed and indirect effects",
}
"""Concept ideas for each of the six SPADE skills, shown in the design prompt."""

DIFFICULTY_LEVELS: dict[int, str] = {
    1: "a warm-up: a small state and a plan of a few moves",
    2: "easy: a small state, a plan of several moves, one idea to find",
    3: "moderate: a state the player must track carefully and a plan with real choices",
    4: "hard: a larger state, a longer plan, and a tempting move that turns out wrong",
    5: "very hard: a large state, long plans, and several ideas that must be combined",
}
"""What each designer difficulty (1..5) asks for."""

KIND_NOTES: dict[str, str] = {
    "puzzle": "A one-player game or puzzle. The player answers every turn inside \\boxed{...}; "
    "extract it with extract_boxed(action) from spadegym.program.",
    "tool": "A one-player tool-use task. Subclass ToolEnv (from spadegym.program), declare "
    '`tools` as a list of function specs ({"name", "description", "parameters"} in JSON '
    "schema form), write one method tool_<name>(self, **arguments) per tool, plus reset, "
    "solution and check(self, answer) -> float. Do not write step: the base class runs each "
    '<tool_call>{"name": ..., "arguments": {...}}</tool_call> block of a reply through your '
    "tool methods and sends an <answer>...</answer> block to check, which ends the episode. A "
    "tool reports a mistake by raising an exception with a clear message; the player sees it. "
    "check judges the answer and the state the tool calls left. The first observation lists "
    "the tools (self.describe_tools() gives them as JSON lines) and how to call them.",
    "two_player": "A two-player zero-sum game for self-play. Set num_players = 2. After reset "
    'and after every step, info["player"] is the player to act (0 or 1). When the game ends, '
    'info["outcome"] = [r0, r1] with r0 + r1 == 0. The reward of a step is that of the '
    "player who moved. An illegal or unreadable move ends the game at once as a loss for the "
    "player who made it. No solution() is needed; the game must be one where better play "
    "wins more often.",
}
"""How each kind of environment (contract section 6) is written."""

HINT_MARKER = "You write hints for text games."
"""The first line of the hint-writer's system message; replay backends recognise it."""

_DESIGN_SYSTEM = (
    "You design environments for reinforcement learning of language models: small Python "
    "programs in which a player, another language model, acts over several turns and is "
    "rewarded when it wins. You write complete, working programs that follow the contract "
    "exactly."
)

_GOOD_GAME = """\
What makes a good multi-turn environment:
- The state changes with every action, and the observation shows the change.
- There are at least two meaningfully different actions, and choosing among them matters.
- Optimal play wins in about half to three quarters of max_turns; random play loses.
- Every observation shows the state, the result of the last action, the actions available
  now and exactly how to write them, and the progress so far (turn, score, what is left).
- Win and loss are clear: reward 1.0 with terminated=True on a win, 0.0 with terminated=True
  on a loss, 0.0 on intermediate steps. Partial credit in (0, 1) at the end is allowed.
- The instance comes from the seed: different seeds give different puzzles of the same kind.
- Information is hidden where the game needs it (a code, a rule, a map) and revealed by play.

Patterns that make bad environments, avoid them:
- guess-and-retry, where feedback barely narrows the answer;
- increment-to-target, where the same move repeated wins;
- a single reasonable action at every turn, or a game solved in 1-3 turns;
- a single-turn question wrapped in turns (the first reply decides everything);
- anything that needs input(), printing, files or the clock."""

_SKELETON = '''\
```python
import random

from spadegym.program import extract_boxed, read_difficulty


class ExampleEnv:
    """One-line title of the game.

    What the player must do and how answers are written, e.g. \\\\boxed{up}."""

    max_turns = 12
    skill = "Spatial_Reasoning"

    def reset(self, seed=None, options=None):
        self.rng = random.Random(seed)
        difficulty = read_difficulty(options)  # 1..5; 3 when absent
        # build the instance from self.rng only
        self.turn = 0
        return self.describe("A new game."), {}

    def step(self, action):
        self.turn += 1
        move = extract_boxed(action)
        if move is None or move not in ("a", "b"):
            return self.describe("Write one move in \\\\boxed{}."), 0.0, False, False, {}
        # apply the move, then decide win / loss
        return self.describe(f"You chose {move}."), 0.0, False, False, {}

    def describe(self, lead):
        return lead + "\\nState: ...\\nMoves: \\\\boxed{a} or \\\\boxed{b}."

    def solution(self):
        return ["\\\\boxed{a}", "\\\\boxed{b}"]   # replies that win, from the state after reset

    def hint(self):
        return "Think about which move keeps the most options open."
```'''


@dataclass(frozen=True)
class Example:
    """An existing environment shown in the design prompt.

    Attributes:
        env_id: its id.
        title: its title.
        skill: its skill tag.
        win_rate: mean plain outcome, when it has been played.
        regret: hint regret, when it has been played.
        code: the program (cut to ``code_chars``), or ``None`` to show only the title.
        why: for negative examples, what was wrong (``"too easy"``, ``"too hard"``).
    """

    env_id: str
    title: str
    skill: str = ""
    win_rate: float | None = None
    regret: float | None = None
    code: str | None = None
    why: str = ""


def contract_rules() -> str:
    """The contract's rules as a numbered list, built from ``spadegym.contract``."""
    imports = ", ".join(f"`{name}` ({why})" for name, why in contract.ALLOWED_IMPORTS.items())
    special = ", ".join(f"`{name}`" for name in SPECIAL_METHODS)
    rules = [
        "One Python module of at most "
        f"{contract.MAX_PROGRAM_BYTES // 1024} KiB defining exactly one public class whose name "
        "ends in `Env`. Helper functions and classes are fine. Module-level code only defines "
        "things.",
        "The class docstring is required: its first line is the title, the rest tells the "
        "player what to do and how answers are written.",
        f"`max_turns` is an int class attribute in {contract.MIN_TURNS}..{contract.MAX_TURNS}; "
        "the episode is cut off after that many steps. `skill` is a str class attribute.",
        "`__init__`, if you write one, works with no arguments.",
        "`reset(self, seed=None, options=None)` returns `(observation, info)`; `options` may be "
        f'`{{"difficulty": {contract.MIN_DIFFICULTY}..{contract.MAX_DIFFICULTY}}}`: read it '
        "with `read_difficulty(options)` from `spadegym.program` (it gives "
        f"{contract.DEFAULT_DIFFICULTY}, or `default=`, when the options carry none). Build "
        "the whole instance from `random.Random(seed)` there.",
        "`step(self, action)` gets the player's whole reply as a str and returns `(observation, "
        "reward, terminated, truncated, info)`.",
        f"`observation` is a str of at most {contract.MAX_OBSERVATION_CHARS} characters, never "
        "empty after reset, and tells the player everything needed to act: goal, state, "
        "action format. It never refers to an outside document.",
        f"`reward` is a finite number in [{contract.REWARD_MIN:g}, {contract.REWARD_MAX:g}]. "
        "The outcome of an episode is its last reward if it terminated, else 0; 1.0 means solved.",
        "`info` is a dict with str keys and JSON values, at most "
        f"{contract.MAX_INFO_BYTES // 1024} KiB as JSON.",
        "`solution(self)` (one-player games) returns the list of replies that wins the current "
        "instance when played in order from the state right after reset, with reward 1.0 and "
        f"terminated=True, within max_turns (and at most {contract.MAX_SOLUTION_STEPS} replies). "
        "Compute it from the instance; do not hard-code it.",
        f"`hint(self)` (optional) returns 1-3 sentences, under {contract.MAX_HINT_CHARS} "
        "characters, that nudge toward the method without giving the answer away.",
        "Deterministic: the same seed and the same replies give the same observations, rewards "
        "and infos. Never use the global random functions, time, id() or hash().",
        "Robust: step never raises on any reply (empty, nonsense, huge, malformed); it says what "
        "was wrong in the observation.",
        "Not trivial: an empty reply, an empty \\boxed{}, or random words repeated never win, "
        "and one seed's solution does not win most other seeds.",
        "No shortcut: a fixed word, a number or option copied from the observation, the first "
        "or last option, the observation echoed back, or a long reply must not win nearly every "
        "instance: never show the answer, shuffle options with the seeded generator, judge a "
        "reply's content and not its length. A random option may win by chance; the best "
        "shortcut's score is the game's chance floor, and a game rewards skill above it.",
        "Fast: reset and step finish well under a second.",
        f"Imports from this list only: {imports}.",
        "No files, network, processes, threads, clock, eval/exec, getattr/setattr, and no "
        "names or attributes beginning with an underscore, except the special methods "
        f"{special} and the namedtuple attributes `_replace`, `_asdict`, `_fields`; "
        "`type(self).__name__` reads a class's name.",
        "Build strings with f-strings or `+`; `.format` and `.format_map` are refused on every "
        "object (name your own methods otherwise). A literal brace inside an f-string is "
        'doubled ({{ or }}); or write "\\\\boxed{" + x + "}".',
    ]
    return "\n".join(f"{k}. {rule}" for k, rule in enumerate(rules, start=1))


def design_messages(
    skill: str,
    difficulty: int,
    document: str,
    *,
    kind: str = "puzzle",
    examples: Sequence[Example] = (),
    negative: Example | None = None,
    nearby: Sequence[Example] = (),
) -> list[Message]:
    """The first designer turn: write a new environment.

    Args:
        skill: one of the SPADE skills, or any free-text skill.
        difficulty: 1..5.
        document: the grounding document (already cut to the word budget).
        kind: ``"puzzle"``, ``"tool"`` or ``"two_player"``.
        examples: environments at the frontier (played, hint helps), shown as models.
        negative: one environment that was too easy or too hard, shown as a warning.
        nearby: existing environments close to the document, which the new one must not copy.

    Returns:
        The chat messages (system, user).

    Raises:
        ConfigError: an unknown kind or a difficulty outside 1..5.
    """
    if kind not in KIND_NOTES:
        raise ConfigError(f"kind {kind!r} is not one of {', '.join(KIND_NOTES)}.")
    contract.check_difficulty(difficulty)
    ideas = SKILL_IDEAS.get(skill)
    parts = [
        f"Write a new environment that trains the skill {skill}"
        + (f" ({ideas})." if ideas else ".")
        + f"\nKind: {KIND_NOTES[kind]}"
        + f"\nDifficulty {difficulty} of 5: {DIFFICULTY_LEVELS[difficulty]}. The program itself "
        'should also read options["difficulty"] (1..5) in reset and scale the instance.',
        "Ground the game in the document below: take a mechanism, a procedure, a set of facts "
        "or a kind of problem from it and turn it into play. The player never sees the "
        "document, so the observations must explain everything themselves; never write "
        '"according to the passage" or the like.\n'
        f"<REFERENCE_DOCUMENT>\n{document.strip()}\n</REFERENCE_DOCUMENT>",
        _GOOD_GAME,
        "The contract every program must follow (programs are checked against it "
        f"automatically):\n{contract_rules()}",
        f"The shape of a program:\n{_SKELETON}",
    ]
    if examples:
        shown = "\n\n".join(_example_text(e) for e in examples)
        parts.append(
            "Environments that trained well (the hint helps, the win rate is "
            f"moderate). Learn from their quality; do not copy them.\n\n{shown}"
        )
    if negative is not None:
        parts.append(
            "An environment that did not train well, "
            f"because it was {negative.why or 'badly balanced'}. Avoid its "
            f"mistake.\n\n{_example_text(negative)}"
        )
    if nearby:
        titles = "\n".join(f"- {e.title} ({e.env_id})" for e in nearby)
        parts.append(
            "These environments already exist near this document. Make something "
            f"clearly different (another mechanic, not a reskin):\n{titles}"
        )
    parts.append(
        "Before you answer, trace two different action sequences by hand from reset(seed=0) "
        "(the solution, and a plausible mistake) and check that the first wins and the second "
        "does not. Then give the complete program in one ```python block, and nothing after it."
    )
    return [
        {"role": "system", "content": _DESIGN_SYSTEM},
        {"role": "user", "content": "\n\n".join(parts)},
    ]


def _example_text(example: Example) -> str:
    facts = [f"skill {example.skill}"] if example.skill else []
    if example.win_rate is not None:
        facts.append(f"win rate {example.win_rate:.2f}")
    if example.regret is not None:
        facts.append(f"hint regret {example.regret:.2f}")
    head = f"### {example.title} ({example.env_id}; {', '.join(facts) or 'not played yet'})"
    if not example.code:
        return head
    return f"{head}\n```python\n{example.code.rstrip()}\n```"


_REPAIR = """\
Your program was checked automatically and was not accepted:
{feedback}

Fix every problem listed. Keep the game unless a problem shows that it cannot work; then \
change as little as needed. Send the complete corrected program in one ```python block."""


def repair_messages(design: Sequence[Message], reply: str, feedback: str) -> list[Message]:
    """A repair turn: the design conversation, the rejected reply, and what failed.

    Only the latest attempt is kept, so the conversation stays short however many repair
    turns there are; reasoning inside ``<think>`` is dropped from the reply for the same
    reason (chat templates drop it too).

    Args:
        design: the messages of the design turn.
        reply: the reply that failed.
        feedback: the failing checks' messages (``ValidationReport.feedback()``).
    """
    shown = _THINK.sub("", reply).strip() or reply
    return [
        *design,
        {"role": "assistant", "content": shown},
        {"role": "user", "content": _REPAIR.format(feedback=feedback.strip())},
    ]


_THINK = re.compile(r"<think(?:ing)?>.*?</think(?:ing)?>", re.DOTALL | re.IGNORECASE)

_HINT_SYSTEM = (
    f"{HINT_MARKER}\nYou read the source code of a game and write a short hint for a player "
    "who sees only the game's observations, never the code."
)

_HINT = """\
Here is the game:
```python
{program}
```
{instance}
Write a hint for {which}: 1-3 sentences, under {words} words and {chars} characters. Point \
at the approach that works (what to notice, what to try first, what to keep track of), not \
at the answer: never give values, moves, positions, codes or the solution of any instance, \
and never mention the code, variables, seeds or the hint itself. {scope} Reply with the \
hint alone, no preamble."""

_INSTANCE = """
The player has just been shown this first observation (the hint will be appended to it):
```text
{observation}
```
"""


def hint_messages(program: str, first_observation: str | None = None) -> list[Message]:
    """The hint-writer's request for ``program``.

    Args:
        program: the program's source (its ``hint()``, if any, is not asked for).
        first_observation: the instance the hint is for (SPADE's hinter writes per game;
            spadegym_train's per instance); ``None`` asks for a hint for every instance.
    """
    if first_observation is None:
        instance, which = "", "this game"
        scope = "Write only what applies to every instance of the game."
    else:
        instance = _INSTANCE.format(observation=first_observation.rstrip())
        which = "this instance"
        scope = "Speak only of what the player can see."
    return [
        {"role": "system", "content": _HINT_SYSTEM},
        {
            "role": "user",
            "content": _HINT.format(
                program=program.rstrip(),
                instance=instance,
                which=which,
                scope=scope,
                words=100,
                chars=contract.MAX_HINT_CHARS,
            ),
        },
    ]
