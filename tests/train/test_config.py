from __future__ import annotations

import pytest

from spadegym.errors import ConfigError
from spadegym_train.cli import main
from spadegym_train.config import TrainConfig, load_config, parse_override


def test_precedence_preset_then_file_then_overrides(tmp_path):
    path = tmp_path / "run.yaml"
    path.write_text("preset: tiny-cpu\nplays_per_env: 3\niterations: 7\n")
    config = load_config(path, overrides=["iterations=5", "designer_reward=regret"])
    assert config.model == "random"  # from the preset
    assert config.plays_per_env == 3  # from the file
    assert config.iterations == 5  # the override wins
    assert config.designer_reward == "regret"


def test_override_values_are_read_as_yaml():
    assert parse_override("lora_target_modules=[q_proj, v_proj]") == (
        "lora_target_modules",
        ["q_proj", "v_proj"],
    )
    assert parse_override("kl-coef=0.005") == ("kl_coef", 0.005)


def test_unknown_key_names_the_nearest_field():
    with pytest.raises(ConfigError, match="Did you mean 'plays_per_env'"):
        load_config(preset="tiny-cpu", overrides=["plays_per_envs=3"])


def test_unknown_preset_lists_the_presets():
    presets = "qwen3-0.6b-4bit, qwen3-4b-4bit, small-cpu, small-cpu-spade, tiny-cpu"
    with pytest.raises(ConfigError, match=presets):
        load_config(preset="huge")


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"mode": "selfplay"}, "mode='selfplay' is not supported"),
        ({"model": "random"}, "needs a model_type"),
        ({"plays_per_env": 0}, "plays_per_env=0 must be at least 1"),
        ({"temperature": 0.0}, "greedy decoding"),
        ({"rae_decay": 1.0}, "SPIRAL uses 0.95"),
    ],
)
def test_cross_field_checks(fields, message):
    with pytest.raises(ConfigError, match=message):
        TrainConfig(**fields)


def test_cli_prints_the_resolved_config(capsys):
    assert main(["--preset", "tiny-cpu", "--print-config", "iterations=3"]) == 0
    out = capsys.readouterr().out
    assert "iterations: 3" in out and "model: random" in out


def test_cli_reports_config_errors(capsys):
    assert main(["--preset", "tiny-cpu", "--print-config", "nonsense=1"]) == 2
    assert "'nonsense' is not a TrainConfig field" in capsys.readouterr().err


def test_cli_accepts_overrides_anywhere(capsys):
    assert main(["iterations=3", "--preset", "tiny-cpu", "mode=fixed", "--print-config"]) == 0
    out = capsys.readouterr().out
    assert "iterations: 3" in out and "mode: fixed" in out


@pytest.mark.parametrize(
    ("override", "message"),
    [
        ("iterations=abc", "iterations='abc' is not a valid value: iterations takes int."),
        ("learning_rate=fast", "learning_rate='fast' is not a valid value"),
        ("skills=[1, 2]", "skills=[1, 2] is not a valid value: skills takes list[str]."),
        ("designer_difficulty=9", 'must be a difficulty 1..5, a list of them, or "random"'),
        ("hint_source=model", "hint_source='model' is not supported; use one of hinter, program"),
    ],
)
def test_cli_bad_values_are_one_line_errors(capsys, override, message):
    assert main(["--preset", "tiny-cpu", override]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1 and "Traceback" not in err


def test_defaults_follow_spade():
    config = TrainConfig()
    assert config.ppo_epochs == 2 and config.invalid_reward == 0.0
    assert config.hint_source == "hinter" and config.hint_plays == "regeneration"
    assert config.designer_difficulty == 3 and config.design_attempts == 3
    assert TrainConfig(mode="fixed").hint_source == "program"
    assert TrainConfig(learning_rate=1).learning_rate == 1.0  # ints are fine where floats are


def test_cli_says_where_the_run_lives_and_when_it_is_complete(tmp_path, capsys):
    workspace = tmp_path / "run"
    args = ["--preset", "tiny-cpu", "iterations=1", f"workspace={workspace}", "eval_interval=0"]
    args += ["console=false", "tensorboard=false", "mode=fixed", "pool_size=1", "plays_per_env=1"]
    assert main(args) == 0
    assert f"starting; workspace {workspace}" in capsys.readouterr().out
    assert main(args) == 0
    assert "is already complete (1 of 1 iterations)" in capsys.readouterr().out


@pytest.mark.parametrize("text", ["1e-3", "1E-3", "+1e-3", "0.001"])
def test_a_float_written_without_a_dot_is_a_number(text, tmp_path):
    # YAML 1.1 (PyYAML) reads 1e-3 as text, on the command line and in a config file alike.
    assert load_config(preset="tiny-cpu", overrides=[f"learning_rate={text}"]).learning_rate == 1e-3
    path = tmp_path / "run.yaml"
    path.write_text(f"learning_rate: {text}\n")
    assert load_config(path, preset="tiny-cpu").learning_rate == 1e-3


def test_text_is_still_not_a_float():
    with pytest.raises(ConfigError, match="learning_rate='fast' is not a valid value"):
        load_config(preset="tiny-cpu", overrides=["learning_rate=fast"])


def test_designer_prompt_and_hint_temperature_are_checked():
    from spadegym.errors import ConfigError
    from spadegym_train.config import load_config

    with pytest.raises(ConfigError, match="designer_prompt='tiny' is not supported"):
        load_config(preset="tiny-cpu", overrides={"designer_prompt": "tiny"})
    with pytest.raises(ConfigError, match="hint_temperature=0.0 must be positive"):
        load_config(preset="tiny-cpu", overrides={"hint_temperature": 0.0})
    config = load_config()
    assert config.chance_adjusted_rewards and config.hint_temperature == 0.3
    spade = load_config(preset="small-cpu-spade")
    assert spade.hint_plays == "regeneration" and spade.designer_prompt == "short"
    assert spade.regen_interval == 1 and len(spade.scripted_designer) == 3
