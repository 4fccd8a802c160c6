from __future__ import annotations

import pytest

from spadegym_train.engines.vllm import prune_adapters


def test_only_the_newest_adapter_folders_are_kept(tmp_path):
    saved = []
    for step in range(5):
        folder = tmp_path / f"step-{step}"
        folder.mkdir()
        (folder / "adapter_model.safetensors").write_bytes(b"x")
        saved = prune_adapters([*saved, folder], keep=3)
    assert [p.name for p in saved] == ["step-2", "step-3", "step-4"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["step-2", "step-3", "step-4"]


def test_vllm_is_asked_for_the_log_probs_it_samples_from(tiny):
    from spadegym.errors import ConfigError
    from spadegym_train.engines.vllm import engine_options

    options = engine_options(tiny({"model.load_in_4bit": False}), {"logprobs_mode", "quantization"})
    assert options == {"logprobs_mode": "processed_logprobs"}
    with pytest.raises(ConfigError, match="logprobs_mode \\(0.10.2 or later\\)"):
        engine_options(tiny(), {"quantization"})


@pytest.mark.gpu
def test_vllm_and_learner_log_probs_agree(tiny):
    """Where vLLM and a GPU exist: the engine's log-probs are the learner's at the temperature."""
    pytest.importorskip("vllm")
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("needs a CUDA GPU")
    from spadegym_train.engines.vllm import VLLMEngine
    from spadegym_train.loss import Sample, fill_old_logprobs
    from spadegym_train.model import load_policy

    config = tiny(
        {
            "model.name": "Qwen/Qwen3-0.6B",
            "model.device": "cuda",
            "model.dtype": "bfloat16",
            "generation.engine": "vllm",
            "generation.temperature": 0.6,
            "generation.vllm_gpu_memory_utilization": 0.3,
        }
    )
    policy = load_policy(config, config.workspace)
    engine = VLLMEngine(config, policy, config.workspace)
    prompt = policy.tokenizer("Count from one to ten:", add_special_tokens=False)["input_ids"]
    (reply,) = engine.generate([prompt], "solver", 24)
    sample = Sample("solver", reply.prompt_ids, reply.response_ids, 1.0)
    fill_old_logprobs(policy, [sample], 1, config.generation.temperature)
    gaps = [abs(a - b) for a, b in zip(reply.logprobs, sample.old_logprobs, strict=True)]
    assert sum(gaps) / len(gaps) < 0.05  # raw log-probs (temperature 1) differ by far more
