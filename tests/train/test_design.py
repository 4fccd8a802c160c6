from __future__ import annotations


def test_the_prompt_budget_is_checked_and_the_short_prompt_fits(tiny):
    from spadegym.corpus.documents import load_corpus
    from spadegym_train.design_prompts import prompt_budget_problem, short_design_messages
    from spadegym_train.model import load_policy

    config = tiny()  # the character tokenizer: a token per character
    tokenizer = load_policy(config, config.workspace).tokenizer
    corpus = load_corpus(config.corpus)
    problem = prompt_budget_problem(config, tokenizer, corpus)
    assert problem is not None and "max_prompt_tokens=384 keeps only their last 384" in problem
    assert "designer_prompt=short" in problem
    short = tiny(designer_prompt="short", max_prompt_tokens=4000)
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
