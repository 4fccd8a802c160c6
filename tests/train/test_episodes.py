from __future__ import annotations

from pathlib import Path

import pytest

from spadegym.sandbox import SandboxPool
from spadegym_train.engines.base import Completion
from spadegym_train.episodes import EpisodeSpec, play_episodes
from spadegym_train.tokenizer import char_tokenizer

ROOT = Path(__file__).resolve().parent.parent.parent
NIM = (ROOT / "examples" / "good" / "nim.py").read_text()
LOCK = (ROOT / "examples" / "good" / "lock_pick.py").read_text()


class Scripted:
    """An engine that answers from a list of replies in turn and keeps the prompts."""

    def __init__(self, tokenizer, replies):
        self.tokenizer = tokenizer
        self.replies = list(replies)
        self.prompts: list[str] = []

    def generate(self, prompts, role, max_new_tokens):
        out = []
        for prompt in prompts:
            self.prompts.append(self.tokenizer.decode(prompt))
            text = self.replies.pop(0) if self.replies else "\\boxed{}"
            out.append(Completion(list(prompt), self.tokenizer.encode(text), text))
        return out


@pytest.fixture(scope="module")
def pool():
    with SandboxPool(2) as pool:
        yield pool


def _play(pool, specs, replies, history_turns=1):
    tokenizer = char_tokenizer()
    engine = Scripted(tokenizer, replies)
    episodes = play_episodes(
        specs,
        pool,
        engine,
        tokenizer,
        max_prompt_tokens=4000,
        max_new_tokens=8,
        history_turns=history_turns,
    )
    return episodes, engine


def test_one_player_truncation_scores_zero_and_the_hint_goes_on_the_first_observation(pool):
    spec = EpisodeSpec("lock", LOCK, seed=3, hint="Try 123.", max_turns=2)
    (episode,), engine = _play(pool, [spec], ["\\boxed{000}", "\\boxed{111}"])
    assert episode.outcome == [0.0] and episode.steps == 2 and episode.hinted
    assert "HINT: Try 123." in engine.prompts[0]
    assert "\\boxed{000}" in engine.prompts[1]  # history_turns=1 keeps the last exchange


def test_program_hint_is_asked_for_each_instance(pool):
    spec = EpisodeSpec("lock", LOCK, seed=3, use_program_hint=True, max_turns=1)
    (episode,), engine = _play(pool, [spec], ["\\boxed{000}"])
    assert episode.hinted and "HINT: Change one digit" in engine.prompts[0]


def test_two_player_illegal_move_ends_the_game_for_the_mover(pool):
    specs = [EpisodeSpec("nim", NIM, seed=s, max_turns=10, num_players=2) for s in (1, 2)]
    episodes, engine = _play(pool, specs, ["\\boxed{99 1}", "\\boxed{99 1}"])
    for episode in episodes:
        assert episode.outcome == [-1.0, 1.0]  # player 0 moves first in nim.py and loses
        assert [t.seat for t in episode.turns] == [0]


def test_two_player_seats_alternate_and_each_sees_the_rules(pool):
    spec = EpisodeSpec("nim", NIM, seed=5, max_turns=2, num_players=2, hint="XOR the heaps.")
    (episode,), engine = _play(pool, [spec], ["\\boxed{1 1}", "\\boxed{1 1}"])
    assert [t.seat for t in episode.turns] == [0, 1]
    assert episode.outcome in ([0.0, 0.0], [1.0, -1.0], [-1.0, 1.0])
    assert "HINT: XOR" in engine.prompts[0] and "HINT" not in engine.prompts[1]
    assert "Nim" in engine.prompts[1]  # the second seat's first message opens with the rules
