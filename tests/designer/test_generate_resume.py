"""``generate`` resumed after a kill: each environment counts once, the replay goes on."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from spadegym.designer import generate
from spadegym.llm import ReplayChat
from spadegym.memory import EnvironmentMemory, HashingEmbedder
from spadegym.registry import Registry

pytestmark = pytest.mark.filterwarnings("ignore::spadegym.registry.ShadowedEnvironmentWarning")

REPO = Path(__file__).resolve().parents[2]
PROGRAMS = REPO / "tests" / "data" / "replays" / "programs"
NAMES = ("lights_out", "balance_scale", "change_maker", "circuit_probe")
DOCS = ["A document about weighing coins, paying exact change and wiring lamps."]


def _replay(path: Path) -> Path:
    path.write_text(
        "".join(
            json.dumps({"reply": f"```python\n{(PROGRAMS / f'{n}.py').read_text()}```"}) + "\n"
            for n in NAMES
        )
    )
    return path


def _records(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def test_a_run_killed_after_registering_resumes_counting_each_environment_once(
    tmp_path, monkeypatch
):
    monkeypatch.setenv("SPADEGYM_SHIPPED_REGISTRY", "")
    replay, log = _replay(tmp_path / "replay.jsonl"), tmp_path / "run.jsonl"
    registry = Registry(tmp_path / "registry")
    memory = EnvironmentMemory(tmp_path / "memory", HashingEmbedder())
    settings = dict(
        registry=registry,
        memory=memory,
        concurrency=1,
        progress=False,
        log=log,
        write_hints=False,
    )
    first = generate(3, ReplayChat(replay), DOCS, **settings)
    assert first.counts["accepted"] == 3
    # As if killed after slot 2 was registered but before its verdict reached the log.
    kept = [r for r in _records(log) if not (r["event"] == "candidate" and r["candidate"] == 2)]
    log.write_text("".join(json.dumps(r) + "\n" for r in kept))

    llm = ReplayChat(replay)  # a fresh process: the replay starts at its first line
    second = generate(4, llm, DOCS, **settings)
    assert [c.status for c in second.candidates] == ["accepted"] * 4
    assert [c.resumed for c in second.candidates] == [True, True, False, False]
    assert second.candidates[2].turns[0].from_log  # slot 2's reply came from the log
    assert llm.served == 1  # only slot 3 asked, and got the fourth reply, not the first
    ids = [c.env_id for c in second.candidates]
    assert len(set(ids)) == 4 == len(registry) == len(memory)
    assert sorted(ids) == sorted(e.id for e in registry.list())
    memory.close()


def test_replay_skips_the_replies_a_log_holds(tmp_path):
    lines = [{"reply": "one"}, {"reply": "two"}, {"reply": "two"}, {"reply": "three"}]
    replay_file = tmp_path / "replay.jsonl"
    replay_file.write_text("".join(json.dumps(x) + "\n" for x in lines))
    llm = ReplayChat(replay_file)
    assert llm.skip_served(["two", "one", "unknown"]) == 2
    design = [{"role": "user", "content": "design"}]
    assert [llm.complete(design)[0] for _ in range(2)] == ["two", "three"]


@pytest.mark.slow
def test_generate_killed_for_real_and_run_again(tmp_path):
    replay = _replay(tmp_path / "replay.jsonl")
    log = tmp_path / "run.jsonl"
    env = dict(os.environ)
    env.update(
        SPADEGYM_SHIPPED_REGISTRY="",
        SPADEGYM_HOME=str(tmp_path / "home"),
        PYTHONPATH=os.pathsep.join([str(REPO), *sys.path]),
    )
    argv = [sys.executable, "-m", "spadegym.cli", "generate", "-n", "4", "--llm"]
    argv += [f"replay:{replay}", "--registry", str(tmp_path / "registry"), "--log", str(log)]
    argv += ["--no-memory", "--no-hints", "--concurrency", "1", "--quiet"]
    proc = subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 240
    while not log.exists() or sum(r["event"] == "candidate" for r in _records(log)) < 2:
        assert proc.poll() is None and time.monotonic() < deadline
        time.sleep(0.05)
    proc.send_signal(signal.SIGKILL)
    proc.wait(30)
    done = subprocess.run([*argv, "--json"], env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    registered = sorted(p.name for p in (tmp_path / "registry").iterdir() if "-v" in p.name)
    assert report["counts"]["accepted"] == len(registered) == 4
