"""``generate`` on a full disk: the log never raises into the run, resume trusts the registry."""

from __future__ import annotations

import errno
import json
from pathlib import Path

import pytest

from spadegym.designer import generate
from spadegym.designer.runlog import RunLog
from spadegym.llm import ReplayChat
from spadegym.memory import EnvironmentMemory, HashingEmbedder
from spadegym.memory.store import EnvironmentMemory as Store
from spadegym.registry import Registry

pytestmark = pytest.mark.filterwarnings("ignore::spadegym.registry.ShadowedEnvironmentWarning")

REPO = Path(__file__).resolve().parents[2]
PROGRAMS = REPO / "tests" / "data" / "replays" / "programs"
NAMES = ("lights_out", "balance_scale", "change_maker")
DOCS = ["A document about weighing coins, paying exact change and wiring lamps."]


class _FullFile:
    """A file whose writes fail as on a full disk, after ``room`` of them succeed."""

    def __init__(self, handle, room: int):
        self.handle, self.room = handle, room

    def write(self, text):
        if self.room <= 0:
            raise OSError(errno.ENOSPC, "No space left on device")
        self.room -= 1
        return self.handle.write(text)

    def __getattr__(self, name):
        return getattr(self.handle, name)


def test_a_log_write_on_a_full_disk_is_kept_not_raised(tmp_path):
    failures = []
    log = RunLog(tmp_path / "run.jsonl", "k", {}, on_failure=failures.append)
    log._handle = _FullFile(log._handle, room=1)
    assert log.write({"event": "reply", "candidate": 0}) is True
    assert log.write({"event": "reply", "candidate": 1}) is False
    assert log.write({"event": "reply", "candidate": 2}) is False  # dropped, not retried
    assert [e.errno for e in failures] == [errno.ENOSPC] and log.failed is failures[0]
    log.close()
    lines = (tmp_path / "run.jsonl").read_text().splitlines()
    assert [json.loads(line)["event"] for line in lines] == ["run", "reply"]


def _replay(path: Path) -> Path:
    path.write_text(
        "".join(
            json.dumps({"reply": f"```python\n{(PROGRAMS / f'{n}.py').read_text()}```"}) + "\n"
            for n in NAMES
        )
    )
    return path


def test_generate_stops_saying_why_when_its_log_fills_the_disk(tmp_path, monkeypatch):
    monkeypatch.setenv("SPADEGYM_SHIPPED_REGISTRY", "")
    registry = Registry(tmp_path / "registry")
    real_init = RunLog.__init__

    def init(self, *args, **kwargs):
        real_init(self, *args, **kwargs)
        self._handle = _FullFile(self._handle, room=2)  # the run line, one reply

    monkeypatch.setattr(RunLog, "__init__", init)
    report = generate(
        3,
        ReplayChat(_replay(tmp_path / "replay.jsonl")),
        DOCS,
        registry=registry,
        concurrency=1,
        progress=False,
        log=tmp_path / "run.jsonl",
        write_hints=False,
    )
    assert report.stopped.startswith(f"the run log {tmp_path / 'run.jsonl'} cannot be written:")
    assert "the disk is full (ENOSPC)" in report.stopped
    # Whatever was registered is in the report as accepted, and nothing else is.
    accepted = {c.env_id for c in report.candidates if c.status == "accepted"}
    assert accepted == {e.id for e in registry.list()}


def test_resume_trusts_the_registry_over_a_logged_error(tmp_path, monkeypatch):
    monkeypatch.setenv("SPADEGYM_SHIPPED_REGISTRY", "")
    registry = Registry(tmp_path / "registry")
    memory = EnvironmentMemory(tmp_path / "memory", HashingEmbedder())
    replay, log = _replay(tmp_path / "replay.jsonl"), tmp_path / "run.jsonl"
    settings = dict(
        registry=registry,
        memory=memory,
        concurrency=1,
        progress=False,
        log=log,
        write_hints=False,
    )
    real = Store.add_many
    calls = []

    def full_once(self, *args, **kwargs):  # the memory's half of slot 1's add meets ENOSPC
        calls.append(1)
        if len(calls) == 2:
            raise OSError(errno.ENOSPC, "No space left on device")
        return real(self, *args, **kwargs)

    monkeypatch.setattr(Store, "add_many", full_once)
    first = generate(3, ReplayChat(replay), DOCS, **settings)
    assert [c.status for c in first.candidates] == ["accepted", "error", "accepted"]
    assert len(registry) == 3  # slot 1 was registered before the memory failed
    monkeypatch.setattr(Store, "add_many", real)
    second = generate(3, ReplayChat(replay), DOCS, **settings)
    assert [c.status for c in second.candidates] == ["accepted"] * 3
    assert second.candidates[1].reason == "registered by the earlier run, which then failed"
    assert len({c.env_id for c in second.candidates}) == 3 == len(registry)
    memory.close()
