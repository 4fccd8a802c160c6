"""``Registry`` implements ``RegistryLike``, the protocol ``generate`` is written against."""

from __future__ import annotations

from protocol_check import protocol_gaps, protocol_members

from spadegym.registry import Registry
from spadegym.registry.interface import RegistryLike


def test_registry_implements_registry_like(tmp_path):
    assert protocol_gaps(RegistryLike, Registry, Registry(tmp_path)) == []
    assert protocol_members(RegistryLike) == ({"root"}, {"admit", "get", "id_of"})


def test_a_missing_member_is_a_gap(tmp_path):
    class Partial:
        root = tmp_path

        def get(self, env_id):
            raise KeyError(env_id)

    assert protocol_gaps(RegistryLike, Partial, Partial()) == ["admit: missing", "id_of: missing"]
