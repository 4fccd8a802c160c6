"""The autoreset modes by name, and the seed rule (``spadegym.vector.autoreset``)."""

from __future__ import annotations

import pytest
from gymnasium.vector import AutoresetMode

from spadegym.errors import SpadegymError
from spadegym.vector.autoreset import autoreset_mode_of, next_seed, seed_generator


def test_autoreset_modes_are_named_by_enum_name_value_or_bool():
    assert autoreset_mode_of(AutoresetMode.NEXT_STEP) is AutoresetMode.NEXT_STEP
    assert autoreset_mode_of("next_step") is AutoresetMode.NEXT_STEP
    assert autoreset_mode_of("SameStep") is AutoresetMode.SAME_STEP
    assert autoreset_mode_of("DISABLED") is AutoresetMode.DISABLED
    assert autoreset_mode_of(True) is AutoresetMode.SAME_STEP
    assert autoreset_mode_of(False) is AutoresetMode.DISABLED
    for wrong in ("next", 1, None):
        with pytest.raises(SpadegymError, match=f"autoreset_mode={wrong!r} is not a mode: write"):
            autoreset_mode_of(wrong)


def test_the_seed_rule_is_gymnasiums_env_np_random():
    import gymnasium

    env = gymnasium.Env()
    env.reset(seed=9)
    expected = [int(env.np_random.integers(0, 2**31 - 1)) for _ in range(3)]
    generator = seed_generator(9)
    assert [next_seed(generator) for _ in range(3)] == expected
    assert next_seed(seed_generator([9, 0])) != next_seed(seed_generator([9, 1]))
