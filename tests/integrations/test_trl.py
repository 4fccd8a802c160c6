"""The TRL adapter: environments GRPOTrainer drives through tool calls, and single-turn data."""

from __future__ import annotations

import pytest

pytest.importorskip("trl")
pytest.importorskip("torch")

from spadegym.env import ProgramEnv  # noqa: E402
from spadegym.errors import SpadegymError  # noqa: E402
from spadegym.evaluation import solver_system_prompt  # noqa: E402
from spadegym.integrations import trl as spade_trl  # noqa: E402
from spadegym.integrations.programs import resolve  # noqa: E402


def solution(env_id: str, seed: int) -> list[str]:
    env = ProgramEnv(resolve(env_id)[0].source)
    try:
        env.reset(seed=seed)
        return env.solution()
    finally:
        env.close()


def test_an_environment_plays_a_row_through_act_and_owns_its_reward(spade_ids):
    factory = spade_trl.environment_factory([spade_ids["lock"], spade_ids["clock"]])
    try:
        rows = factory.dataset(4, seed=7)
        assert rows[0]["prompt"][0] == {
            "role": "system",
            "content": solver_system_prompt("puzzle") + "\n\n" + spade_trl.TOOL_NOTE,
        }
        assert [r["env_id"] for r in rows] == [spade_ids["lock"], spade_ids["clock"]] * 2
        env = factory()
        row = rows[0]
        first = env.reset(**row)
        assert first == "A 3-digit lock. Guess with \\boxed{ddd}."
        assert env.get_reward() == 0.0
        assert "digit(s) in the right place" in env.act("\\boxed{000}") or env.get_reward() == 1
        (answer,) = solution(row["env_id"], row["seed"])
        assert env.act(answer) == "Click. The lock opens.\n\n(The episode is over.)"
        assert env.get_reward() == 1.0
        assert env.act(answer) == "(The episode is over.) Do not call act again."
        # The same object plays the next row, another environment.
        assert "clock face" in env.reset(**rows[1])
        assert env.act("no idea").endswith("(The episode is over.)")
        assert env.get_reward() == 0.0
    finally:
        factory.close()


def test_without_a_dataset_instances_draw_ids_in_turn_with_the_system_prompt(spade_ids):
    factory = spade_trl.environment_factory([spade_ids["lock"], spade_ids["clock"]], hint=True)
    try:
        a, b = factory(), factory()
        text = a.reset(prompt=[{"role": "user", "content": ""}])
        assert text.startswith(spade_trl.system_prompt("puzzle") + "\n\nA 3-digit lock.")
        assert text.endswith("\n\nHINT: Change one digit at a time and watch the count.")
        assert "clock face" in b.reset(prompt=[{"role": "user", "content": ""}])
    finally:
        factory.close()


def test_act_is_the_only_tool_and_its_schema_reads_well(spade_ids):
    import inspect

    from transformers.utils import get_json_schema

    factory = spade_trl.environment_factory(spade_ids["lock"])
    try:
        env = factory()
        public = [
            name
            for name, _ in inspect.getmembers(type(env), predicate=inspect.isfunction)
            if not name.startswith("_")
        ]
        assert public == ["act", "get_reward", "reset"]
        schema = get_json_schema(env.act)["function"]
        assert schema["name"] == "act"
        assert schema["parameters"]["properties"]["reply"]["type"] == "string"
        assert schema["parameters"]["required"] == ["reply"]
    finally:
        factory.close()


def test_two_player_games_and_foreign_rows_are_refused(spade_ids):
    with pytest.raises(SpadegymError, match="spade/Nim-v0 is a two-player game, and the TRL"):
        spade_trl.environment_factory([spade_ids["nim"]])
    factory = spade_trl.environment_factory(spade_ids["lock"])
    try:
        with pytest.raises(SpadegymError, match="a row asks for 'spade/ClockShift-v0', which"):
            factory().reset(env_id=spade_ids["clock"], seed=0)
    finally:
        factory.close()


