"""``evaluate`` and ``spadegym eval``: scripted solvers whose win rates are known in advance, so
the outcomes, the regret and the memory's statistics can be checked exactly; and a tiny random
``TransformersChat`` to show a real backend runs through the same path."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from sample_programs import example_registry

from spadegym.cli import main
from spadegym.evaluation import HINT_PREFIX, evaluate
from spadegym.memory import EnvironmentMemory, HashingEmbedder
from spadegym.registry import Registry

# One-player examples whose first observation differs by seed, so a solver can tell them apart.
PUZZLES = ("spade/IceMaze-v0", "spade/SequenceStreak-v0", "spade/BankSettlement-v0")
EPISODES = 3


pytestmark = pytest.mark.usefixtures("isolated_spadegym")


@pytest.fixture(scope="module")
def root(tmp_path_factory) -> Path:
    return example_registry(tmp_path_factory.mktemp("eval") / "registry")


@pytest.fixture(scope="module")
def solutions(root) -> dict[str, list[str]]:
    """First observation -> the winning replies, for every seed the evaluation plays."""
    table = {}
    registry = Registry(root)
    for env_id in PUZZLES:
        env = registry.get(env_id).make()
        try:
            for seed in range(EPISODES):
                obs, _ = env.reset(seed=seed)
                table[obs] = env.solution()
        finally:
            env.close()
    return table


class Scripted:
    """Plays the known solution; with ``needs_hint`` only when the hint is shown."""

    name = "scripted"

    def __init__(self, solutions: dict[str, list[str]], needs_hint: bool = False):
        self.solutions = solutions
        self.needs_hint = needs_hint
        self.requests: list[list[dict]] = []

    def complete(self, messages, n=1):
        self.requests.append([dict(m) for m in messages])
        first = messages[1]["content"]
        hinted = HINT_PREFIX in first
        moves = self.solutions.get(first.split(HINT_PREFIX)[0])
        turn = sum(m["role"] == "assistant" for m in messages)
        if moves is None or (self.needs_hint and not hinted) or turn >= len(moves):
            return ["I am not sure. \\boxed{}"]
        return [f"Let me think. {moves[turn]}"]


@pytest.fixture
def memory(tmp_path):
    pytest.importorskip("faiss")
    with EnvironmentMemory(tmp_path / "memory", HashingEmbedder()) as mem:
        yield mem


def test_a_solver_that_knows_the_solutions_wins_everything_with_zero_regret(
    root, solutions, memory
):
    report = evaluate(Scripted(solutions), PUZZLES, episodes=EPISODES, roots=[root], memory=memory)
    assert [e.env_id for e in report.envs] == list(PUZZLES)
    for env in report.envs:
        assert env.plain == [1.0] * EPISODES and env.hinted == [1.0] * EPISODES
        assert env.regret == 0.0 and env.solved == 1.0
        stats = memory.stats(env.env_id)
        assert (stats.n_plain, stats.n_hint, stats.win_rate, stats.hint_win_rate, stats.regret) == (
            EPISODES,
            EPISODES,
            1.0,
            1.0,
            0.0,
        )
    assert report.overall()["win_rate_plain"] == 1.0
    assert len(report.episodes) == 2 * EPISODES * len(PUZZLES)
    assert sorted({e.seed for e in report.episodes}) == list(range(EPISODES))


def test_a_solver_that_needs_the_hint_has_regret_one(root, solutions, memory):
    report = evaluate(
        Scripted(solutions, needs_hint=True),
        PUZZLES,
        episodes=EPISODES,
        roots=[root],
        memory=memory,
    )
    for env in report.envs:
        assert env.win_rate_plain == 0.0 and env.win_rate_hint == 1.0 and env.regret == 1.0
        assert memory.stats(env.env_id).regret == 1.0
        assert memory.stats(env.env_id).win_rate == 0.0
    overall = report.overall()
    assert (overall["envs"], overall["regret"], overall["plain_plays"], overall["hint_plays"]) == (
        3,
        1.0,
        3 * EPISODES,
        3 * EPISODES,
    )
    assert set(report.per_skill()) == {e.skill for e in report.envs}
    assert all(s["regret"] == 1.0 for s in report.per_skill().values())
    # A second run adds to the memory's history: statistics are over all plays.
    evaluate(Scripted(solutions), PUZZLES[:1], episodes=EPISODES, roots=[root], memory=memory)
    stats = memory.stats(PUZZLES[0])
    assert (stats.n_plain, stats.win_rate, stats.hint_win_rate) == (2 * EPISODES, 0.5, 1.0)
    assert stats.regret == pytest.approx(0.5)
    data = json.loads(json.dumps(report.to_dict()))
    assert data["envs"][0]["regret"] == 1.0 and data["model"] == "scripted"


def test_the_hint_is_appended_to_the_first_observation_and_the_chat_is_multi_turn(root, solutions):
    llm = Scripted(solutions)
    evaluate(llm, ["IceMaze"], episodes=1, roots=[root])
    env = Registry(root).get("IceMaze").make()
    obs, _ = env.reset(seed=0)
    hint = env.hint()
    env.close()
    firsts = {r[1]["content"] for r in llm.requests}
    assert firsts == {obs, obs + HINT_PREFIX + hint}
    assert all(r[0]["role"] == "system" and "\\boxed{" in r[0]["content"] for r in llm.requests)
    longest = max(llm.requests, key=len)
    assert [m["role"] for m in longest[1:]] == ["user", "assistant"] * (len(longest) // 2 - 1) + [
        "user"
    ]
    assert len(longest) > 3  # the episode took several turns, one chat


def test_two_player_games_are_reported_apart_and_kept_out_of_the_memory(root, solutions, memory):
    report = evaluate(
        Scripted(solutions), kind="two_player", episodes=2, roots=[root], memory=memory
    )
    (game,) = report.envs
    assert game.env_id == "spade/Nim-v0" and game.two_player
    assert report.two_player == [game] and report.one_player == []
    # The scripted solver answers a game with an empty \boxed{}: seat 0 moves first and loses.
    assert game.plain == [-1.0, -1.0]
    assert "spade/Nim-v0" not in memory
    assert "two-player game (self-play)" in report.table()


def test_settings_are_checked(root, solutions):
    from spadegym.errors import ConfigError

    with pytest.raises(ConfigError, match="hint='sometimes'"):
        evaluate(Scripted(solutions), PUZZLES, hint="sometimes", roots=[root])
    with pytest.raises(ConfigError, match="episodes=0"):
        evaluate(Scripted(solutions), PUZZLES, episodes=0, roots=[root])
    with pytest.raises(ConfigError, match="IceMase"):
        evaluate(Scripted(solutions), ["IceMase"], roots=[root])


def test_a_tiny_random_transformers_model_plays_through_the_same_path(root, memory):
    pytest.importorskip("torch")
    tokenizers = pytest.importorskip("tokenizers")
    transformers = pytest.importorskip("transformers")
    import torch

    from spadegym.llm import TransformersChat

    words = ["<unk>", "<pad>", "<eos>", *"\\boxed{ } up down left right 1 2 3 move".split()]
    raw = tokenizers.Tokenizer(
        tokenizers.models.WordLevel({w: k for k, w in enumerate(words)}, unk_token="<unk>")
    )
    raw.pre_tokenizer = tokenizers.pre_tokenizers.WhitespaceSplit()
    tokenizer = transformers.PreTrainedTokenizerFast(
        tokenizer_object=raw, unk_token="<unk>", pad_token="<pad>", eos_token="<eos>"
    )
    torch.manual_seed(0)
    model = transformers.LlamaForCausalLM(
        transformers.LlamaConfig(
            vocab_size=len(words),
            hidden_size=16,
            intermediate_size=32,
            num_hidden_layers=1,
            num_attention_heads=2,
            num_key_value_heads=2,
            max_position_embeddings=8192,
            pad_token_id=1,
            eos_token_id=2,
            bos_token_id=2,
        )
    )
    llm = TransformersChat(model, tokenizer, max_new_tokens=6, seed=0, name="hf:tiny-random")
    report = evaluate(llm, ["SequenceStreak"], episodes=1, roots=[root], memory=memory)
    (env,) = report.envs
    assert len(env.plain) == 1 and len(env.hinted) == 1
    assert all(-1.0 <= o < 1.0 for o in env.plain + env.hinted)  # random tokens do not win
    assert memory.stats("spade/SequenceStreak-v0").plays == 2
    assert report.model == "hf:tiny-random"


def test_the_command_prints_the_tables_and_writes_the_memory(
    root, solutions, tmp_path, monkeypatch, capsys
):
    pytest.importorskip("faiss")
    import spadegym.llm

    monkeypatch.setattr(
        spadegym.llm, "llm_from_spec", lambda spec, **settings: Scripted(solutions, needs_hint=True)
    )
    mem = tmp_path / "cli-memory"
    EnvironmentMemory(mem, HashingEmbedder()).close()  # the command reopens it by its config
    code = main(
        [
            "eval",
            "--llm",
            "openai:scripted",
            "--root",
            str(root),
            "--ids",
            *PUZZLES,
            "--episodes",
            "2",
            "--memory",
            str(mem),
            "--quiet",
        ]
    )
    out = capsys.readouterr().out
    assert code == 0
    assert "spade/IceMaze-v0" in out and "overall" in out and "regret" in out
    assert f"statistics written to {mem}" in out
    with EnvironmentMemory(mem) as memory:
        assert memory.stats("spade/IceMaze-v0").regret == 1.0

    code = main(
        [
            "eval",
            "--llm",
            "openai:scripted",
            "--root",
            str(root),
            "--ids",
            "IceMaze",
            "--episodes",
            "1",
            "--no-memory",
            "--json",
            "--hint",
            "none",
        ]
    )
    data = json.loads(capsys.readouterr().out)
    assert code == 0 and data["envs"][0]["hinted"] == [] and data["memory_path"] is None


def test_the_command_refuses_replay_backends_and_unknown_ids(root, capsys, monkeypatch):
    assert main(["eval", "--llm", "replay:x.jsonl", "--root", str(root)]) == 2
    assert "solver model" in capsys.readouterr().err
    import spadegym.llm

    monkeypatch.setattr(spadegym.llm, "llm_from_spec", lambda spec, **s: Scripted({}))
    assert (
        main(["eval", "--llm", "openai:x", "--root", str(root), "--ids", "NoSuch", "--no-memory"])
        == 2
    )
    assert "NoSuch" in capsys.readouterr().err
