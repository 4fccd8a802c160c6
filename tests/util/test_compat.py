"""compat: the thread-safety workarounds hold when threads overlap."""

from __future__ import annotations

import threading
import warnings

from gymnasium import logger

from spadegym.util import compat


def test_overlapping_quiet_blocks_silence_gymnasium_and_restore_its_level():
    """Two threads whose blocks overlap: A enters, B enters, A leaves, B leaves."""
    before_level, before_filters = logger.min_level, list(warnings.filters)
    a_inside, b_inside, a_left = threading.Event(), threading.Event(), threading.Event()
    heard: list[int] = []

    def first():
        with compat.quiet_gymnasium():
            a_inside.set()
            assert b_inside.wait(5)
        a_left.set()

    def second():
        assert a_inside.wait(5)
        with compat.quiet_gymnasium():
            b_inside.set()
            assert a_left.wait(5)
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                logger.warn("silenced while a block runs")
            heard.append(len(caught))

    threads = [threading.Thread(target=first), threading.Thread(target=second)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(10)
    assert heard == [0]
    assert logger.min_level == before_level and warnings.filters == before_filters
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        logger.warn("heard again")
    assert len(caught) == 1