def test_single_turn_dataset_and_its_reward(spade_ids):
    rows = spade_trl.single_turn_dataset([spade_ids["clock"]], size=3, seed=1)
    assert rows[0]["prompt"][0]["content"] == solver_system_prompt("puzzle")
    assert "clock face" in rows[0]["prompt"][1]["content"]
    columns = {k: rows[k] for k in ("env_id", "seed", "difficulty", "sha256")}
    completions = [[{"role": "assistant", "content": f"So: {a}"}] for a in rows["answer"]]
    completions[1] = [{"role": "assistant", "content": "\\boxed{-3}"}]
    assert spade_trl.outcome_reward(completions, **columns) == [1.0, 0.0, 1.0]


def tiny_scripted_model(tokenizer, script):
    """A random 1-layer Qwen3 whose ``generate`` replays ``script(turn, position)``.

    ``turn`` counts the tool results a prompt already holds; ``position`` is its row in the
    batch being generated.
    """
    import torch
    from transformers import AutoConfig, Qwen3ForCausalLM

    class Scripted(Qwen3ForCausalLM):
        def generate(self, input_ids=None, attention_mask=None, **kwargs):
            rows = []
            for position, ids in enumerate(input_ids):
                text = script(tokenizer.decode(ids).count("<tool_response>"), position)
                rows.append(tokenizer(text, add_special_tokens=False)["input_ids"])
            width = max(len(r) for r in rows)
            rows = [r + [tokenizer.pad_token_id] * (width - len(r)) for r in rows]
            return torch.cat([input_ids, torch.tensor(rows)], dim=1)

    config = AutoConfig.for_model(
        "qwen3",
        vocab_size=len(tokenizer),
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=1,
        num_attention_heads=2,
        num_key_value_heads=1,
        head_dim=16,
        max_position_embeddings=4096,
        pad_token_id=tokenizer.pad_token_id,
        eos_token_id=tokenizer.eos_token_id,
        bos_token_id=None,
    )
    torch.manual_seed(0)
    return Scripted(config)


def tool_call(reply: str) -> str:
    import json

    arguments = json.dumps({"name": "act", "arguments": {"reply": reply}})
    return f"<tool_call>\n{arguments}\n</tool_call><|im_end|>"


def test_grpo_trainer_runs_one_step_on_a_multi_turn_environment(spade_ids, tmp_path, monkeypatch):
    monkeypatch.setenv("TRL_EXPERIMENTAL_SILENCE", "1")
    from trl import GRPOConfig, GRPOTrainer
    from trl.chat_template_utils import qwen3_chat_template

    from spadegym_train.tokenizer import char_tokenizer

    factory = spade_trl.environment_factory(spade_ids["lock"], seed=5)
    rows = factory.dataset(1)
    (answer,) = solution(rows[0]["env_id"], rows[0]["seed"])
    wrong = "\\boxed{999}" if answer != "\\boxed{999}" else "\\boxed{000}"
    tokenizer = char_tokenizer()
    tokenizer.chat_template = qwen3_chat_template
    # The first rollout guesses wrong, then plays the solution; the second gives up at once.
    turns = [tool_call(wrong), tool_call(answer), "Done.<|im_end|>"]
    give_up = "I give up.<|im_end|>"
    model = tiny_scripted_model(
        tokenizer, lambda turn, position: give_up if (turn, position) == (0, 1) else turns[turn]
    )
    args = GRPOConfig(
        output_dir=str(tmp_path / "out"),
        per_device_train_batch_size=2,
        num_generations=2,
        max_completion_length=512,
        max_steps=1,
        learning_rate=1e-3,
        report_to="none",
        use_cpu=True,
        save_strategy="no",
        logging_steps=1,
        bf16=False,
        disable_tqdm=True,
    )
    before = [p.detach().clone() for p in model.parameters()]
    try:
        trainer = GRPOTrainer(
            model=model,
            args=args,
            train_dataset=rows,
            processing_class=tokenizer,
            environment_factory=factory,
        )
        trainer.train()
    finally:
        factory.close()
    (log, _) = trainer.state.log_history
    assert log["tools/call_frequency"] == 1.0  # two calls over two rollouts
    assert log["tools/failure_frequency"] == 0.0
    assert log["rewards/RolloutEnvironment/mean"] == 0.5  # solved once, given up once
    assert trainer.state.global_step == 1
    changed = [not p.detach().equal(b) for p, b in zip(model.parameters(), before, strict=True)]
    assert any(changed), "the step should move the weights (the two rewards differ)"


