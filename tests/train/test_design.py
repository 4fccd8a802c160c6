"""The trainer's side of design: prompts sized to the model, library floors, checkpoints."""

from __future__ import annotations

import random


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


def test_checkpointed_candidates_round_trip_and_old_checkpoints_still_load():
    import json

    from spadegym.designer import Candidate, DesignTurn, Tokens
    from spadegym_train.checkpoint import RunState
    from spadegym_train.design import Plays

    sampler = random.Random(0).getstate()
    cand = Candidate(4, "logic", "puzzle", 2, "doc-1", "corpus", status="accepted")
    cand.turns = [DesignTurn("design", "c0004-a2", [{"role": "user", "content": "hi"}], "reply")]
    cand.env_id, cand.attempt, cand.floor = "Lock-v0", 2, 0.25
    cand.tokens = Tokens([1, 2], [3], old_logprobs=[-0.5], engine_logprobs=[-0.4])
    state = RunState(candidates=[cand], plays=[Plays([1.0], [0.5], [0.0], True)], sampler=sampler)
    (back,) = RunState.from_json(state.to_json()).candidates
    assert (back.index, back.reply, back.tokens, back.attempt, back.floor) == (
        4,
        "reply",
        cand.tokens,
        2,
        0.25,
    )
    assert back.accepted and back.env_id == "Lock-v0" and back.document_id == "doc-1"
    assert RunState.from_json(state.to_json()).plays == state.plays
    # A checkpoint written when the trainer had a candidate type of its own.
    old = json.loads(state.to_json())
    old["candidates"] = [
        {
            "skill": "logic",
            "prompt_ids": [1, 2],
            "response_ids": [3],
            "text": "the reply",
            "slot": 4,
            "attempt": 2,
            "difficulty": 2,
            "shown": {"examples": ["A-v0"]},
            "scripted": False,
            "valid": True,
            "feedback": "",
            "env_key": "Lock-v0",
            "old_logprobs": [-0.5],
            "engine_logprobs": [-0.4],
            "plain": [1.0],
            "hint": [0.5],
            "matched": [0.0],
            "failed": True,
            "floor": 0.25,
        }
    ]
    loaded = RunState.from_json(json.dumps(old))
    (was,) = loaded.candidates
    assert (was.index, was.reply, was.tokens, was.env_id, was.accepted) == (
        4,
        "the reply",
        cand.tokens,
        "Lock-v0",
        True,
    )
    assert was.shown == {"examples": ["A-v0"]} and loaded.plays == state.plays
