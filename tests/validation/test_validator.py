"""Validator: the same verdicts as validate(), a fresh started-ahead worker per program."""

from __future__ import annotations

import time

from sample_programs import LOCK_PICK, make_program

from spadegym import ValidationConfig, validate
from spadegym.validation import Validator
from spadegym.validation.fuzz import MAX_FUZZ_TURNS, draw_templates

FAST = ValidationConfig(fuzz_examples=7, check_env=False)
BROKEN = make_program(step_body="raise ValueError('boom')")


def test_verdicts_match_validate():
    with Validator(FAST, workers=2) as validator:
        reports = validator.validate_many([LOCK_PICK, BROKEN, "no program here"])
    expected = [validate(text, FAST) for text in (LOCK_PICK, BROKEN, "no program here")]
    assert [r.ok for r in reports] == [e.ok for e in expected] == [True, False, False]
    for report, reference in zip(reports, expected, strict=True):
        assert [(c.name, c.passed, c.message) for c in report.checks] == [
            (c.name, c.passed, c.message) for c in reference.checks
        ]


def test_each_program_gets_its_own_worker_and_static_failures_get_none():
    taken = []
    with Validator(FAST, workers=1, ahead=1) as validator:
        take = validator.supply._take

        def recording_take():
            worker = take()
            taken.append(worker)
            return worker

        validator.supply._take = recording_take
        validator.validate_many([LOCK_PICK, "prose only", LOCK_PICK])
        assert len(taken) == 2 and taken[0] is not taken[1]
        assert not any(w.alive for w in taken)  # killed after their one use


def test_workers_wait_ahead_and_warm_up_happens_in_the_background():
    draw_templates.cache_clear()
    validator = Validator(ValidationConfig(fuzz_examples=9), workers=2)
    try:
        deadline = time.monotonic() + 30
        while validator.supply.ready < 2:
            assert time.monotonic() < deadline
            time.sleep(0.01)
        validator._warming.join(30)
        assert draw_templates.cache_info().currsize == 1
        draw_templates(9, 0, MAX_FUZZ_TURNS)
        assert draw_templates.cache_info().hits >= 1
    finally:
        validator.close()
    assert validator.supply.ready == 0


def test_progress_and_memory_run_in_this_process(tmp_path):
    from spadegym.memory import EnvironmentMemory, HashingEmbedder

    seen = []
    with (
        EnvironmentMemory(tmp_path, HashingEmbedder()) as memory,
        Validator(FAST, workers=2, warm=False) as validator,
    ):
        memory.add("lock-pick", LOCK_PICK)
        reports = validator.validate_many(
            [LOCK_PICK, BROKEN], memory=memory, progress=lambda k, r: seen.append((k, r.ok))
        )
    assert sorted(seen) == [(0, False), (1, False)]
    assert reports[0].failures[0].name == "novelty"
    assert "lock-pick" in reports[0].failures[0].message