def scripted_text_model(tokenizer, script):
    """A random 1-layer Qwen3 whose ``generate`` replays ``script(turn, position)`` as replies.

    ``turn`` counts the replies a context already holds (its user turns, less the first).
    """
    import torch

    model = tiny_scripted_model(tokenizer, lambda turn, position: "")

    def generate(input_ids=None, attention_mask=None, max_new_tokens=None, **kwargs):
        rows = []
        for position, ids in enumerate(input_ids):
            turn = tokenizer.decode(ids).count("<|im_start|>user") - 1
            text = script(turn, position)
            rows.append(tokenizer(text, add_special_tokens=False)["input_ids"][:max_new_tokens])
        width = max(len(r) for r in rows)
        rows = [r + [tokenizer.pad_token_id] * (width - len(r)) for r in rows]
        return torch.cat([input_ids, torch.tensor(rows, dtype=input_ids.dtype)], dim=1)

    model.generate = generate
    return model


def test_a_template_without_tool_calls_plays_text_turns(spade_ids):
    from spadegym.integrations.text_turns import play_text_episodes
    from spadegym_train.tokenizer import char_tokenizer

    tokenizer = char_tokenizer()
    assert spade_trl.turns_for(tokenizer) == "text"
    factory = spade_trl.environment_factory(spade_ids["lock"], seed=5)
    try:
        rows = factory.dataset(2, turns="text")
        assert rows[0]["prompt"][0]["content"] == solver_system_prompt("puzzle")
        (answer,) = solution(rows[0]["env_id"], rows[0]["seed"])
        wrong = "\\boxed{999}" if answer != "\\boxed{999}" else "\\boxed{000}"
        replies = [wrong + "<|im_end|>", answer + "<|im_end|>"]
        # Row 0 plays first while both play; after it wins, row 1 plays alone (position 0).
        model = scripted_text_model(
            tokenizer,
            lambda turn, position: replies[turn] if (position, turn < 2) == (0, True) else "no",
        )
        environments = [factory(), factory()]
        played = play_text_episodes(
            model, tokenizer, environments, list(rows["prompt"]), budget=300, max_turns=4
        )
    finally:
        factory.close()
    won, lost = played
    prompt = tokenizer.decode(won.prompt_ids)
    assert prompt.endswith(
        "A 3-digit lock. Guess with \\boxed{ddd}.<|im_end|>\n<|im_start|>assistant\n"
    )
    assert (won.outcome, won.turns, won.replies) == (1.0, 2, [wrong, answer])
    text = tokenizer.decode(won.completion_ids)
    model_part = tokenizer.decode([t for t, m in zip(won.completion_ids, won.env_mask) if m])
    game_part = tokenizer.decode([t for t, m in zip(won.completion_ids, won.env_mask) if not m])
    assert model_part == replies[0] + replies[1]
    assert game_part.startswith("\n<|im_start|>user\n") and "digit(s) in the right place" in text
    assert game_part.endswith("<|im_end|>\n<|im_start|>assistant\n")
    # The other rollout never finds the code: four replies, then it stops, and scores 0.
    assert (lost.outcome, lost.turns) == (0.0, 4)
    assert len(lost.completion_ids) == len(lost.env_mask) <= 300


def test_text_turns_stop_at_the_token_budget(spade_ids):
    from spadegym.integrations.text_turns import play_text_episodes
    from spadegym_train.tokenizer import char_tokenizer

    tokenizer = char_tokenizer()
    factory = spade_trl.environment_factory(spade_ids["lock"], seed=1)
    try:
        rows = factory.dataset(1, turns="text")
        model = scripted_text_model(tokenizer, lambda turn, position: "\\boxed{123}" * 9)
        (played,) = play_text_episodes(
            model, tokenizer, [factory()], list(rows["prompt"]), budget=60, reply_tokens=20
        )
    finally:
        factory.close()
    assert len(played.completion_ids) <= 60 and played.outcome == 0.0
    assert played.replies[0] == ("\\boxed{123}" * 2)[:20]


def test_a_text_turn_prompt_without_its_instance_is_refused(spade_ids):
    from spadegym.integrations.text_turns import instance_of

    factory = spade_trl.environment_factory(spade_ids["lock"])
    try:
        rows = factory.dataset(1)  # tool rows carry no instance
        with pytest.raises(SpadegymError, match="make the dataset with factory.dataset"):
            instance_of(rows[0]["prompt"])
        with pytest.raises(SpadegymError, match="turns='both': write 'tools' or 'text'"):
            factory.dataset(1, turns="both")
    finally:
        factory.close()


