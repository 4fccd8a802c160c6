"""``protocol_gaps``: how a class falls short of a ``typing.Protocol``, member by member.

Protocols in spadegym are not ``runtime_checkable`` unless the library checks them with
``isinstance``, and ``isinstance`` would only look at names anyway. This compares each method's
parameters (names, kinds, defaults) and each attribute, so a renamed keyword or a changed
default in the real class fails the test that pins its protocol.
"""

from __future__ import annotations

import inspect
from typing import Any, Protocol

_DUNDERS = {"__len__", "__contains__", "__iter__", "__enter__", "__exit__", "__call__"}


def protocol_members(protocol: type) -> tuple[set[str], set[str]]:
    """The protocol's attributes (annotated names) and methods, its bases' included."""
    attributes: set[str] = set()
    methods: set[str] = set()
    for base in protocol.__mro__:
        if base in (object, Protocol) or not getattr(base, "_is_protocol", False):
            continue
        attributes |= set(base.__dict__.get("__annotations__", {}))
        methods |= {
            name
            for name, value in vars(base).items()
            if callable(value) and (not name.startswith("_") or name in _DUNDERS)
        }
    return attributes, methods


def _signature_gaps(name: str, wanted: Any, given: Any) -> list[str]:
    gaps = []
    if inspect.iscoroutinefunction(wanted) != inspect.iscoroutinefunction(given):
        gaps.append(f"{name}: async in one and not the other")
    want = inspect.signature(wanted).parameters
    have = inspect.signature(given).parameters
    for pname, p in want.items():
        q = have.get(pname)
        if q is None:
            gaps.append(f"{name}: no parameter {pname!r}")
        elif q.kind != p.kind:
            gaps.append(f"{name}: {pname!r} is {q.kind.description}, not {p.kind.description}")
        elif p.default is not inspect.Parameter.empty and q.default != p.default:
            gaps.append(f"{name}: {pname!r} defaults to {q.default!r}, not {p.default!r}")
    for pname, q in have.items():
        if (
            pname not in want
            and q.default is inspect.Parameter.empty
            and q.kind
            not in (
                inspect.Parameter.VAR_POSITIONAL,
                inspect.Parameter.VAR_KEYWORD,
            )
        ):
            gaps.append(f"{name}: extra required parameter {pname!r}")
    return gaps


def protocol_gaps(protocol: type, cls: type, instance: Any = None) -> list[str]:
    """Every way ``cls`` (and ``instance``, for attributes) does not implement ``protocol``."""
    attributes, methods = protocol_members(protocol)
    gaps = []
    for name in sorted(methods):
        given = inspect.getattr_static(cls, name, None)
        if given is None or not callable(getattr(cls, name)):
            gaps.append(f"{name}: missing")
        else:
            gaps += _signature_gaps(name, getattr(protocol, name), getattr(cls, name))
    if instance is not None:
        gaps += [
            f"{name}: no attribute" for name in sorted(attributes) if not hasattr(instance, name)
        ]
    return gaps
