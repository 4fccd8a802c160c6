from __future__ import annotations

import warnings
from pathlib import Path

import pytest
import yaml

from spadegym.errors import ConfigError
from spadegym.validation import ValidationConfig
from spadegym_train.cli import main
from spadegym_train.config import (
    FLAT_KEYS,
    PPOConfig,
    TrainConfig,
    field_names,
    load_config,
    parse_override,
    to_dict,
)
from spadegym_train.presets import PRESETS

SAVED_FLAT = Path(__file__).parent / "data" / "saved_config_flat.yaml"


def test_precedence_preset_then_file_then_overrides(tmp_path):
    path = tmp_path / "run.yaml"
    path.write_text("preset: tiny-cpu\nplay:\n  plays_per_env: 3\niterations: 7\n")
    config = load_config(path, overrides=["iterations=5", "rewards.designer_reward=regret"])
    assert config.model.name == "random"  # from the preset
    assert config.play.plays_per_env == 3  # from the file, as a nested mapping
    assert config.iterations == 5  # the override wins
    assert config.rewards.designer_reward == "regret"


def test_a_file_may_use_dotted_keys(tmp_path):
    path = tmp_path / "run.yaml"
    path.write_text("ppo.epochs: 1\nvalidation.sandbox.call_timeout: 3\n")
    config = load_config(path, preset="tiny-cpu")
    assert config.ppo.epochs == 1 and config.validation.sandbox.call_timeout == 3.0


def test_override_values_are_read_as_yaml():
    assert parse_override("lora.target_modules=[q_proj, v_proj]") == (
        "lora.target_modules",
        ["q_proj", "v_proj"],
    )
    assert parse_override("ppo.kl-coef=0.005") == ("ppo.kl_coef", 0.005)


@pytest.mark.parametrize(
    ("override", "nearest"),
    [
        ("plays_per_envs=3", "'play.plays_per_env'"),
        ("validation.fuzz_example=3", "'validation.fuzz_examples'"),
        ("ppo.lerning_rate=1e-4", "'ppo.learning_rate'"),
        ("play.plays=3", "'evaluation.plays'"),
    ],
)
def test_unknown_key_names_the_nearest_keys(override, nearest):
    with pytest.raises(ConfigError, match="is not a TrainConfig field. Did you mean") as caught:
        load_config(preset="tiny-cpu", overrides=[override])
    assert repr(override.partition("=")[0]) in str(caught.value)
    assert nearest in str(caught.value)


def test_a_group_needs_a_mapping_or_a_dotted_key():
    with pytest.raises(ConfigError, match=r"ppo is a group of settings; .*\(ppo.<field>=...\)"):
        load_config(overrides=["ppo=3"])


def test_unknown_preset_lists_the_presets():
    presets = "qwen3-0.6b-4bit, qwen3-4b-4bit, small-cpu, small-cpu-spade, tiny-cpu"
    with pytest.raises(ConfigError, match=presets):
        load_config(preset="huge")


@pytest.mark.parametrize(
    ("values", "message"),
    [
        ({"mode": "selfplay"}, "mode='selfplay' is not supported"),
        ({"model.name": "random"}, "needs a model_type"),
        ({"play.plays_per_env": 0}, "play.plays_per_env=0 must be at least 1"),
        ({"generation.temperature": 0.0}, "greedy decoding"),
        ({"rewards.rae_decay": 1.0}, "SPIRAL uses 0.95"),
        ({"validation.seeds": 1}, "validation: seeds=1: at least 2 are needed"),
        ({"validation.sandbox.call_timeout": 0}, "validation.sandbox: call_timeout=0.0 must be"),
        ({"dedup.code_copy": 2.0}, r"dedup: DedupConfig.code_copy=2.0 must lie in \[0, 1\]"),
        ({"sandbox.memory_mb": 64}, "sandbox: memory_mb=64 is too small"),
    ],
)
def test_checks_name_the_setting(values, message):
    with pytest.raises(ConfigError, match=message):
        load_config(overrides=values)


def test_the_library_configs_are_settable_in_full():
    config = load_config(
        preset="tiny-cpu",
        overrides=[
            "validation.fuzz_examples=20",
            "validation.total_budget=30",
            "validation.difficulties=[1, 2]",
            "validation.sandbox.call_timeout=3",
            "sandbox.call_timeout=2.5",
            "dedup.code_copy=0.9",
        ],
    )
    assert config.validation.fuzz_examples == 20 and config.validation.total_budget == 30.0
    assert config.validation.difficulties == (1, 2)  # a list becomes the tuple it takes
    # The rest of validation's own sandbox keeps validation's defaults, not the sandbox's.
    assert config.validation.sandbox.call_timeout == 3.0
    assert config.validation.sandbox.load_timeout == ValidationConfig().sandbox.load_timeout
    assert config.sandbox.call_timeout == 2.5 and config.dedup.code_copy == 0.9
    assert to_dict(config)["validation"]["difficulties"] == [1, 2]  # plain for YAML


