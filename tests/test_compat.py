"""compat: the thread-safety workarounds hold when threads overlap."""

from __future__ import annotations

import threading
import warnings

from spadegym import compat


def test_overlapping_ignore_warnings_leave_the_filters_as_they_were():
    """Two threads whose blocks overlap (A enters, B enters, A leaves, B leaves)."""
    before = list(warnings.filters)
    a_inside, b_inside, a_left = threading.Event(), threading.Event(), threading.Event()

    def first():
        with compat.ignore_warnings():
            a_inside.set()
            b_inside.wait(0.5)  # B cannot get in while A is: this times out
        a_left.set()

    def second():
        a_inside.wait(5)
        with compat.ignore_warnings():
            b_inside.set()
            a_left.wait(5)

    threads = [threading.Thread(target=first), threading.Thread(target=second)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(10)
    assert warnings.filters == before
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        warnings.warn("still heard", UserWarning, stacklevel=1)
    assert [str(w.message) for w in caught] == ["still heard"]
