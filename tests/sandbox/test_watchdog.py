"""The runtime watchdog: programs that change after N episodes in one worker are quarantined.

The programs keep a counter in a class attribute (the restricted policy allows it), so their
behaviour changes after N resets in a worker, as the acceptance set's kinds 8 and 9 do after
400 and 300. N is 20 here, and the probe replays every 10 episodes, so the tests run in
seconds.
"""

from __future__ import annotations

import pytest
from sample_programs import make_program

from spadegym.errors import ConfigError, ProgramError
from spadegym.sandbox import SandboxConfig, SandboxPool
from spadegym.sandbox.handle import program_digest
from spadegym.sandbox.watchdog import Watchdog, WatchdogConfig, _over
from spadegym.vector import EnvBatch

FAST = WatchdogConfig(probe_every=10)
SLOW_CALL = "sum(range(10 ** 7))"  # about 0.2 s of computing: over a 0.05 s budget

FLIPS = make_program(
    """
    if ProbeEnv.count > 20:
        return "You win.", 1.0, True, False, {}
    return "Wrong.", 0.0, False, False, {}
    """,
    reset_body='ProbeEnv.count += 1\nreturn "Say the word.", {}',
    extra="count = 0",
)
"""State shared between instances: after 20 resets every reply wins (kind 8)."""

SLOWS = make_program(
    'return "Wrong.", 0.0, False, False, {}',
    reset_body=f"ProbeEnv.count += 1\nif ProbeEnv.count > 20:\n    {SLOW_CALL}\n"
    'return "Say the word.", {}',
    extra="count = 0",
)
"""``reset()`` computes for about 0.2 s from its 21st call in a worker on (kind 9)."""

ONCE = make_program(
    'return "Wrong.", 0.0, False, False, {}',
    reset_body=f"ProbeEnv.count += 1\nif ProbeEnv.count == 5:\n    {SLOW_CALL}\n"
    'return "Say the word.", {}',
    extra="count = 0",
)
"""Slow on one call only (its fifth reset), as a call on a loaded machine can be."""


