"""Property-based fuzzing of ``step`` with hypothesis: any reply, and the env stays in contract.

The strategy mixes what players really send (boxed answers, numbers, tool calls, the program's
own solution moves slightly broken) with arbitrary text. Runs are derandomised from a seed, so
the same program gets the same verdict every time, and no example database is written.
"""

from __future__ import annotations

import time
from typing import Any

from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import seed as hypothesis_seed
from hypothesis import strategies as st

from spadegym.errors import ProgramError
from spadegym.sandbox import ProgramInfo
from spadegym.sandbox.pool import Worker


def action_strategy(moves: list[str]) -> st.SearchStrategy[str]:
    """Replies a fuzzer plays: arbitrary, boxed, numeric, tool-call shaped, or near-solutions."""
    text = st.text(max_size=40)
    boxed = text.map(lambda s: "\\boxed{" + s + "}")
    numbers = st.integers(-10**12, 10**12).map(lambda n: "\\boxed{" + str(n) + "}")
    floats = st.floats(allow_nan=True, allow_infinity=True).map(lambda f: "\\boxed{" + str(f) + "}")
    tool = st.fixed_dictionaries({"name": st.text(max_size=12),
                                  "arguments": st.dictionaries(st.text(max_size=8),
                                                               st.integers() | st.text(max_size=8),
                                                               max_size=3)}).map(
        lambda call: "<tool_call>" + _json(call) + "</tool_call>")
    broken_tool = st.sampled_from(["<tool_call>{not json}</tool_call>", "<tool_call></tool_call>",
                                   "<answer></answer>", "<tool_call>[1, 2]</tool_call>",
                                   '<tool_call>{"name": 5}</tool_call>', "\\boxed{", "}{", "\\boxed{{}"])
    long = st.integers(1000, 20000).map(lambda n: "x" * n)
    options = [text, boxed, numbers, floats, tool, broken_tool, long]
    if moves:
        move = st.sampled_from(moves)
        options += [move, st.tuples(move, st.integers(0, 20), st.characters()).map(_mutate)]
    return st.one_of(options)


def _json(value: Any) -> str:
    import json

    return json.dumps(value, ensure_ascii=False)


def _mutate(args: tuple[str, int, str]) -> str:
    move, position, char = args
    if not move:
        return char
    position %= len(move)
    return move[:position] + char + move[position + 1:]


def fuzz(worker: Worker, info: ProgramInfo, moves: list[str], examples: int, seed: int,
         max_turns: int) -> tuple[str | None, list[float]]:
    """Play ``examples`` random action sequences; the first failure as a sentence, and timings."""
    failure: list[str] = []
    timings: list[float] = []
    instance = worker.new(info.program)

    @hypothesis_seed(seed)
    @settings(max_examples=examples, database=None, derandomize=False, deadline=None,
              phases=(Phase.explicit, Phase.generate), suppress_health_check=list(HealthCheck),
              print_blob=False)
    @given(st.integers(0, 9), st.lists(action_strategy(moves), min_size=1,
                                       max_size=min(4, max_turns)))
    def run(episode_seed: int, actions: list[str]) -> None:
        if failure:
            return
        turn, action = 0, ""
        try:
            started = time.perf_counter()
            worker.reset(instance, episode_seed, None)
            timings.append(time.perf_counter() - started)
            for turn, action in enumerate(actions, 1):
                started = time.perf_counter()
                result = worker.step(instance, action)
                timings.append(time.perf_counter() - started)
                if result.terminated or result.truncated:
                    break
        except ProgramError as exc:
            if turn == 0:
                failure.append(f"Seed {episode_seed}: reset() failed: {exc}")
                return
            shown = action if len(action) <= 80 else action[:80] + "..."
            failure.append(f"Seed {episode_seed}, turn {turn}: step({shown!r}) failed: {exc} "
                           "step() must answer any reply, explaining what was wrong.")

    run()
    try:
        worker.close_instance(instance)
    except ProgramError:
        pass
    return (failure[0] if failure else None), timings
