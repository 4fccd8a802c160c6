from __future__ import annotations

from pathlib import Path

import pytest

from spadegym.llm.base import LLMError
from spadegym.play import (
    ChatSolver,
    EpisodeSpec,
    HintRequest,
    Reply,
    ScriptedSolver,
    as_win_rate,
    play_episodes,
    solver_messages,
    solver_system_prompt,
)
from spadegym.sandbox import SandboxPool

ROOT = Path(__file__).resolve().parent.parent
NIM = (ROOT / "examples" / "good" / "nim.py").read_text()
LOCK = (ROOT / "examples" / "good" / "lock_pick.py").read_text()


class Scripted:
    """A solver that answers from a list of replies in turn and keeps what it was asked."""

    def __init__(self, replies):
        self.replies = list(replies)
        self.requests: list[list[dict]] = []

    def respond(self, requests):
        out = []
        for messages in requests:
            self.requests.append(messages)
            out.append(Reply(self.replies.pop(0) if self.replies else "\\boxed{}"))
        return out

    def prompt(self, k: int) -> str:
        return "\n".join(m["content"] for m in self.requests[k])


@pytest.fixture(scope="module")
def pool():
    with SandboxPool(2) as pool:
        yield pool


def _play(pool, specs, replies, history_turns=1, hinter=None):
    solver = Scripted(replies)
    return play_episodes(specs, pool, solver, history_turns=history_turns, hinter=hinter), solver


def test_one_player_truncation_scores_zero_and_the_hint_goes_on_the_first_observation(pool):
    spec = EpisodeSpec("lock", LOCK, seed=3, hint="Try 123.", max_turns=2)
    (episode,), solver = _play(pool, [spec], ["\\boxed{000}", "\\boxed{111}"])
    assert episode.outcome == [0.0] and episode.steps == 2 and episode.hinted
    assert "HINT: Try 123." in solver.prompt(0)
    assert "\\boxed{000}" in solver.prompt(1)  # history_turns=1 keeps the last exchange
    assert solver.requests[0][0] == {"role": "system", "content": solver_system_prompt("puzzle")}


def test_program_hint_is_asked_for_each_instance(pool):
    spec = EpisodeSpec("lock", LOCK, seed=3, max_turns=1, hint_source="program")
    (episode,), solver = _play(pool, [spec], ["\\boxed{000}"])
    assert episode.hinted and "HINT: Change one digit" in solver.prompt(0)


def test_the_hinter_reads_the_program_the_first_observation_and_the_solution(pool):
    asked: list[HintRequest] = []

    def hinter(requests):
        asked.extend(requests)
        return ["Watch the count." if r.solution else None for r in requests]

    specs = [
        EpisodeSpec("lock", LOCK, seed=3, max_turns=1, hint_source="hinter"),
        EpisodeSpec("nim", NIM, seed=1, max_turns=1, hint_source="hinter"),
    ]
    (lock, nim), solver = _play(pool, specs, ["\\boxed{000}"], hinter=hinter)
    assert [r.source for r in asked] == [LOCK, NIM]
    assert asked[0].first_observation in solver.prompt(0) and len(asked[0].solution) >= 1
    assert asked[1].solution is None  # a two-player game has no solution()
    assert lock.hint == "Watch the count." and "HINT: Watch the count." in solver.prompt(0)
    # No hint could be had for nim: its hint play is dropped, never played plain.
    assert nim.dropped == "no hint" and nim.steps == 0 and len(solver.requests) == 1


def test_two_player_illegal_move_ends_the_game_for_the_mover(pool):
    specs = [EpisodeSpec("nim", NIM, seed=s, max_turns=10) for s in (1, 2)]
    episodes, _ = _play(pool, specs, ["\\boxed{99 1}", "\\boxed{99 1}"])
    for episode in episodes:
        assert episode.num_players == 2 and episode.kind == "two_player"
        assert episode.outcome == [-1.0, 1.0]  # player 0 moves first in nim.py and loses
        assert episode.win_rate == 0.0  # (-1 + 1) / 2
        assert [t.seat for t in episode.turns] == [0]


def test_two_player_seats_alternate_and_each_sees_the_rules(pool):
    spec = EpisodeSpec("nim", NIM, seed=5, max_turns=2, hint="XOR the heaps.")
    (episode,), solver = _play(pool, [spec], ["\\boxed{1 1}", "\\boxed{1 1}"])
    assert [t.seat for t in episode.turns] == [0, 1]
    assert episode.outcome in ([0.0, 0.0], [1.0, -1.0], [-1.0, 1.0])
    assert "HINT: XOR" in solver.prompt(0) and "HINT" not in solver.prompt(1)
    assert "Nim" in solver.prompt(1)  # the second seat's first message opens with the rules
    assert solver.requests[0][0]["content"] == solver_system_prompt("two_player")


def test_a_broken_program_ends_its_episode_with_its_error(pool):
    spec = EpisodeSpec("broken", "class BrokenEnv:\n    pass\n", seed=0)
    (episode,), solver = _play(pool, [spec], [])
    assert episode.error is not None and episode.outcome == [0.0] and not solver.requests


def test_a_scripted_solver_plays_its_actions_and_turns_keep_what_each_step_answered(pool):
    handle = pool.open(LOCK)
    handle.reset(seed=3)
    solution = handle.solution()
    pool.release(handle)
    spec = EpisodeSpec("lock", LOCK, seed=3, max_turns=3)
    (episode,) = play_episodes([spec], pool, ScriptedSolver(["\\boxed{}", *solution]))
    assert episode.outcome == [1.0] and [t.reply.text for t in episode.turns] == [
        "\\boxed{}",
        *solution,
    ]
    first, last = episode.turns
    assert first.reward == 0.0 and "three digits" in first.observation
    assert last.reward == 1.0 and last.observation


def test_a_scripted_solver_that_runs_out_replies_empty_with_an_error():
    solver = ScriptedSolver(["a"])
    assert solver.respond([[], []]) == [
        Reply("a"),
        Reply("", error="the scripted actions ran out"),
    ]


def test_solver_messages_keep_the_first_observation_and_the_last_exchanges():
    talk = [{"role": r, "content": str(k)} for k, r in enumerate("uauauau")]
    kept = solver_messages("tool", talk, 1)
    assert kept[0]["content"] == solver_system_prompt("tool")
    assert [m["content"] for m in kept[1:]] == ["0", "4", "5", "6"]
    assert [m["content"] for m in solver_messages("tool", talk, None)[1:]] == list("0123456")
    assert [m["content"] for m in solver_messages("tool", talk, 0)[1:]] == ["0", "6"]


def test_two_player_outcomes_become_win_rates():
    assert as_win_rate(-1.0, 2) == 0.0 and as_win_rate(1.0, 2) == 1.0 and as_win_rate(0.0, 2) == 0.5
    assert as_win_rate(-1.0, 1) == -1.0  # a one-player penalty stays what it is


def test_chat_solver_turns_a_failed_call_into_an_empty_reply_with_its_error():
    class Flaky:
        def complete(self, messages, n=1):
            if "fail" in messages[-1]["content"]:
                raise LLMError("server down")
            return ["\\boxed{1}"]

    solver = ChatSolver(Flaky(), concurrency=2)
    try:
        ok, bad = solver.respond(
            [[{"role": "user", "content": "x"}], [{"role": "user", "content": "fail"}]]
        )
    finally:
        solver.close()
    assert ok == Reply("\\boxed{1}") and bad.text == "" and "server down" in bad.error
    assert solver.errors == 1
