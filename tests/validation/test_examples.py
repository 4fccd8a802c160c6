"""The shipped examples: every good program validates, every bad one fails for its one reason."""

from __future__ import annotations

from pathlib import Path

import pytest

from spadegym import ValidationConfig, validate

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
FAILS_ON = {
    "imports_os.py": "policy",
    "uses_global_random.py": "policy",
    "str_format.py": "policy",
    "raises_on_bad_action.py": "api",
    "solution_does_not_win.py": "solvable",
    "trivial_empty_reply_wins.py": "not_trivial",
    "leaky_hint.py": "hint",
    "infinite_loop_in_step.py": "budget",
}


@pytest.mark.parametrize("path", sorted((EXAMPLES / "good").glob("*.py")), ids=lambda p: p.name)
def test_good_examples_validate(path):
    report = validate(path.read_text(encoding="utf-8"), ValidationConfig(difficulties=(1, 3, 5)))
    assert report.ok, report.feedback()


@pytest.mark.parametrize("path", sorted((EXAMPLES / "bad").glob("*.py")), ids=lambda p: p.name)
def test_bad_examples_fail_for_their_reason(path):
    report = validate(path.read_text(encoding="utf-8"))
    assert [c.name for c in report.failures] == [FAILS_ON[path.name]], report.feedback()
