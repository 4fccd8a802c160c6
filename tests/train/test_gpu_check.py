"""``benchmarks/gpu_check.py`` on a CPU with small shapes (``--device cpu --small``): the GPU
check's own code runs in every test run, so it cannot rot while no GPU is at hand."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "benchmarks" / "gpu_check.py"


def run_check(tmp_path, *flags: str) -> dict[str, dict]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "SPADEGYM_HOME": str(tmp_path / "home")}
    out = subprocess.run(
        [sys.executable, str(SCRIPT), "--device", "cpu", "--small", *flags],
        capture_output=True,
        text=True,
        timeout=900,
        cwd=tmp_path,
        env=env,
    )
    assert out.returncode == 0, out.stderr[-3000:]
    lines = [json.loads(x) for x in out.stdout.splitlines() if x.startswith("{")]
    return {line["check"]: line for line in lines}


def test_the_gpu_check_runs_every_part_on_a_cpu(tmp_path):
    parts = run_check(tmp_path, "--no-loop")
    assert list(parts) == ["build", "load", "rollout", "designer", "update", "vllm", "summary"]
    load = parts["load"]
    assert load["vocabulary"] == load["tokenizer_tokens"] == 4096  # padded to the model's size
    assert load["quantization"] == "nf4" and load["lora_parameters"] > 0
    assert parts["rollout"]["sequences"] == 4 and parts["rollout"]["new_tokens"] > 0
    assert parts["designer"]["prompt_tokens"] == 96
    update = parts["update"]
    assert update["optimizer"] == "PagedAdamW8bit" and update["kl_coef"] > 0
    assert update["sequences"] == 5 and update["grad_norm"] > 0
    assert parts["vllm"] == {"check": "vllm", "skipped": "no CUDA"}
    assert all("peak_rss_gb" in parts[p] for p in ("load", "rollout", "designer", "update"))


@pytest.mark.slow
def test_the_gpu_check_loop_part_runs_on_a_cpu(tmp_path):
    """The training-loop part alone adds about a minute."""
    parts = run_check(tmp_path, "--no-vllm")
    assert parts["loop"]["iterations"] == 1
    assert parts["vllm"]["skipped"] == "--no-vllm"


def test_no_cuda_is_refused_with_the_fix(tmp_path):
    pytest.importorskip("torch")
    import torch

    if torch.cuda.is_available():
        pytest.skip("a CUDA device is here")
    out = subprocess.run(
        [sys.executable, str(SCRIPT)], capture_output=True, text=True, timeout=300, cwd=tmp_path
    )
    assert out.returncode == 2
    assert "gpu_check: no CUDA device; run on a GPU machine or use --device cpu" in out.stderr
