from __future__ import annotations

import pytest
import torch

from spadegym_train.loss import Sample, make_optimizer, update
from spadegym_train.model import base_weights, load_policy


def _samples(policy):
    tokenizer = policy.tokenizer
    prompt = tokenizer(
        "<|im_start|>user\nHeaps: 3 4<|im_end|>\n<|im_start|>assistant\n", add_special_tokens=False
    )["input_ids"]
    replies = ["\\boxed{1 3}", "\\boxed{2 1}", "no", "\\boxed{}"]
    return [
        Sample(role, prompt, tokenizer(r, add_special_tokens=False)["input_ids"], adv)
        for r, adv, role in zip(
            replies,
            [1.0, -1.0, 0.5, -0.5],
            ["solver", "solver", "designer", "designer"],
            strict=True,
        )
    ]


@pytest.mark.parametrize("four_bit", [False, True], ids=["fp32", "nf4"])
def test_update_changes_lora_weights_only(tiny, four_bit):
    config = tiny(
        {
            "model.load_in_4bit": four_bit,
            "lora.separate_adapters": four_bit,
            "ppo.kl_coef": 0.01,
            "ppo.epochs": 1,
        }
    )
    policy = load_policy(config, config.workspace)
    if four_bit:
        import bitsandbytes as bnb

        layers = [m for m in policy.model.modules() if isinstance(m, bnb.nn.Linear4bit)]
        assert layers and layers[0].weight.quant_state.quant_type == "nf4"
        assert layers[0].weight.quant_state.nested  # double quantisation
        assert set(policy.adapters.values()) == {"designer", "solver"}
    before_base = base_weights(policy)
    before_lora = {
        k: v.clone()
        for name, state in policy.adapter_state().items()
        for k, v in ((f"{name}.{k}", v) for k, v in state.items())
    }
    optimizer = make_optimizer(config, policy.lora_parameters())
    metrics = update(policy, optimizer, _samples(policy), config)
    assert metrics["loss/samples"] == 4 and metrics["loss/ratio"] == pytest.approx(1.0, abs=1e-4)
    assert metrics["loss/kl"] == pytest.approx(0.0, abs=1e-6)  # LoRA B starts at 0
    after_lora = {
        f"{name}.{k}": v for name, state in policy.adapter_state().items() for k, v in state.items()
    }
    changed = [k for k in before_lora if not torch.equal(before_lora[k], after_lora[k])]
    assert changed, "no LoRA weight moved"
    if four_bit:  # each role trained its own adapter
        assert any(k.startswith("designer.") for k in changed)
        assert any(k.startswith("solver.") for k in changed)
    after_base = base_weights(policy)
    assert before_base.keys() == after_base.keys()
    for name, value in before_base.items():
        assert torch.equal(value, after_base[name]), f"base weight {name} changed"


def test_two_epochs_take_two_steps_and_the_second_one_clips(tiny):
    config = tiny({"ppo.epochs": 2, "ppo.learning_rate": 0.05})
    policy = load_policy(config, config.workspace)
    optimizer = make_optimizer(config, policy.lora_parameters())
    one = update(
        policy, optimizer, _samples(policy), tiny({"ppo.epochs": 1, "ppo.learning_rate": 0.05})
    )
    assert one["loss/solver_ratio"] == pytest.approx(1.0, abs=1e-5)
    assert one["loss/solver_clip_frac"] == 0.0
    metrics = update(policy, optimizer, _samples(policy), config)
    steps = {int(s["step"]) for s in optimizer.state.values()}
    assert steps == {3}  # one step, then two more
    # The first epoch's ratio is 1; the second's is not, so the mean over both moves away
    # from 1 and some tokens are clipped at this learning rate.
    assert metrics["loss/solver_ratio"] != pytest.approx(1.0, abs=1e-4)
    assert metrics["loss/solver_clip_frac"] > 0.0
    for role in ("solver", "designer"):
        assert metrics[f"loss/{role}_entropy"] > 0.0
        assert metrics[f"loss/{role}_response_length"] > 0.0
        assert metrics[f"loss/{role}_tis"] == pytest.approx(1.0)  # no engine log-probs given


def test_engine_logprobs_match_the_learner_and_weight_one(tiny):
    from spadegym_train.engines.hf import HFEngine
    from spadegym_train.loss import fill_old_logprobs

    config = tiny({"generation.temperature": 0.7, "generation.top_p": 1.0})
    policy = load_policy(config, config.workspace)
    prompt = policy.tokenizer("<|im_start|>user\nHi<|im_end|>\n", add_special_tokens=False)
    completions = HFEngine(config, policy).generate([prompt["input_ids"]] * 3, "solver", 12)
    samples = [
        Sample("solver", c.prompt_ids, c.response_ids, 1.0, engine_logprobs=c.logprobs)
        for c in completions
    ]
    fill_old_logprobs(policy, samples, 4, config.generation.temperature)
    for sample in samples:
        assert len(sample.engine_logprobs) == len(sample.response_ids) > 0
        assert sample.old_logprobs == pytest.approx(sample.engine_logprobs, abs=1e-4)


def test_the_base_role_samples_with_the_adapters_disabled(tiny):
    from spadegym_train.engines.hf import HFEngine

    config = tiny()
    policy = load_policy(config, config.workspace)
    calls = []
    real = policy.reference

    def reference():
        calls.append("base")
        return real()

    policy.reference = reference
    engine = HFEngine(config, policy)
    ids = policy.tokenizer("hello", add_special_tokens=False)["input_ids"]
    engine.generate([ids], "solver", 4)
    assert calls == []
    engine.generate([ids], "base", 4)
    assert calls == ["base"]


