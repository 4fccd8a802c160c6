#!/usr/bin/env bash
# GPU check of spadegym_train: one prepared script for a machine with a CUDA GPU.
#  1. the tiny preset on CUDA in 4-bit (NF4, double quantisation, bf16 compute), 2 iterations;
#  2. a random-weight model with Qwen3-0.6B's architecture in 4-bit: rollout tokens per second
#     of batched generation and the time of one update (no weights are downloaded).
# Prints one JSON line per part. Usage: bash benchmarks/gpu_check.sh  (about 3-5 minutes)
set -euo pipefail
cd "$(dirname "$0")/.."
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}"
python - <<'PY'
import json, time, tempfile, torch
assert torch.cuda.is_available(), "no CUDA device: run this on a GPU machine"
from spadegym_train.config import load_config
from spadegym_train.loop import train

with tempfile.TemporaryDirectory() as tmp:
    config = load_config(preset="tiny-cpu", overrides={
        "workspace": f"{tmp}/tiny", "device": "cuda", "dtype": "bfloat16", "load_in_4bit": True,
        "torch_threads": 0, "console": False, "tensorboard": False,
        "corpus": "tests/train/data/corpus.jsonl"})
    started = time.perf_counter()
    history = train(config)
    print(json.dumps({"check": "tiny_4bit_cuda", "iterations": len(history),
                      "seconds": round(time.perf_counter() - started, 2),
                      "loss_samples": history[-1].get("loss/samples"),
                      "peak_gpu_gb": round(torch.cuda.max_memory_allocated() / 2**30, 3)}))
PY
python - <<'PY'
import json, time, tempfile, torch
from spadegym_train.config import load_config
from spadegym_train.engines.hf import HFEngine
from spadegym_train.loss import Sample, make_optimizer, update
from spadegym_train.model import load_policy
from spadegym_train.presets import QWEN3_06B_SHAPE

with tempfile.TemporaryDirectory() as tmp:
    config = load_config(preset="tiny-cpu", overrides={
        "workspace": f"{tmp}/q", "random_model_config": QWEN3_06B_SHAPE, "device": "cuda",
        "dtype": "bfloat16", "load_in_4bit": True, "gradient_checkpointing": True,
        "torch_threads": 0, "lora_r": 16, "lora_alpha": 32, "learning_rate": 1e-5,
        "generation_batch_size": 64, "micro_batch_size": 8, "temperature": 0.6})
    torch.cuda.reset_peak_memory_stats()
    policy = load_policy(config, config.workspace)
    engine = HFEngine(config, policy)
    prompts = [[7 + (k + j) % 90 for j in range(512)] for k in range(64)]
    engine.generate(prompts[:4], "solver", 8)  # warm-up
    torch.cuda.synchronize(); started = time.perf_counter()
    replies = engine.generate(prompts, "solver", 256)
    torch.cuda.synchronize(); rollout = time.perf_counter() - started
    tokens = sum(len(r.response_ids) for r in replies)
    samples = [Sample("solver", r.prompt_ids, r.response_ids or [5], 1.0 if k % 2 else -1.0)
               for k, r in enumerate(replies)]
    optimizer = make_optimizer(config, policy.lora_parameters())
    torch.cuda.synchronize(); started = time.perf_counter()
    metrics = update(policy, optimizer, samples, config)
    torch.cuda.synchronize(); update_s = time.perf_counter() - started
    print(json.dumps({"check": "qwen3_0.6b_shape_4bit_cuda", "rollout_sequences": len(prompts),
                      "rollout_tokens": tokens,
                      "rollout_tokens_per_s": round(tokens / rollout, 1),
                      "update_seconds": round(update_s, 3),
                      "update_sequences": len(samples),
                      "grad_norm": metrics.get("loss/grad_norm"),
                      "peak_gpu_gb": round(torch.cuda.max_memory_allocated() / 2**30, 3)}))
PY