def test_grpo_trainer_trains_text_turns_on_a_cpu(spade_ids, tmp_path, monkeypatch):
    monkeypatch.setenv("TRL_EXPERIMENTAL_SILENCE", "1")
    from trl import GRPOConfig, GRPOTrainer

    from spadegym_train.tokenizer import char_tokenizer

    tokenizer = char_tokenizer()
    factory = spade_trl.environment_factory(spade_ids["lock"], seed=5)
    inputs = factory.trainer_inputs(tokenizer, rows=1, max_turns=3)
    assert sorted(inputs) == ["reward_funcs", "rollout_func", "train_dataset"]
    row = inputs["train_dataset"][0]
    (answer,) = solution(row["env_id"], row["seed"])
    # The first rollout wins at its second reply; the second never finds the code.
    replies = ["\\boxed{999}<|im_end|>", answer + "<|im_end|>"]
    model = scripted_text_model(
        tokenizer,
        lambda turn, position: replies[turn] if (position, turn < 2) == (0, True) else "no",
    )
    args = GRPOConfig(
        output_dir=str(tmp_path / "out"),
        per_device_train_batch_size=2,
        num_generations=2,
        max_completion_length=256,
        max_steps=1,
        learning_rate=1e-3,
        report_to="none",
        save_strategy="no",
        logging_steps=1,
        disable_tqdm=True,
        use_cpu=True,  # the scripted model answers with CPU tensors
        bf16=False,
    )
    before = [p.detach().clone() for p in model.parameters()]
    try:
        trainer = GRPOTrainer(model=model, args=args, processing_class=tokenizer, **inputs)
        trainer.train()
    finally:
        factory.close()
    (log, _) = trainer.state.log_history
    assert log["rewards/spade_outcome/mean"] == 0.5
    changed = [not p.detach().equal(b) for p, b in zip(model.parameters(), before, strict=True)]
    assert any(changed), "the step should move the weights (the two rewards differ)"


def test_machine_settings_make_a_grpo_config_this_machine_accepts(tmp_path):
    import torch
    from trl import GRPOConfig

    settings = spade_trl.machine_settings()
    if not torch.cuda.is_available():
        assert settings == {"use_cpu": True, "bf16": False}
    GRPOConfig(output_dir=str(tmp_path), report_to="none", **settings)


def test_load_model_reads_a_folder_through_the_model_resolver(tmp_path):
    import torch
    from transformers import AutoConfig, AutoModelForCausalLM

    from spadegym.errors import ConfigError
    from spadegym_train.tokenizer import char_tokenizer

    tokenizer = char_tokenizer()
    config = AutoConfig.for_model(
        "llama",
        vocab_size=len(tokenizer),
        hidden_size=16,
        intermediate_size=32,
        num_hidden_layers=1,
        num_attention_heads=2,
        pad_token_id=tokenizer.pad_token_id,
        eos_token_id=tokenizer.eos_token_id,
        bos_token_id=None,
    )
    AutoModelForCausalLM.from_config(config).save_pretrained(tmp_path / "m")
    tokenizer.save_pretrained(tmp_path / "m")
    for spec in (f"hf:{tmp_path / 'm'}", str(tmp_path / "m")):
        model, loaded = spade_trl.load_model(spec)
        assert model.dtype == torch.float32 and loaded.padding_side == "left"
        assert all(p.requires_grad for p in model.parameters())
    with pytest.raises(ConfigError, match="GGUF file 'nowhere.gguf' does not exist"):
        spade_trl.load_model("gguf:nowhere.gguf")
    with pytest.raises(ConfigError, match="hf: names no model"):
        spade_trl.load_model("hf:")


@pytest.mark.slow
def test_smollm2_loads_as_plain_trainable_weights():
    from spadegym.errors import ConfigError

    try:
        model, tokenizer = spade_trl.load_model("smollm2")
    except ConfigError as exc:
        pytest.skip(str(exc))
    assert getattr(model.config, "quantization_config", None) is None
    assert not getattr(model, "is_quantized", False)
    assert spade_trl.turns_for(tokenizer) == "text"  # its template has no tool calls
