"""Property-based fuzzing of ``step`` with hypothesis: any reply, and the env stays in contract.

The strategy mixes what players really send (boxed answers, numbers, tool calls, the program's
own solution moves slightly broken) with arbitrary text. Runs are derandomised from a seed, so
the same program gets the same verdict every time, and no example database is written.
"""

from __future__ import annotations

import functools
import json
from typing import Any

from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import seed as hypothesis_seed
from hypothesis import strategies as st

from spadegym.util import compat
from spadegym.validation.context import Context
from spadegym.validation.episodes import ScriptedEpisode

# Examples are drawn as templates once per process (hypothesis's engine costs far more than a
# validation's stepping) and filled with each program's own solution moves when played.
Template = tuple[Any, ...]

MAX_FUZZ_TURNS = 4
"""Replies per fuzzed episode, at most (fewer when a program's ``max_turns`` is lower)."""


def template_strategy() -> st.SearchStrategy[Template]:
    """Replies a fuzzer plays: arbitrary, boxed, numeric, tool-call shaped, or near-solutions."""
    text = st.text(max_size=40)
    boxed = text.map(lambda s: "\\boxed{" + s + "}")
    numbers = st.integers(-(10**12), 10**12).map(lambda n: "\\boxed{" + str(n) + "}")
    floats = st.floats(allow_nan=True, allow_infinity=True).map(lambda f: "\\boxed{" + str(f) + "}")
    tool = st.fixed_dictionaries(
        {
            "name": st.text(max_size=12),
            "arguments": st.dictionaries(
                st.text(max_size=8), st.integers() | st.text(max_size=8), max_size=3
            ),
        }
    ).map(lambda call: "<tool_call>" + json.dumps(call, ensure_ascii=False) + "</tool_call>")
    broken = st.sampled_from(
        [
            "",
            " ",
            "\n",
            "\\boxed{}",
            "\\boxed{ }",
            "<tool_call>{not json}</tool_call>",
            "<tool_call></tool_call>",
            "<answer></answer>",
            "<tool_call>[1, 2]</tool_call>",
            '<tool_call>{"name": 5}</tool_call>',
            "\\boxed{",
            "}{",
            "\\boxed{{}",
            "\\boxed{\\boxed{1}}",
            "<answer>\\boxed{}</answer>",
        ]
    )
    long = st.integers(1000, 20000).map(lambda n: "x" * n)
    literal = st.one_of(text, boxed, numbers, floats, tool, broken, long).map(lambda s: ("text", s))
    move = st.integers(0, 19).map(lambda i: ("move", i))
    mutated = st.tuples(st.integers(0, 19), st.integers(0, 40), st.characters()).map(
        lambda t: ("mutate", *t)
    )
    return st.one_of(literal, literal, move, mutated)


def materialise(template: Template, moves: list[str]) -> str:
    """The reply a template stands for, given the program's solution moves."""
    if template[0] == "text":
        return str(template[1])
    if not moves:
        return ""
    move: str = moves[template[1] % len(moves)]
    if template[0] == "move" or not move:
        return move
    position: int
    char: str
    _, _, position, char = template  # ("mutate", move index, position, char)
    position %= len(move)
    return move[:position] + char + move[position + 1 :]


@functools.lru_cache(maxsize=16)
def draw_templates(
    examples: int, seed: int, max_len: int
) -> tuple[tuple[int, tuple[Any, ...]], ...]:
    """``examples`` (episode seed, templates) pairs, the same for the same arguments."""
    drawn: list[tuple[int, tuple[Any, ...]]] = []

    @hypothesis_seed(seed)
    @settings(
        max_examples=examples,
        database=None,
        derandomize=False,
        deadline=None,
        phases=(Phase.generate,),
        suppress_health_check=list(HealthCheck),
        print_blob=False,
    )
    @given(st.integers(0, 9), st.lists(template_strategy(), min_size=1, max_size=max_len))
    def collect(episode_seed: int, templates: list[Template]) -> None:
        if len(drawn) < examples:
            drawn.append((episode_seed, tuple(templates)))

    # Hypothesis parses source (to describe lambdas) while it draws: hold the AST lock.
    with compat.AST_LOCK:
        collect()
    return tuple(drawn)


def fuzz(ctx: Context) -> str | None:
    """Play random action sequences, all at once in lockstep; the first failure as a sentence.

    The near-solutions are made from the solution moves the ``solvable`` check played.
    """
    examples, max_turns = ctx.config.fuzz_examples, ctx.max_turns
    if examples <= 0:
        return None
    moves = sorted({a for e in ctx.solved for a in (e.solution or [])})[:20]
    episodes = [
        ScriptedEpisode(seed=s, actions=[materialise(t, moves) for t in templates])
        for s, templates in draw_templates(
            examples, ctx.config.fuzz_seed, min(MAX_FUZZ_TURNS, max_turns)
        )
    ]
    ctx.play(episodes, max_turns)
    for episode in episodes:
        if episode.error is not None:
            return (
                f"Seed {episode.seed}: {episode.error_during} failed: {episode.error} "
                "step() must answer any reply, explaining what was wrong."
            )
    return None
