"""The time and memory budgets: every call the battery makes counts, and a validation ends."""

from __future__ import annotations

from sample_programs import LOCK_PICK

from spadegym import ValidationConfig, validate

SPIN = "        spin = sum(i * i for i in range({n}))\n"


def spinning(every_other: bool, n: int) -> str:
    """LOCK_PICK whose step computes for a while (on every other reply, or on each)."""
    guard = "        if self.turn % 2 == 0:\n    " if every_other else ""
    return LOCK_PICK.replace(
        "        guess = extract_boxed(action)\n",
        guard + SPIN.format(n=n) + "        guess = extract_boxed(action)\n",
    )


def test_a_slow_call_anywhere_stops_the_battery_at_once():
    # The solution wins in one reply: only the other checks' second replies are slow. Before,
    # only the solution's steps were timed, so such a program passed (and took minutes).
    report = validate(
        spinning(True, 3_000_000), ValidationConfig(step_budget=0.05, check_env=False)
    )
    assert [c.name for c in report.failures] == ["budget"], report.feedback()
    message = report.failures[0].message
    assert message.startswith("step() with the action ")
    assert "reset() and step() must finish within 0.05 s, every call." in message
    assert "robust" in report.not_run and "hint" in report.not_run
    assert report.seconds < 10


def test_a_validation_ends_within_its_total_budget():
    config = ValidationConfig(total_budget=0.5, fuzz_examples=200, check_env=False)
    report = validate(spinning(False, 100_000), config)
    assert [c.name for c in report.failures] == ["budget"], report.feedback()
    assert report.failures[0].message.startswith(
        "The validation ran past its total budget of 0.5 s;"
    )
    assert report.seconds < 5


def test_hint_counts_against_the_memory_budget():
    source = LOCK_PICK.replace(
        'return "Change one digit at a time and watch the count."',
        "ballast = [0] * 12_000_000\n"
        '        return "Change one digit at a time and watch the count."',
    )
    report = validate(source, ValidationConfig(memory_budget_mb=64, check_env=False))
    assert [c.name for c in report.failures] == ["budget"], report.feedback()
    assert report.failures[0].message.startswith("The worker's memory peaked at ")
    assert "(reset, step, solution and hint included)" in report.failures[0].message


def test_timings_cover_every_timed_call():
    report = validate(LOCK_PICK, ValidationConfig(fuzz_examples=5, check_env=False))
    assert report.ok, report.feedback()
    assert 0 < report.properties.step_ms_median <= report.properties.step_ms_max
    assert report.properties.peak_memory_mb > 0
