"""``generate`` end to end over recorded replies (tests/data/replays), with a real registry
and a memory using the hashing embedder."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from spadegym.designer import generate
from spadegym.errors import ConfigError
from spadegym.llm import ReplayChat
from spadegym.memory import EnvironmentMemory, HashingEmbedder
from spadegym.registry import Registry

pytestmark = pytest.mark.filterwarnings(
    "ignore::spadegym.registry.ShadowedEnvironmentWarning"
)  # each test's registry shares ids

REPLAYS = Path(__file__).resolve().parents[1] / "data" / "replays"
PROGRAMS = REPLAYS / "programs"
DOCS = ["A document about weighing coins, paying exact change and wiring lamps."]


@pytest.fixture
def stores(tmp_path, monkeypatch):
    monkeypatch.setenv("SPADEGYM_SHIPPED_REGISTRY", "")
    return Registry(tmp_path / "registry"), EnvironmentMemory(
        tmp_path / "memory", HashingEmbedder()
    )


def log_records(path) -> list[dict]:
    return [json.loads(line) for line in Path(path).read_text().splitlines() if line.strip()]


def fenced(name: str, before: str = "Here it is.") -> str:
    return f"{before}\n\n```python\n{(PROGRAMS / f'{name}.py').read_text()}```\n"


def test_replayed_run_registers_exactly_the_valid_novel_ones(stores, tmp_path, capsys):
    registry, memory = stores
    recorded = [json.loads(x) for x in (REPLAYS / "designer.jsonl").read_text().splitlines()]
    designs = [r for r in recorded if r.get("purpose", "design") == "design"]
    report = generate(
        len(designs),
        ReplayChat(REPLAYS / "designer.jsonl"),
        DOCS,
        registry=registry,
        memory=memory,
        max_repairs=2,
        concurrency=8,
        seed=1,
        log=tmp_path / "run.jsonl",
    )
    assert report.counts == {
        "accepted": 8,
        "rejected": 5,
        "duplicate": 2,
        "error": 0,
        "interrupted": 0,
    }
    names = sorted(e.id for e in registry.list())
    assert names == sorted(
        f"spade/{n}-v0"
        for n in (
            "IceMaze",
            "SequenceStreak",
            "BankSettlement",
            "Nim",
            "CircuitProbe",
            "ChangeMaker",
            "LightsOut",
            "BalanceScale",
        )
    )
    assert sorted(report.env_ids) == names and len(memory) == 8

    # Every reply, accepted or not, is in the log: each recorded reply was served once.
    logged = [r["reply"] for r in log_records(report.log_path) if r["event"] == "reply"]
    assert sorted(logged) == sorted(r["reply"] for r in recorded)

    by_status = {c.status: c for c in report.candidates}
    assert "exact copy of spade/" in by_status["duplicate"].reason
    rejected = [c.reason.split(":")[0] for c in report.candidates if c.status == "rejected"]
    assert sorted(rejected) == ["budget", "extract", "policy", "policy", "syntax"]

    balance = next(c for c in report.candidates if c.env_id == "spade/BalanceScale-v0")
    assert balance.repairs == 1 and balance.turns[0].report.failures[0].name == "policy"
    assert "str.format() is not allowed" in balance.turns[1].messages[-1]["content"]

    probe = next(c for c in report.candidates if c.env_id == "spade/CircuitProbe-v0")
    assert probe.hint_source == "designer" and len(probe.hint_replies) == 2
    manifest = registry.get("spade/CircuitProbe-v0").manifest
    provenance = manifest.provenance.model_dump()
    assert provenance["hint"] == probe.hint and provenance["designer"] == "replay:designer.jsonl"
    assert provenance["origin"] == "generate" and provenance["repairs"] == 0
    assert provenance["document_id"] == probe.document_id
    assert provenance["log_id"] == f"c{probe.index:04d}-t0"
    assert (
        next(c for c in report.candidates if c.env_id == "spade/IceMaze-v0").hint_source
        == "program"
    )

    err = capsys.readouterr().err
    assert "generate 15/15" in err and "accepted 8" in err
    table = report.table()
    assert "spade/BalanceScale-v0" in table and "8 accepted, 5 rejected, 2 duplicate" in table


def test_a_repair_that_succeeds_on_the_second_turn(stores, tmp_path, capsys):
    registry, memory = stores
    broken = (
        (PROGRAMS / "lights_out.py")
        .read_text()
        .replace(
            '        return (\n            f"{lead}\\n{board}',
            '        return "{}".format(lead) + (\n            f"\\n{board}',
        )
    )
    assert ".format(" in broken
    replay = tmp_path / "replay.jsonl"
    replay.write_text(
        json.dumps({"reply": f"```python\n{broken}```"})
        + "\n"
        + json.dumps(
            {
                "reply": fenced("lights_out", "Fixed."),
                "purpose": "repair",
                "match": "class LightsOutEnv",
            }
        )
        + "\n"
    )
    report = generate(
        1,
        ReplayChat(replay),
        DOCS,
        registry=registry,
        memory=memory,
        max_repairs=1,
        progress=False,
        log=tmp_path / "run.jsonl",
    )
    cand = report.candidates[0]
    assert cand.status == "accepted" and cand.env_id == "spade/LightsOut-v0"
    assert [t.purpose for t in cand.turns] == ["design", "repair"]
    assert [t.report.ok for t in cand.turns] == [False, True]
    assert cand.turns[1].messages[-2]["role"] == "assistant"
    assert registry.get("spade/LightsOut-v0").manifest.provenance.model_dump()["repairs"] == 1
    assert capsys.readouterr().err == ""  # progress=False prints nothing


class Interrupting:
    """A backend that raises KeyboardInterrupt (Ctrl-C) on its n-th call."""

    def __init__(self, inner, at: int):
        self.inner, self.at, self.calls = inner, at, 0
        self.name = inner.name

    def complete(self, messages, n=1):
        self.calls += 1
        if self.calls == self.at:
            raise KeyboardInterrupt
        return self.inner.complete(messages, n)


def test_resume_after_an_interrupted_run(stores, tmp_path):
    registry, memory = stores
    broken = (
        (PROGRAMS / "balance_scale.py")
        .read_text()
        .replace(
            "max_turns = 6", "max_turns = 6\n    def __init__(self, _secret=None):\n        pass"
        )
    )
    lines = [
        {"reply": fenced("lights_out"), "match": "skill Skill_A"},
        {"reply": f"```python\n{broken}```", "match": "skill Skill_B"},
        {"reply": fenced("balance_scale"), "purpose": "repair", "match": "class BalanceScaleEnv"},
        {"reply": fenced("change_maker"), "match": "skill Skill_C"},
    ]
    replay = tmp_path / "replay.jsonl"
    replay.write_text("".join(json.dumps(x) + "\n" for x in lines))
    settings = dict(
        skills=("Skill_A", "Skill_B", "Skill_C"),
        registry=registry,
        memory=memory,
        concurrency=1,
        progress=False,
        log=tmp_path / "run.jsonl",
    )

    first = Interrupting(ReplayChat(replay), at=3)  # slot 0, slot 1's design, then Ctrl-C
    report = generate(3, first, DOCS, **settings)
    assert report.interrupted
    assert [c.status for c in report.candidates] == ["accepted", "interrupted", "interrupted"]

    second = Interrupting(ReplayChat(replay), at=0)
    report = generate(3, second, DOCS, **settings)
    assert not report.interrupted
    assert [c.status for c in report.candidates] == ["accepted"] * 3
    assert [c.resumed for c in report.candidates] == [True, False, False]
    # Slot 1's design reply came back from the log: only its repair and slot 2 were asked.
    assert second.calls == 2
    assert report.candidates[1].turns[0].from_log and not report.candidates[1].turns[1].from_log

    records = log_records(tmp_path / "run.jsonl")
    ids = [r["id"] for r in records if r["event"] == "reply"]
    assert sorted(ids) == ["c0000-t0", "c0001-t0", "c0001-t1", "c0002-t0"]
    assert sum(r["event"] == "interrupted" for r in records) == 1
    assert sorted(e.id for e in registry.list()) == [
        "spade/BalanceScale-v0",
        "spade/ChangeMaker-v0",
        "spade/LightsOut-v0",
    ]

    # The same command once more: everything is read back, nothing is asked.
    third = Interrupting(ReplayChat(replay), at=1)
    report = generate(3, third, DOCS, **settings)
    assert third.calls == 0 and all(c.resumed for c in report.candidates)

    with pytest.raises(ConfigError, match="written by a generate run with other settings"):
        generate(3, third, DOCS, seed=5, **settings)


def test_a_failing_model_is_an_error_not_a_crash(stores, tmp_path):
    registry, memory = stores
    replay = tmp_path / "replay.jsonl"
    replay.write_text(json.dumps({"reply": "x", "purpose": "repair"}) + "\n")
    report = generate(
        2,
        ReplayChat(replay),
        DOCS,
        registry=registry,
        memory=memory,
        progress=False,
        log=tmp_path / "run.jsonl",
    )
    assert [c.status for c in report.candidates] == ["error", "error"]
    assert "no recorded design reply is left" in report.candidates[0].reason
    errors = [r for r in log_records(tmp_path / "run.jsonl") if r["event"] == "llm_error"]
    assert len(errors) == 2


def test_settings_are_checked(stores, tmp_path):
    registry, _ = stores
    replay = tmp_path / "replay.jsonl"
    replay.write_text(json.dumps({"reply": "x"}) + "\n")
    llm = ReplayChat(replay)
    with pytest.raises(ConfigError, match="each kind is one of puzzle, tool, two_player"):
        generate(1, llm, DOCS, kinds=("race",), registry=registry)
    with pytest.raises(ConfigError, match=r"difficulty=0: difficulties are ints in 1\.\.5\."):
        generate(1, llm, DOCS, difficulty=(0, 3), registry=registry)
    with pytest.raises(ConfigError, match="concurrency=0"):
        generate(1, llm, DOCS, concurrency=0, registry=registry)
    assert llm.served == 0  # refused before anything was asked


def test_the_prompt_shows_frontier_negative_and_nearby_environments(stores, tmp_path):
    registry, memory = stores
    for name in ("lights_out", "balance_scale"):
        registry.add((PROGRAMS / f"{name}.py").read_text(), memory=memory)
    memory.record_plays("spade/LightsOut-v0", plain=[1.0, 0.0], hint=[1.0, 1.0])
    memory.record_plays("spade/BalanceScale-v0", plain=[1.0, 1.0, 1.0], hint=[1.0])
    replay = tmp_path / "replay.jsonl"
    replay.write_text(
        json.dumps({"reply": fenced("change_maker"), "match": "class LightsOutEnv"}) + "\n"
    )
    report = generate(
        1,
        ReplayChat(replay),
        DOCS,
        skills=("Optimization",),
        registry=registry,
        memory=memory,
        progress=False,
        log=tmp_path / "run.jsonl",
    )
    cand = report.candidates[0]
    assert cand.status == "accepted", cand.reason
    prompt = cand.prompt[1]["content"]
    assert (
        "### Lights out: switch off every light on the board. (spade/LightsOut-v0; "
        "skill Spatial_Reasoning, win rate 0.50, hint regret 0.50)" in prompt
    )
    assert "because it was too easy" in prompt and "spade/BalanceScale-v0" in prompt
    assert "These environments already exist near this document" in prompt
    assert cand.novelty is not None and cand.novelty["novel"] is True
