"""Each headline benchmark runs once at its smallest setting, so that none can rot.

Nothing here times anything (CI machines are noisy): the tests check that each script runs
and prints the figures the README and the asv suite (asv_bench/) read.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def run_script(name: str, *args: str) -> dict[str, dict]:
    """Run benchmarks/<name> on this checkout's code; its JSON lines by "bench" name."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "SPADEGYM_SHIPPED_REGISTRY": ""}
    done = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / name), *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    lines = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    return {line.get("bench") or line.get("figure") or line["benchmark"]: line for line in lines}


def test_bench_step_reports_the_step_against_the_pipe():
    figures = run_script(
        "bench_step.py", "--steps", "50", "--instances", "4", "--rounds", "2", "--starts", "1"
    )
    step = figures["step_round_trip"]
    assert step["pipe_round_trip_us"] > 0
    assert step["isolated_over_pipe"] == pytest.approx(
        step["isolated_us"] / step["pipe_round_trip_us"], rel=0.05
    )
    assert figures["worker_start"]["starts"] == 1
    assert figures["batch_throughput"]["steps_per_s"] > 0


def test_bench_validate_reports_both_arms_or_says_one_is_unavailable():
    import dataclasses

    from spadegym.validation import ValidationConfig

    figures = run_script(
        "bench_validate.py", "--rounds", "1", "--repeat", "1", "--workers", "1", "--limit", "1"
    )
    median = figures["validate_valid_median"]
    assert median["seconds"] > 0
    if "shortcut_seeds" in {f.name for f in dataclasses.fields(ValidationConfig)}:
        assert median["without_shortcut_probes_seconds"] > 0
        assert "shortcut_probes_cost_seconds" in median
    else:
        assert median["without_shortcut_probes_seconds"] is None
        assert median["without_shortcut_probes"] == (
            "unavailable on this build: ValidationConfig has no shortcut_seeds field"
        )
    assert figures["validate_throughput"]["programs"] == 2
    assert figures["validator_started_ahead_median"]["seconds"] > 0


def test_bench_registry_compares_the_heterogeneous_batch_with_the_same_program_one():
    figures = run_script(
        "bench_registry.py",
        *("--sizes", "0,10", "--repeats", "1", "--steps", "2", "--num-envs", "6"),
    )
    assert figures["import_spadegym"]["envs"] == 10  # the last size's line
    assert figures["cold_make"]["make_and_reset_seconds"] > 0
    batch = figures["heterogeneous_batch"]
    assert batch["distinct_programs"] == 6 and batch["worker_processes"] == 6
    for key in ("env_steps_per_second", "same_program_env_steps_per_second"):
        assert batch[key] > 0
    # the rates are printed rounded to whole env-steps/s, and a tiny batch is slow
    assert batch["heterogeneous_over_same_program"] == pytest.approx(
        batch["env_steps_per_second"] / batch["same_program_env_steps_per_second"], rel=0.05
    )


def test_bench_memory_latency_figure():
    figures = run_script(
        "bench_memory.py", "--only", "latency", "--sizes", "2000", "--queries", "5"
    )
    latency = figures["memory/query_latency"]
    assert latency["vectors"] == 2000 and latency["queries"] == 5
    assert 0 <= latency["recall_at_10"] <= 1


def test_bench_train_runs_one_iteration():
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        import bench_train
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))
    figures = bench_train.run(1, [])
    assert figures["iterations"] == 1
    assert 0 < figures["env_share"] < 1


def test_the_asv_suite_loads(tmp_path):
    """``asv check`` imports the suite and checks every benchmark's signature."""
    pytest.importorskip("asv")
    done = subprocess.run(
        [sys.executable, "-m", "asv", "check", "-E", "existing"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env={**os.environ, "HOME": str(tmp_path)},
        timeout=120,
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert "No problems found" in done.stdout


def test_bench_trl_trains_in_spadegym_trains_micro_batches():
    spec = importlib.util.spec_from_file_location("bench_trl", ROOT / "benchmarks" / "bench_trl.py")
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    assert bench.micro_batches(24, 8) == (8, 3)  # one step of 24 episodes, 3 passes of 8
    assert bench.micro_batches(48, 8) == (8, 6)
    assert bench.micro_batches(24, 5) == (24, 1)  # no even split: the whole batch at once


def test_trl_profile_splits_each_trainers_samples_by_part(tmp_path):
    raw = tmp_path / "trl.prof"
    raw.write_text(
        "main (bench_trl.py:1);train_trl (bench_trl.py:2);generate (transformers/g.py:3) 10\n"
        "main (bench_trl.py:1);train_trl (bench_trl.py:2);generate (g.py:3);"
        "_fused_forward (trl/trainer/utils.py:4) 5\n"  # a forward inside generation: generation
        "main (bench_trl.py:1);train_trl (bench_trl.py:2);"
        "_get_per_token_logps (trl/grpo_trainer.py:5) 4\n"
        "main (bench_trl.py:1);train_spadegym (bench_trl.py:6);update (spadegym_train/loss.py:7);"
        "backward (torch/_tensor.py:8);_engine_run_backward (torch/autograd/graph.py:9) 3\n"
        "main (bench_trl.py:1);evaluate (bench_trl.py:10) 7\n",  # neither trainer: left out
        encoding="utf-8",
    )
    script = ROOT / "benchmarks" / "trl_profile.py"
    done = subprocess.run(
        [sys.executable, str(script), str(raw), "--rate", "1", "--samples", "2"],
        capture_output=True,
        text=True,
        check=True,
    )
    ours, trl = (json.loads(line) for line in done.stdout.splitlines())
    assert (ours["trainer"], trl["trainer"]) == ("spadegym_train", "trl")
    assert trl["seconds"] == {"generation": 15.0, "loss_forward": 4.0}
    assert trl["seconds_per_sample"] == {"generation": 7.5, "loss_forward": 2.0}
    assert ours["seconds"] == {"backward": 3.0} and ours["total_seconds"] == 3.0