def play(pool: SandboxPool, source: str, episodes: int, width: int = 4) -> list:
    """Reset ``width`` instances ``episodes / width`` times, stepping each once; the errors."""
    handles = [pool.open(source, "probe.py") for _ in range(width)]
    errors = []
    for round_ in range(episodes // width):
        seeds = [(h, round_ * width + k, None) for k, h in enumerate(handles)]
        results = pool.reset_batch(seeds)
        results += pool.step_batch([(h, "hello") for h in handles])
        errors += [r for r in results if isinstance(r, ProgramError)]
    pool.release_many(handles)
    return errors


def test_a_reset_that_slows_down_after_20_episodes_is_quarantined():
    with SandboxPool(1, watchdog=FAST) as pool:
        pool.watchdog.expect(program_digest(SLOWS), slowest_ms=0.4)  # validation's slowest
        errors = play(pool, SLOWS, 60)
        assert errors and pool.quarantined(program_digest(SLOWS))
        message = str(errors[0])
        assert errors[0].kind == "quarantined"
        assert message.startswith("quarantined by the watchdog: reset(seed=")
        assert "s of it computing) after " in message and " episodes of probe.py in its " in message
        assert (
            "its budget is 0.05 s (50 x the slowest call validation timed, 0.4 ms, within "
            "[0.05 s, 0.5 s]). The program slows down as it runs" in message
        )
        with pytest.raises(ProgramError, match="quarantined by the watchdog: reset"):
            pool.open(SLOWS)  # the whole program, in this pool


def test_without_validated_timings_the_budget_is_the_step_budget():
    with SandboxPool(1, watchdog=WatchdogConfig(probe_every=10, step_budget=0.1)) as pool:
        errors = play(pool, SLOWS, 60)
        assert errors and "its budget is 0.1 s (the validation's step budget)" in str(errors[0])


def test_every_reply_winning_after_20_episodes_is_caught_by_the_probe_replay():
    with SandboxPool(1, watchdog=FAST) as pool:
        errors = play(pool, FLIPS, 60)
        assert errors and errors[0].kind == "quarantined"
        message = str(errors[0])
        assert message.startswith("quarantined by the watchdog: the probe replay of probe.py ")
        assert (
            "differs at step 1 after 20 episodes in its worker: observation 'You win.' where "
            "it was 'Wrong.' when it was first loaded (seed " in message
        )
        assert "replies ['0', 'yes', " in message
        assert "]). The program changes as it runs: instances must not share state" in message


def test_the_vectorised_batch_is_watched():
    # EnvBatch steps through its pool's batches: its autoresets are counted and probed.
    with (
        SandboxPool(2, watchdog=FAST) as pool,
        EnvBatch([FLIPS, FLIPS], pool=pool, seed=0) as batch,
    ):
        batch.reset(seed=0)
        kinds = []
        for _ in range(150):  # 30 episodes of 5 turns, in each of the two workers
            _, _, _, _, infos = batch.step(["nope", "nope"])
            kinds += [i.get("error", {}).get("kind") for i in infos]
        assert "quarantined" in kinds


def test_a_single_handles_resets_are_watched():
    with SandboxPool(1, watchdog=FAST) as pool:
        handle = pool.open(FLIPS)
        with pytest.raises(ProgramError, match="the probe replay of <program> differs"):
            for seed in range(40):
                handle.reset(seed)
                handle.step("nope")


def test_a_well_behaved_program_is_never_quarantined(lock_pick):
    with SandboxPool(2, watchdog=FAST) as pool:
        assert play(pool, lock_pick, 400, width=8) == []
        watch = pool.watchdog._watches[program_digest(lock_pick)]
        assert watch.transcript is not None and len(watch.transcript.frames) >= 2
        assert sum(watch.episodes.values()) == 400  # replayed 40 times, never differed


def test_one_slow_call_does_not_quarantine():
    # The fifth reset computes 0.2 s, four times the budget: one slow batch is not suspicion
    # enough (suspect_after), and the probe plays a slow call again before it judges.
    with SandboxPool(1, watchdog=FAST) as pool:
        pool.watchdog.expect(program_digest(ONCE), slowest_ms=0.4)
        assert play(pool, ONCE, 60) == []


def test_a_probe_that_meets_one_slow_call_plays_again_before_it_judges():
    second = make_program(
        'return "Wrong.", 0.0, False, False, {}',
        reset_body=f"ProbeEnv.count += 1\nif ProbeEnv.count == 2:\n    {SLOW_CALL}\n"
        'return "Say the word.", {}',
        extra="count = 0",
    )
    with SandboxPool(1, watchdog=FAST) as pool:
        pool.watchdog.expect(program_digest(second), slowest_ms=0.4)
        handle = pool.open(second)
        assert pool.watchdog.probe(handle) is None  # records the transcript (reset 1)
        assert pool.watchdog.probe(handle) is None  # reset 2 is slow, its replay (3) is not
        slows = make_program(
            'return "Wrong.", 0.0, False, False, {}',
            reset_body=f"ProbeEnv.count += 1\nif ProbeEnv.count >= 2:\n    {SLOW_CALL}\n"
            'return "Say the word.", {}',
            extra="count = 0",
        )
        pool.watchdog.expect(program_digest(slows), slowest_ms=0.4)
        handle = pool.open(slows)
        assert pool.watchdog.probe(handle) is None
        breach = pool.watchdog.probe(handle)  # slow twice in a row
        assert breach is not None and breach.kind == "quarantined"


def test_slow_batches_only_lead_to_a_probe_that_clears_a_fast_program(lock_pick):
    # A loaded machine (or a slow batch-mate) makes whole batches slow: the fast program is
    # suspected after suspect_after of them and probed, and its probe is fast.
    with SandboxPool(1, watchdog=FAST) as pool:
        handle = pool.open(lock_pick)
        handle.reset(0)
        suspects = [pool.watchdog.observe([(handle, {"op": "step"})], 2.0) for _ in range(3)]
        assert suspects == [[], [], [handle]]
        pool.probe(suspects[-1])
        assert not pool.quarantined(handle.digest)
        assert pool.watchdog.observe([(handle, {"op": "step"})], 2.0) == []  # counted afresh


def test_a_call_that_waited_for_the_machine_is_not_over_budget():
    assert not _over(wall=1.0, cpu=0.01, budget=0.05)  # waited: little computing
    assert _over(wall=1.0, cpu=0.9, budget=0.05)
    assert _over(wall=1.0, cpu=None, budget=0.05)  # CPU time unknown: wall time decides
    assert not _over(wall=0.01, cpu=0.01, budget=0.05)


def test_the_budget_rule():
    watchdog = Watchdog(WatchdogConfig())
    for slowest, budget in ((0.2, 0.05), (4.0, 0.2), (50.0, 0.5), (None, 0.5)):
        watchdog.expect("d", slowest)
        assert watchdog._expected["d"][0] == pytest.approx(budget)
    watchdog.expect("d", None, step_budget=0.2)  # validated under a stricter step budget
    assert watchdog._expected["d"][0] == 0.2


def test_bad_settings_are_refused():
    with pytest.raises(ConfigError, match="need 0 < budget_floor <= step_budget"):
        WatchdogConfig(budget_floor=1.0)
    with pytest.raises(ConfigError, match="give the pool watchdog=None"):
        WatchdogConfig(probe_every=0)


def test_the_watchdog_can_be_turned_off():
    with SandboxPool(1, watchdog=None) as pool:
        assert pool.watchdog is None
        assert play(pool, FLIPS, 60) == []


def test_the_defaults_catch_a_flip_after_400_episodes_within_100():
    late = FLIPS.replace("ProbeEnv.count > 20", "ProbeEnv.count > 400")
    with SandboxPool(1) as pool:  # the default WatchdogConfig
        errors = play(pool, late, 560, width=8)
        assert errors and "differs at step 1 after 400 episodes in its worker" in str(errors[0])


@pytest.mark.slow
def test_the_defaults_catch_a_reset_half_a_second_slow_after_300_episodes():
    # Kind 9 as it came: about 0.5 s per reset from the 300th on. Held to 50 x what validation
    # measured (0.4 ms here: 0.05 s), it is caught at the next probe.
    late = SLOWS.replace("ProbeEnv.count > 20", "ProbeEnv.count > 300").replace(
        "10 ** 7", "2 * 10 ** 7"
    )
    with SandboxPool(1) as pool:
        pool.watchdog.expect(program_digest(late), slowest_ms=0.4)
        errors = play(pool, late, 400, width=4)
        assert errors and " after 300 episodes of probe.py in its worker; its budget is 0.05 s" in (
            str(errors[0])
        )


def test_a_step_stuck_from_the_start_is_quarantined_at_the_first_reset():
    # The probe meets the stuck step at the program's first reset, not at a batch's first step:
    # its worker is killed, a hard timeout, so the pool's strike quarantines it; without
    # strikes, the watchdog's breach does.
    stuck = make_program("total = sum(range(10 ** 13))\nreturn 'x', 0.0, False, False, {}")
    config = SandboxConfig(call_timeout=0.5, kill_grace=0.5)
    for strikes, kind, says in (
        (1, "timeout", "stuck.py is quarantined: one of its calls ran past the hard deadline"),
        (0, "quarantined", "quarantined by the watchdog: step('0') took "),
    ):
        with SandboxPool(1, config, quarantine_after=strikes, watchdog=FAST) as pool:
            handle = pool.open(stuck, "stuck.py")
            (error,) = pool.reset_batch([(handle, 0, None)])
            assert isinstance(error, ProgramError) and error.kind == kind
            assert str(error).startswith(says)
    assert " at the first use of stuck.py in this pool; its budget is 0.5 s" in str(error)


def test_timing_alone_catches_a_slowdown_between_probes():
    # Probes far apart: three slow reset batches make the program suspect, and the probe they
    # call for finds its reset over budget.
    rare = WatchdogConfig(probe_every=10**6)
    with SandboxPool(1, watchdog=rare) as pool:
        pool.watchdog.expect(program_digest(SLOWS), slowest_ms=0.4)
        errors = play(pool, SLOWS, 48)
        assert errors and pool.quarantined(program_digest(SLOWS))
        assert "reset(seed=" in str(errors[0]) and "episodes of probe.py in its worker" in str(
            errors[0]
        )


def test_a_batch_of_registered_programs_takes_their_validated_timings():
    import spadegym  # noqa: F401  (registers the shipped library)
    from spadegym.registry import Registry, shipped_root

    env = Registry(shipped_root()).get("spade/NumberPick-v0")
    slowest = env.manifest.validation.properties["step_ms_max"]
    with EnvBatch(["spade/NumberPick-v0"], seed=0) as batch:
        budget, why = batch.pool.watchdog._expected[program_digest(env.source())]
    assert f"{slowest:g} ms" in why
    assert budget == min(0.5, max(0.05, 50 * slowest / 1000))
