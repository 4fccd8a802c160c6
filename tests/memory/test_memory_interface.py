"""``EnvironmentMemory`` implements ``MemoryLike``, the protocol the rest of spadegym uses."""

from __future__ import annotations

from protocol_check import protocol_gaps, protocol_members

from spadegym.memory import EnvironmentMemory
from spadegym.memory.interface import MemoryLike


def test_environment_memory_implements_memory_like(memory):
    assert protocol_gaps(MemoryLike, EnvironmentMemory, memory) == []


def test_the_protocol_holds_what_its_users_call():
    attributes, methods = protocol_members(MemoryLike)
    assert attributes == {"path", "dedup"}
    assert {"check_novelty", "add", "locked", "record_plays", "frontier", "__len__"} <= methods
    assert "similar_to" not in methods  # nothing outside the memory calls it


def test_a_changed_signature_is_a_gap(memory):
    class Drifted(EnvironmentMemory):
        def check_novelty(
            self, source, *, first_obs=None, sandbox=None, start_sandbox=True
        ):  # renamed keyword
            return super().check_novelty(
                source, first_observation=first_obs, sandbox=sandbox, start_sandbox=start_sandbox
            )

        def near(self, text, k=3):  # another default
            return super().near(text, k)

    assert protocol_gaps(MemoryLike, Drifted, memory) == [
        "check_novelty: no parameter 'first_observation'",
        "near: 'k' defaults to 3, not 5",
    ]
