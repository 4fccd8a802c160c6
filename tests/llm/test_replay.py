from __future__ import annotations

import json
import subprocess
import sys

import pytest

from spadegym.designer.prompts import design_messages, hint_messages, repair_messages
from spadegym.errors import ConfigError
from spadegym.llm import LLMError, RecordingChat, ReplayChat, llm_from_spec, request_purpose

DESIGN = design_messages("Optimization", 2, "A document.")


def write(path, records):
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


def test_request_purpose_tells_design_repair_and_hint_apart():
    assert request_purpose(DESIGN) == "design"
    assert request_purpose(repair_messages(DESIGN, "reply", "- syntax: bad")) == "repair"
    assert request_purpose(hint_messages("class AEnv: pass")) == "hint"


def test_hand_written_replies_are_served_by_purpose_and_match(tmp_path):
    path = write(
        tmp_path / "r.jsonl",
        [
            {"reply": "first design"},
            {"reply": "fix for B", "purpose": "repair", "match": "class BEnv"},
            {"reply": "second design"},
            {"reply": "hint for A", "purpose": "hint", "match": "class AEnv"},
            {"reply": "generic hint", "purpose": "hint"},
            {"reply": "matched design", "match": "SPECIAL"},
        ],
    )
    llm = ReplayChat(path)
    assert llm.complete(DESIGN) == ["first design"]
    special = design_messages("Optimization", 2, "A SPECIAL document.")
    assert llm.complete(special) == ["matched design"]
    assert llm.complete(repair_messages(DESIGN, "class BEnv: ...", "x")) == ["fix for B"]
    assert llm.complete(hint_messages("class ZEnv: pass")) == ["generic hint"]
    assert llm.complete(hint_messages("class AEnv: pass")) == ["hint for A"]
    assert llm.complete(DESIGN) == ["second design"]
    with pytest.raises(LLMError, match="no recorded design reply is left"):
        llm.complete(DESIGN)
    with pytest.raises(LLMError, match="no recorded repair reply is left"):
        llm.complete(repair_messages(DESIGN, "class CEnv: ...", "x"))
    assert llm.served == 6


def test_cycle_serves_the_design_replies_again(tmp_path):
    llm = ReplayChat(write(tmp_path / "r.jsonl", [{"reply": "a"}, {"reply": "b"}]), cycle=True)
    assert [llm.complete(DESIGN)[0] for _ in range(5)] == ["a", "b", "a", "b", "a"]
    assert llm.complete(DESIGN, n=2) == ["b", "a"]


def test_recording_then_replaying_gives_the_same_replies(tmp_path):
    inner = ReplayChat(
        write(tmp_path / "src.jsonl", [{"reply": "one"}, {"reply": "two"}, {"reply": "three"}])
    )
    recorder = RecordingChat(inner, tmp_path / "rec" / "log.jsonl")
    asked = [design_messages("Optimization", 2, f"doc {k}") for k in range(3)]
    answers = [recorder.complete(m)[0] for m in asked]
    with pytest.raises(LLMError):
        recorder.complete(asked[0])  # exhausted: the failure is recorded too
    lines = [json.loads(x) for x in (tmp_path / "rec" / "log.jsonl").read_text().splitlines()]
    assert len(lines) == 4 and "error" in lines[-1]
    replay = ReplayChat(tmp_path / "rec" / "log.jsonl")
    # Recorded exchanges are matched by their messages, whatever the order of asking.
    assert [replay.complete(m)[0] for m in reversed(asked)] == list(reversed(answers))


def test_bad_replay_files_are_refused_with_the_line(tmp_path):
    with pytest.raises(ConfigError, match="cannot read the replay file"):
        ReplayChat(tmp_path / "missing.jsonl")
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"reply": "ok"}\n{"purpose": "design"}\n')
    with pytest.raises(ConfigError, match=r"bad.jsonl:2: a hand-written line needs a \"reply\""):
        ReplayChat(bad)
    bad.write_text('{"reply": "x", "purpose": "review"}\n')
    with pytest.raises(ConfigError, match="purpose 'review' is not one of design, repair, hint"):
        ReplayChat(bad)


def test_llm_spec_parsing(tmp_path):
    path = write(tmp_path / "r.jsonl", [{"reply": "a"}])
    assert isinstance(llm_from_spec(f"replay:{path}"), ReplayChat)
    pytest.importorskip("openai")
    llm = llm_from_spec("openai:Qwen/Qwen3-8B@http://localhost:8000/v1")
    assert llm.config.model == "Qwen/Qwen3-8B"
    assert llm.config.base_url == "http://localhost:8000/v1"
    assert llm_from_spec("openai:user@org/model").config.model == "user@org/model"
    with pytest.raises(ConfigError, match="unknown scheme 'ollama'"):
        llm_from_spec("ollama:llama3")
    with pytest.raises(ConfigError, match="has no value after the scheme"):
        llm_from_spec("openai:")


def test_importing_spadegym_loads_no_heavy_backend():
    code = (
        "import sys, spadegym, spadegym.llm, spadegym.designer, spadegym.corpus\n"
        "spadegym.generate\n"
        "heavy = [m for m in ('openai', 'torch', 'transformers') if m in sys.modules]\n"
        "print(heavy)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"
