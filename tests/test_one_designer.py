"""One designer pipeline: the trainer designs through ``spadegym.designer``.

``spadegym_train`` once had its own candidate and slot types, its own slot planning,
validation and commit, and read registry programs by path; a change to one pipeline left the
other behind. These tests keep one: the trainer's side (``spadegym_train.design``) samples
replies and keeps the RL bookkeeping, and every pipeline step is the library's.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TRAINER = ROOT / "spadegym_train"
PIPELINE_TYPES = {"Candidate", "Slot", "DesignTurn", "Validated", "Prompt"}
PIPELINE_STEP = re.compile(r"(^|_)(validate|commit|admit|register|find_copies|retry|plan)", re.I)


def _trainer_modules():
    return sorted(TRAINER.rglob("*.py"))


def _definitions(path: Path):
    """``(qualified name, node)`` of every class and function, methods as ``Class.name``."""
    tree = ast.parse(path.read_text(encoding="utf-8"))

    def walk(body, prefix):
        for node in body:
            if isinstance(node, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
                yield prefix + node.name, node
                yield from walk(node.body, f"{prefix}{node.name}.")

    yield from walk(tree.body, "")


def test_the_trainer_defines_no_second_candidate_slot_validation_or_commit():
    found = []
    for path in _trainer_modules():
        for name, node in _definitions(path):
            where = f"{path.relative_to(ROOT)}:{node.lineno}"
            if isinstance(node, ast.ClassDef) and node.name in PIPELINE_TYPES:
                found.append(f"{where} class {name}")
            elif not isinstance(node, ast.ClassDef) and PIPELINE_STEP.search(node.name):
                if name != "Run.commit":  # commit_round, then the run's designs log
                    found.append(f"{where} def {name}")
    assert found == [], "use spadegym.designer (slots, rounds, commit)"


def test_the_trainer_reads_registry_programs_through_the_registry():
    by_path = re.compile(r"""["']env\.py["']""")
    found = [
        f"{path.relative_to(ROOT)}:{number}: {line.strip()}"
        for path in _trainer_modules()
        # Presets name shipped programs as recorded-reply files: a glob setting, not a read.
        if path.name != "presets.py"
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if by_path.search(line)
    ]
    assert found == [], "read a registered program with Registry.get(env_id).source()"


def test_the_pipeline_steps_are_the_designers():
    from spadegym.designer import commit, rounds, slots

    for module, names in [
        (slots, ["Slot", "plan_slot", "round_requests", "retry_requests", "pick_difficulty"]),
        (rounds, ["prompt_round", "find_copies", "validate_round", "commit_round"]),
        (commit, ["commit"]),
    ]:
        assert all(callable(getattr(module, name)) for name in names)