def test_4bit_gradients_do_not_change_after_generation(tiny):
    """bitsandbytes repacks CPU 4-bit weights at an eval forward into a kernel with no backward."""
    config = tiny({"model.load_in_4bit": True})
    policy = load_policy(config, config.workspace)
    model = policy.model
    ids = torch.arange(3, 27).reshape(2, 12)

    def lora_gradients():
        model.train()
        model.zero_grad()
        model(input_ids=ids).logits.float().pow(2).mean().backward()
        model.eval()
        return {n: p.grad.clone() for n, p in model.named_parameters() if p.grad is not None}

    before = lora_gradients()
    with torch.no_grad():  # what generation does
        model(input_ids=ids[:, :1])
    after = lora_gradients()
    assert before and before.keys() == after.keys()
    for name, gradient in before.items():
        torch.testing.assert_close(after[name], gradient, msg=f"gradient of {name} changed")


def test_reference_is_the_base_model(tiny):
    config = tiny()
    policy = load_policy(config, config.workspace)
    for param in policy.lora_parameters():
        torch.nn.init.normal_(param, std=0.5)
    ids = torch.tensor([[5, 6, 7, 8]])
    with torch.no_grad():
        tuned = policy.model(input_ids=ids).logits
        with policy.reference():
            reference = policy.model(input_ids=ids).logits
        base = policy.model.get_base_model()
        with policy.model.disable_adapter():
            plain = base(input_ids=ids).logits
    assert not torch.allclose(tuned, reference)
    assert torch.allclose(reference, plain)


def test_random_base_is_saved_once_and_reloaded_identically(tiny):
    config = tiny()
    first = base_weights(load_policy(config, config.workspace))
    second = base_weights(load_policy(config, config.workspace))
    assert all(torch.equal(first[k], second[k]) for k in first)


def test_logits_from_the_first_response_position_match_the_full_pass(tiny):
    from spadegym_train.loss import _pad, token_logprobs

    policy = load_policy(tiny(), tiny().workspace)
    batch = _samples(policy)
    batch[1].prompt_ids = batch[1].prompt_ids + batch[1].prompt_ids  # a longer prompt
    ids, attention, response, start = _pad(batch, policy.tokenizer.pad_token_id, policy.device)
    assert start == len(batch[0].prompt_ids) - 1
    windowed = token_logprobs(policy.model, ids, attention, 0.7, start)
    full = token_logprobs(policy.model, ids, attention, 0.7)
    assert windowed.shape == (len(batch), ids.shape[1] - 1 - start)
    assert torch.allclose(windowed, full[:, start:], atol=1e-5)
    for row, sample in enumerate(batch):
        assert int(response[row].sum()) == len(sample.response_ids)


def test_one_epoch_needs_no_old_logprob_pass(tiny, monkeypatch):
    import spadegym_train.loss as loss

    def refuse(*args, **kwargs):
        raise AssertionError("fill_old_logprobs ran for one epoch")

    monkeypatch.setattr(loss, "fill_old_logprobs", refuse)
    config = tiny({"ppo.epochs": 1, "ppo.learning_rate": 0.05})
    policy = load_policy(config, config.workspace)
    optimizer = make_optimizer(config, policy.lora_parameters())
    metrics = update(policy, optimizer, _samples(policy), config)
    assert metrics["loss/ratio"] == pytest.approx(1.0, abs=1e-6)
    assert metrics["loss/clip_frac"] == 0.0


def test_learning_rate_zero_computes_nothing_and_changes_nothing(tiny, monkeypatch):
    import spadegym_train.loss as loss

    config = tiny({"ppo.learning_rate": 0.0})
    policy = load_policy(config, config.workspace)
    before = {k: v.clone() for k, v in policy.adapter_state()["shared"].items()}
    monkeypatch.setattr(loss, "_logits", lambda *a, **k: pytest.fail("a forward pass ran"))
    optimizer = make_optimizer(config, policy.lora_parameters())
    assert update(policy, optimizer, _samples(policy), config) == {"loss/samples": 4.0}
    after = policy.adapter_state()["shared"]
    assert all(torch.equal(before[k], after[k]) for k in before)


def test_the_generation_cache_estimate_follows_the_shapes():
    from spadegym_train.config import load_config
    from spadegym_train.footprint import GIB, bytes_per_token, cache_uses, describe
    from spadegym_train.presets import QWEN3_06B_SHAPE

    # Qwen3-0.6B: 2 (key, value) x 28 layers x 8 heads x 128 x 2 bytes = 112 KiB a token.
    assert bytes_per_token(QWEN3_06B_SHAPE, 2) == 114_688
    config = load_config(preset="qwen3-0.6b-4bit")
    uses = {u.role: u for u in cache_uses(config, QWEN3_06B_SHAPE)}
    assert uses["solver"].batch == 96 and uses["solver"].tokens == 4096 + 512
    assert uses["designer"].batch == 16 and uses["designer"].tokens == 4096 + 3072
    assert uses["solver"].bytes / GIB == pytest.approx(47.25, abs=0.01)  # tens of GB
    assert "up to 47.2 GB" in describe(config, QWEN3_06B_SHAPE)
    vllm = load_config(preset="qwen3-0.6b-4bit", overrides={"generation.engine": "vllm"})
    assert "inside 35% of the GPU" in describe(vllm, QWEN3_06B_SHAPE)
