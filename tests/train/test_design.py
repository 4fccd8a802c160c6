from __future__ import annotations

import random
from pathlib import Path

import pytest

from spadegym_train.design import Candidate, designer_difficulty, first_slots, retry_slots


def test_retries_take_failed_model_slots_with_attempts_left(tiny):
    config = tiny({"design.docs_per_regen": 2, "design.candidates_per_doc": 2})
    slots = first_slots(config, 0)
    assert [s.index for s in slots] == [0, 1, 2, 3]
    assert slots[0].skill == slots[1].skill != slots[2].skill  # one prompt, one skill
    cands = [Candidate(s.skill, [], [], "", slot=s.index, attempt=1) for s in slots]
    cands[1].valid = True
    cands.append(Candidate("x", [], [], "", slot=9, scripted=True))  # recorded: never retried
    assert [s.index for s in retry_slots(cands, 3)] == [0, 2, 3]
    cands += [Candidate(s.skill, [], [], "", slot=s.index, attempt=3) for s in slots[:1]]
    assert [s.index for s in retry_slots(cands, 3)] == [2, 3]  # slot 0 used its 3 attempts


@pytest.mark.parametrize(
    ("setting", "expected"), [(3, [3, 3, 3]), ([1, 4], [1, 4, 1]), ("random", None)]
)
def test_designer_difficulty(tiny, setting, expected):
    config = tiny({"design.difficulty": setting})
    rng = random.Random(0)
    levels = [designer_difficulty(config, rng, slot) for slot in range(3)]
    if expected is None:
        assert all(1 <= d <= 5 for d in levels)
        again = random.Random(0)
        assert levels == [designer_difficulty(config, again, slot) for slot in range(3)]
    else:
        assert levels == expected


def test_commit_embeds_each_accepted_candidate_once(tmp_path, isolated_spadegym):
    pytest.importorskip("faiss")
    from counting import CountingEmbedder

    from spadegym.memory import DedupConfig, EnvironmentMemory
    from spadegym.validation import validate
    from spadegym_train.design import Validated, commit

    program = (Path(__file__).parents[2] / "examples" / "good" / "lock_pick.py").read_text()
    report = validate(program)
    assert report.ok, report.feedback()
    embedder = CountingEmbedder()
    dedup = DedupConfig(behaviour=False)  # this counts embeddings; no signatures needed
    with EnvironmentMemory(tmp_path / "memory", embedder, dedup=dedup) as memory:
        candidate = Candidate("logic", [], [], program, slot=0)
        accepted, _ = commit([candidate], Validated([report]), memory, tmp_path / "registry", 0)
        assert [c for c, _ in accepted] == [candidate] and candidate.valid
        assert len(embedder.texts) == 1  # by the novelty check; the add reuses it
        assert memory.near(embedder.texts[0], k=1)[0].env_id == candidate.env_key


def test_the_prompt_budget_is_checked_and_the_short_prompt_fits(tiny):
    from spadegym.corpus.documents import load_corpus
    from spadegym_train.design_prompts import prompt_budget_problem, short_design_messages
    from spadegym_train.model import load_policy

    config = tiny()  # the character tokenizer: a token per character
    tokenizer = load_policy(config, config.workspace).tokenizer
    corpus = load_corpus(config.design.corpus)
    problem = prompt_budget_problem(config, tokenizer, corpus)
    assert (
        problem is not None
        and "generation.max_prompt_tokens=384 keeps only their last 384" in problem
    )
    assert "design.prompt=short" in problem
    short = tiny({"design.prompt": "short", "generation.max_prompt_tokens": 4000})
    assert prompt_budget_problem(short, tokenizer, corpus) is None
    text = short_design_messages("Logical_Deduction", "A long document. " * 200)[1]["content"]
    assert "Logical_Deduction" in text and "class AppleSumEnv" in text and len(text) < 2000


def test_the_short_example_is_a_valid_program():
    from spadegym.validation import validate
    from spadegym_train.design_prompts import SHORT_EXAMPLE

    assert validate(SHORT_EXAMPLE).ok


def test_library_floors_are_read_from_manifests_tolerantly(tmp_path):
    import json

    from spadegym_train.library import manifest_floor, read_library

    folder = tmp_path / "Cups-v0"
    folder.mkdir()
    (folder / "env.py").write_text("# a program\n")
    assert manifest_floor(folder) is None  # no manifest
    (folder / "manifest.json").write_text("{not json")
    assert manifest_floor(folder) is None
    manifest = {"validation": {"ok": True, "properties": {"floor": 0.5}}}
    (folder / "manifest.json").write_text(json.dumps(manifest))
    assert manifest_floor(folder) == 0.5
    assert read_library(tmp_path)[0].floor == 0.5
    manifest["validation"]["properties"]["floor"] = "high"
    (folder / "manifest.json").write_text(json.dumps(manifest))
    assert manifest_floor(folder) is None


def test_a_design_that_does_not_parse_is_left_to_validation_not_a_crash(tmp_path):
    from spadegym.memory import EnvironmentMemory, embedder_from_name
    from spadegym_train.design import Candidate, find_copies

    # What SmolLM2 wrote in a small-cpu-spade run: a code block that does not parse.
    broken = Candidate("x", [], [], '```python\nclass A:\n    x = "unterminated\n```')
    with EnvironmentMemory(tmp_path / "m", embedder_from_name("hashing-384")) as memory:
        assert find_copies([broken], memory) == {}
