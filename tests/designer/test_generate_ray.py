"""``generate`` with an executor: validations leave the candidate threads, model calls do not.

The Ray test starts a local cluster (``num_cpus=2``) and is marked slow; the others use a
recording local executor.
"""

from __future__ import annotations

import argparse
import json
import threading
import time
from pathlib import Path

import pytest

from spadegym.cli import generate as generate_cli
from spadegym.designer import generate
from spadegym.errors import ConfigError
from spadegym.llm import ReplayChat
from spadegym.memory import EnvironmentMemory, HashingEmbedder
from spadegym.registry import Registry
from spadegym.validation.executors import LocalExecutor

pytestmark = pytest.mark.filterwarnings(
    "ignore::spadegym.registry.ShadowedEnvironmentWarning"
)  # each test's registry shares ids

REPLAY = Path(__file__).resolve().parents[1] / "data" / "replays" / "designer.jsonl"
DOCS = ["A document about weighing coins, paying exact change and wiring lamps."]


class Recording(LocalExecutor):
    """A local executor that counts its calls and the most it held at once."""

    def __init__(self) -> None:
        super().__init__(1)
        self.lock = threading.Lock()
        self.calls = self.now = self.most = 0

    def map(self, fn, items, *, progress=None):
        with self.lock:
            self.calls += 1
            self.now += 1
            self.most = max(self.most, self.now)
        try:
            time.sleep(0.05)  # long enough for the other candidate threads to pile up
            return super().map(fn, items, progress=progress)
        finally:
            with self.lock:
                self.now -= 1


def records(path) -> list[dict]:
    return [json.loads(line) for line in Path(path).read_text().splitlines() if line.strip()]


def run_replay(tmp_path: Path, name: str, n: int, **kwargs):
    registry = Registry(tmp_path / name / "registry")
    memory = EnvironmentMemory(tmp_path / name / "memory", HashingEmbedder())
    report = generate(
        n,
        ReplayChat(REPLAY),
        DOCS,
        registry=registry,
        memory=memory,
        max_repairs=2,
        seed=1,
        progress=False,
        log=tmp_path / name / "run.jsonl",
        **kwargs,
    )
    memory.close()
    return report, sorted(e.id for e in registry.list())


def test_validations_run_on_the_executor_with_a_bounded_backlog(tmp_path, monkeypatch):
    monkeypatch.setenv("SPADEGYM_SHIPPED_REGISTRY", "")
    executor = Recording()
    report, ids = run_replay(tmp_path, "recorded", 4, concurrency=2, executor=executor)
    log = records(report.log_path)
    validations = [r for r in log if r["event"] == "validation"]
    # Every verdict came from the executor (a repeated program reuses its verdict).
    assert executor.calls == len(validations) > 0
    assert executor.most <= 2  # never more waiting than candidate threads
    # Every reply is in the log before its verdict.
    order = {(r["event"], r["id"]): k for k, r in enumerate(log) if "id" in r}
    assert all(order[("reply", v["id"])] < order[("validation", v["id"])] for v in validations)
    assert ids and report.counts["error"] == 0


def test_an_unknown_executor_is_a_setting_error_and_writes_no_log(tmp_path, capsys):
    with pytest.raises(ConfigError, match="executor 'dask' is unknown"):
        generate(
            1,
            ReplayChat(REPLAY),
            DOCS,
            registry=tmp_path / "reg",
            executor="dask",
            log=tmp_path / "run.jsonl",
        )
    assert not (tmp_path / "run.jsonl").exists()
    parser = argparse.ArgumentParser(prog="spadegym")
    generate_cli.add_parsers(parser.add_subparsers())
    args = parser.parse_args(
        [
            "generate",
            "--llm",
            f"replay:{REPLAY}",
            "--executor",
            "dask",
            "--registry",
            str(tmp_path / "reg"),
        ]
    )
    assert args.func(args) == 2
    assert "use 'local', 'ray' or 'ray:<address>'" in capsys.readouterr().err


@pytest.mark.slow
def test_ray_registers_the_same_environments_as_local(tmp_path, monkeypatch):
    ray = pytest.importorskip("ray")
    monkeypatch.setenv("SPADEGYM_SHIPPED_REGISTRY", "")
    designs = [json.loads(x) for x in REPLAY.read_text().splitlines()]
    n = sum(r.get("purpose", "design") == "design" for r in designs)
    local, local_ids = run_replay(tmp_path, "local", n, concurrency=8)
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        remote, remote_ids = run_replay(tmp_path, "ray", n, concurrency=8, executor="ray")
    finally:
        ray.shutdown()
    assert remote_ids == local_ids and len(local_ids) == 8, (local.table(), remote.table())
    assert remote.counts == local.counts
    assert sorted(remote.env_ids) == remote_ids
