#!/usr/bin/env bash
# GPU check of spadegym_train at a real model's scale, in one command on a CUDA machine:
# Qwen3-0.6B's shapes and 151,936-token vocabulary with random weights (nothing downloaded), or
# a real model with --model PATH; 4-bit load, LoRA, rollouts and designer-length programs with
# the HF engine, the update with the paged 8-bit AdamW and the KL pass, vLLM when installed, and
# one iteration of the training loop. Prints one JSON line per part (seconds, tokens per second,
# peak GPU memory). Under 10 minutes on one GPU. See benchmarks/gpu_check.py for the options.
# Usage: bash benchmarks/gpu_check.sh [--model PATH] [--no-vllm] [--no-loop]
set -euo pipefail
cd "$(dirname "$0")/.."
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}"
exec python benchmarks/gpu_check.py --device cuda "$@"
