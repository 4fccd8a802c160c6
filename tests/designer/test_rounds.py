"""A design round: prompts, candidates, recorded replies, validation and commit."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from spadegym.corpus import load_corpus
from spadegym.designer import Candidate, DesignTurn, Tokens
from spadegym.designer.rounds import (
    Validated,
    commit_round,
    find_copies,
    prompt_round,
    round_candidates,
    scripted_candidates,
)
from spadegym.registry import Registry
from spadegym.validation import validate

GOOD = Path(__file__).resolve().parents[2] / "examples" / "good"


def _cand(index: int, reply: str) -> Candidate:
    cand = Candidate(index, "logic", "puzzle", 3, "doc", "corpus")
    cand.turns = [DesignTurn("design", f"c{index:04d}-a1", [], reply)]
    return cand


def test_a_round_shares_prompts_and_adds_recorded_replies_as_slots_of_their_own(tmp_path):
    corpus = load_corpus(None)
    requests = [(0, "logic"), (1, "logic"), (2, "math"), (3, "math")]
    prompts = prompt_round(
        requests, 2, corpus, random.Random(0), [1, 4, 5], memory=None, registry=Registry(tmp_path)
    )
    assert [[s.index for s in p.slots] for p in prompts] == [[0, 1], [2, 3]]
    assert [p.slots[0].difficulty for p in prompts] == [1, 5]  # by the group's first slot
    assert "logic" in prompts[0].messages[-1]["content"]
    assert prompts[0].slots[0].document is prompts[0].slots[1].document
    tokens = [Tokens([k], [k, k]) for k in range(4)]
    cands = round_candidates(prompts, ["a", "b", "c", "d"], tokens, 1, corpus.name)
    assert [(c.index, c.skill, c.reply, c.tokens) for c in cands] == [
        (k, s, r, t) for (k, s), r, t in zip(requests, "abcd", tokens, strict=True)
    ]
    recorded = scripted_candidates(prompts, ["x", "y", "z"], 2, 1, 4, corpus.name)
    assert [(c.index, c.skill, c.reply) for c in recorded] == [(4, "logic", "z"), (5, "logic", "x")]
    assert all(c.scripted and c.tokens is None for c in recorded)  # never trained on
    short = prompt_round(
        requests[:1],
        1,
        corpus,
        random.Random(0),
        3,
        memory=None,
        registry=Registry(tmp_path),
        short=True,
    )
    assert "class AppleSumEnv" in short[0].messages[-1]["content"]


def test_commit_embeds_each_accepted_candidate_once(tmp_path, isolated_spadegym):
    pytest.importorskip("faiss")
    from counting import CountingEmbedder

    from spadegym.memory import DedupConfig, EnvironmentMemory

    program = (GOOD / "lock_pick.py").read_text()
    report = validate(program)
    assert report.ok, report.feedback()
    embedder = CountingEmbedder()
    dedup = DedupConfig(behaviour=False)  # this counts embeddings; no signatures needed
    with EnvironmentMemory(tmp_path / "memory", embedder, dedup=dedup) as memory:
        candidate = _cand(0, program)
        registry = Registry(tmp_path / "registry")
        accepted = commit_round([candidate], Validated([report]), registry, memory, set(), {})
        assert [c for c, _ in accepted] == [candidate] and candidate.accepted
        assert len(embedder.texts) == 1  # by the novelty check; the add reuses it
        assert memory.near(embedder.texts[0], k=1)[0].env_id == candidate.env_id
        assert memory.get(candidate.env_id).skill == "logic"  # the skill the round asked for
        provenance = registry.get(candidate.env_id).manifest.provenance.model_dump()
        assert provenance["candidate"] == 0 and provenance["attempt"] == 1


class _Worker:
    killed = False

    def kill(self):
        self.killed = True


def test_commit_gives_every_candidate_a_verdict_and_kills_every_sandbox(tmp_path):
    program = (GOOD / "lock_pick.py").read_text()
    report = validate(program)
    failing = validate("no program here")
    cands = [_cand(k, reply) for k, reply in enumerate([program, program, "x", "copy"])]
    kept = _Worker()
    validated = Validated([report, report, failing, None], {3: "Old-v0"}, {1: kept})
    registered: set[str] = set()
    accepted = commit_round(cands, validated, Registry(tmp_path), None, registered, {})
    assert [c.status for c in cands] == ["accepted", "duplicate", "rejected", "duplicate"]
    assert [c for c, _ in accepted] == [cands[0]] and registered == {cands[0].env_id}
    assert "registered earlier in this run" in cands[1].reason
    assert cands[2].reason.startswith("extract:")
    assert cands[3].reason == "exact copy of Old-v0 (same normalised code)"
    assert kept.killed and validated.sandboxes == {}


def test_a_design_that_does_not_parse_is_left_to_validation_not_a_crash(tmp_path):
    from spadegym.memory import EnvironmentMemory, embedder_from_name

    # What SmolLM2 wrote in a small-cpu-spade run: a code block that does not parse.
    broken = _cand(0, '```python\nclass A:\n    x = "unterminated\n```')
    with EnvironmentMemory(tmp_path / "m", embedder_from_name("hashing-384")) as memory:
        assert find_copies([broken], memory) == {}