def test_cli_prints_the_resolved_config(capsys):
    assert main(["--preset", "tiny-cpu", "--print-config", "iterations=3"]) == 0
    printed = yaml.safe_load(capsys.readouterr().out)
    assert printed["iterations"] == 3 and printed["model"]["name"] == "random"
    assert printed["validation"]["fuzz_examples"] == 10


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
        ("ppo.learning_rate=fast", "ppo.learning_rate='fast' is not a valid value"),
        (
            "design.skills=[1, 2]",
            "design.skills=[1, 2] is not a valid value: design.skills takes list[str].",
        ),
        ("design.difficulty=9", 'must be a difficulty 1..5, a list of them, or "random"'),
        (
            "play.hint_source=model",
            "play.hint_source='model' is not supported; use one of hinter, program",
        ),
        ("validation.fuzz_examples=many", "validation.fuzz_examples='many' is not a valid"),
    ],
)
def test_cli_bad_values_are_one_line_errors(capsys, override, message):
    assert main(["--preset", "tiny-cpu", override]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1 and "Traceback" not in err


def test_defaults_follow_spade():
    config = TrainConfig()
    assert config.ppo.epochs == 2 and config.rewards.invalid_reward == 0.0
    assert config.play.hint_source == "hinter" and config.play.hint_plays == "regeneration"
    assert config.design.difficulty == 3 and config.design.attempts == 3
    assert TrainConfig(mode="fixed").play.hint_source == "program"
    # ints are fine where floats are
    assert TrainConfig(ppo=PPOConfig(learning_rate=1)).ppo.learning_rate == 1.0
    assert load_config().validation == ValidationConfig()  # the library's own defaults


def test_cli_says_where_the_run_lives_and_when_it_is_complete(tmp_path, capsys):
    workspace = tmp_path / "run"
    args = ["--preset", "tiny-cpu", "iterations=1", f"workspace={workspace}"]
    args += ["evaluation.interval=0", "logging.console=false", "logging.tensorboard=false"]
    args += ["mode=fixed", "pool.size=1", "play.plays_per_env=1"]
    assert main(args) == 0
    assert f"starting; workspace {workspace}" in capsys.readouterr().out
    assert main(args) == 0
    assert "is already complete (1 of 1 iterations)" in capsys.readouterr().out
    # The run's saved config.yaml is a config file that gives the same run back.
    assert load_config(workspace / "config.yaml") == load_config(
        preset="tiny-cpu", overrides=args[2:]
    )


@pytest.mark.parametrize("text", ["1e-3", "1E-3", "+1e-3", "0.001"])
def test_a_float_written_without_a_dot_is_a_number(text, tmp_path):
    # YAML 1.1 (PyYAML) reads 1e-3 as text, on the command line and in a config file alike.
    config = load_config(preset="tiny-cpu", overrides=[f"ppo.learning_rate={text}"])
    assert config.ppo.learning_rate == 1e-3
    path = tmp_path / "run.yaml"
    path.write_text(f"ppo:\n  learning_rate: {text}\n")
    assert load_config(path, preset="tiny-cpu").ppo.learning_rate == 1e-3


def test_designer_prompt_and_hint_temperature_are_checked():
    with pytest.raises(ConfigError, match="design.prompt='tiny' is not supported"):
        load_config(preset="tiny-cpu", overrides={"design.prompt": "tiny"})
    with pytest.raises(ConfigError, match="generation.hint_temperature=0.0 must be positive"):
        load_config(preset="tiny-cpu", overrides={"generation": {"hint_temperature": 0.0}})
    config = load_config()
    assert config.rewards.chance_adjusted and config.generation.hint_temperature == 0.3
    spade = load_config(preset="small-cpu-spade")
    assert spade.play.hint_plays == "regeneration" and spade.design.prompt == "short"
    assert spade.pool.regen_interval == 1 and len(spade.design.scripted) == 3


# -- the flat names of the release before the groups ----------------------------------------


def test_flat_names_still_work_with_a_warning_naming_the_dotted_key():
    with pytest.warns(FutureWarning, match="learning_rate -> ppo.learning_rate") as caught:
        old = load_config(
            preset="tiny-cpu",
            overrides=["learning_rate=1e-4", "plays_per_env=3", "model=random", "fuzz_examples=7"],
        )
    assert "plays_per_env -> play.plays_per_env" in str(caught[0].message)
    assert "fuzz_examples -> validation.fuzz_examples" in str(caught[0].message)
    new = load_config(
        preset="tiny-cpu",
        overrides=[
            "ppo.learning_rate=1e-4",
            "play.plays_per_env=3",
            "model.name=random",
            "validation.fuzz_examples=7",
        ],
    )
    assert old == new


def test_a_run_config_saved_by_the_older_release_still_loads():
    with pytest.warns(FutureWarning, match="saved_config_flat.yaml: flat TrainConfig keys"):
        config = load_config(SAVED_FLAT)
    assert config.mode == "fixed" and config.iterations == 40
    assert config.workspace == "runs/old-run" and config.model.name == "Qwen/Qwen3-0.6B"
    assert config.ppo.learning_rate == 1e-5 and config.model.load_in_4bit
    assert config.model.chat_template_kwargs == {"enable_thinking": False}
    assert config.play.hint_source == "program" and config.validation.fuzz_examples == 50
    assert config.generation.batch_size == 96 and config.lora.r == 16


def test_the_presets_are_written_in_dotted_keys():
    for name in PRESETS:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            load_config(preset=name)


def test_every_flat_name_leads_to_a_key():
    keys = set(field_names())
    assert "validation.sandbox.call_timeout" in keys and "ppo.learning_rate" in keys
    assert set(FLAT_KEYS.values()) <= keys


def test_replace_reaches_into_groups_and_checks():
    config = load_config(preset="tiny-cpu")
    control = config.replace({"ppo.learning_rate": 0.0, "play": {"plays_per_env": 5}}, seed=3)
    assert control.ppo.learning_rate == 0.0 and control.play.plays_per_env == 5
    assert control.seed == 3 and control.model == config.model
    assert config.ppo.learning_rate == 1e-3  # the original is untouched
    with pytest.raises(ConfigError, match="play.plays_per_env=0 must be at least 1"):
        config.replace({"play.plays_per_env": 0})
