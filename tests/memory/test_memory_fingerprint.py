from __future__ import annotations

import pytest
from devset import programs

from spadegym.errors import ProgramError
from spadegym.memory import code_similarity, shingles, summarize

SOURCES = programs()


def test_summary_reads_docstring_skill_and_kind():
    s = summarize(SOURCES["lock"])
    assert s.class_name == "LockPickEnv"
    assert s.title == "Pick a combination lock by listening to the clicks."
    assert s.description.startswith("A 3-digit lock: each guess")
    assert s.skill == "Logical_Deduction"
    assert s.kind == "puzzle"
    assert summarize(SOURCES["hanoi"]).skill == ""


def test_kinds():
    tool = "from spadegym.program import ToolEnv\nclass ShopEnv(ToolEnv):\n    '''Shop.'''\n"
    game = "class DuelEnv:\n    '''Duel.'''\n    num_players = 2\n    def reset(self): pass\n"
    assert summarize(tool).kind == "tool"
    assert summarize(game).kind == "two-player"


@pytest.mark.parametrize("variant", ["renamed", "reformatted"])
@pytest.mark.parametrize("base", ["lock", "nim", "maze", "wordle", "hanoi", "knapsack"])
def test_renamed_and_reordered_copies_share_the_fingerprint(base, variant):
    copy = SOURCES[f"{base}_{variant}"]
    assert summarize(SOURCES[base]).fingerprint == summarize(copy).fingerprint


def test_rewording_strings_keeps_the_fingerprint():
    source = SOURCES["lock"].replace("Click. The lock opens.", "It opens!")
    assert summarize(source).fingerprint == summarize(SOURCES["lock"]).fingerprint


def test_changed_number_changes_the_fingerprint_not_the_similarity():
    changed = SOURCES["lock"].replace("range(3)", "range(4)")
    a, b = summarize(SOURCES["lock"]), summarize(changed)
    assert a.fingerprint != b.fingerprint
    assert code_similarity(shingles(a.shape), shingles(b.shape)) > 0.9


def test_different_games_have_low_code_similarity():
    a, b = summarize(SOURCES["lock"]), summarize(SOURCES["safe_dial"])
    assert code_similarity(shingles(a.shape), shingles(b.shape)) < 0.5


def test_no_env_class_is_refused():
    with pytest.raises(ProgramError, match="no public class whose name ends in 'Env'"):
        summarize("class Game:\n    pass\n")


def test_syntax_error_names_the_line():
    with pytest.raises(ProgramError, match="Line 2: the program does not parse"):
        summarize("x = 1\ndef (:\n")
