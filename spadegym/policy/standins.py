"""Stand-ins for the library callables that would let a program name special attributes.

A program cannot write a name that starts with "_", but a few library callables take names as
data and set them on classes: enum's functional API (``Enum("E", {"__reduce_ex__": f})``
defines that method), ``dataclass`` (it pastes field names into the source of the
``__init__`` it ``exec``s), a metaclass (``class M(typing.Type)`` gives ``type`` with three
arguments), and ``super().__init__`` reached from a class method (it hands out the unbound
``__init__`` of a library class, to run on any object). Each reaches programs only through the
stand-in here, which checks the names first and then calls the real thing on what it checked,
never on state a program could still change (``dataclass`` gets a snapshot of the annotations).
The descriptors that could carry names or run code past these checks (``classmethod``,
``cached_property``) have their own stand-ins in ``descriptors``.
"""

from __future__ import annotations

import builtins
import dataclasses
import enum
import inspect
import sys
import types
from typing import Any, cast

from spadegym.policy.descriptors import plain_name

_plain_name = plain_name


# --------------------------------------------------------------------------------------------
# enum: the functional API accepts plain member names only.

_ENUM_NAMES_HELP = (
    "give the names as one string ('RED GREEN'), a list of names, a list of (name, value) "
    "pairs or a dict"
)


def _enum_members(names: object) -> list:
    """The member list to hand to enum, rebuilt from ``names`` after checking each name."""
    if isinstance(names, str):  # str's own methods: a subclass cannot lie either
        members: list = str.split(str.replace(names, ",", " "))
    elif isinstance(names, dict):
        members = list(dict.items(names))  # dict's own items: a subclass cannot lie
    elif type(names) in (list, tuple):
        members = list(cast("list[Any] | tuple[Any, ...]", names))
    else:
        raise TypeError(f"Enum(name, names): {_ENUM_NAMES_HELP}")
    pairs = [m for m in members if type(m) in (tuple, list)]
    if pairs and len(pairs) != len(members):
        raise TypeError(f"Enum(name, names): do not mix names and pairs; {_ENUM_NAMES_HELP}")
    for index, member in enumerate(pairs):
        if len(member) != 2:
            raise TypeError(f"Enum(name, names): each pair is (name, value); {_ENUM_NAMES_HELP}")
        members[index] = (member[0], member[1])
    for member in members:
        name = member[0] if type(member) is tuple else member
        if not _plain_name(name):
            raise ValueError(
                f"Enum member name {name!r} is not allowed: member names are identifiers "
                "that do not start with '_'"
            )
    return members


class _GuardedEnumType(enum.EnumType):
    """The metaclass of the enum bases programs get: it checks the functional API."""

    def __call__(cls, *args: Any, **kwargs: Any) -> Any:
        if cls._member_map_ or (len(args) == 1 and not kwargs):
            return super().__call__(*args, **kwargs)  # a member lookup, such as Colour(2)
        # A member-less enum called with names: the functional API makes a new enum class.
        if (
            not args
            or len(args) > 2
            or set(kwargs) - {"names", "start"}
            or (len(args) == 2) == ("names" in kwargs)
        ):
            raise TypeError(
                "Enum(name, names) takes the class name, the member names and at most start=; "
                "define anything more with a class statement"
            )
        names = args[1] if len(args) == 2 else kwargs["names"]
        # The caller's module, as enum itself would find it (this stand-in adds a frame).
        module = sys._getframe(1).f_globals.get("__name__")
        return super().__call__(
            args[0], _enum_members(names), module=module, start=kwargs.get("start", 1)
        )


class _Enum(enum.Enum, metaclass=_GuardedEnumType):
    pass


class _IntEnum(enum.IntEnum, metaclass=_GuardedEnumType):
    pass


class _StrEnum(enum.StrEnum, metaclass=_GuardedEnumType):
    pass


class _Flag(enum.Flag, metaclass=_GuardedEnumType):
    pass


class _IntFlag(enum.IntFlag, metaclass=_GuardedEnumType):
    pass


ENUM_BASES: dict[str, type] = {}
"""The enum bases programs get, by name: member-less subclasses with the checking metaclass."""
for _base in (_Enum, _IntEnum, _StrEnum, _Flag, _IntFlag):
    _base.__name__ = _base.__qualname__ = _base.__name__[1:]
    _base.__doc__ = _base.__mro__[1].__doc__
    ENUM_BASES[_base.__name__] = _base


# --------------------------------------------------------------------------------------------
# dataclasses: only the program's own classes, with plain field names, built from a snapshot.

_DATACLASS_OPTIONS = frozenset(
    name
    for name in (
        "init repr eq order unsafe_hash frozen match_args kw_only slots weakref_slot".split()
    )
    if name in inspect.signature(dataclasses.dataclass).parameters
)

# Before 3.12, dataclasses iterates the class's live annotations dict while it looks field
# defaults up (which may run program code); from 3.12 on it copies them first.
_ITERATES_LIVE_ANNOTATIONS = sys.version_info < (3, 12)


def _dataclass_options(options: dict) -> dict[str, bool]:
    """The options, each an exact bool (so that no program code runs to read them)."""
    for name, value in options.items():
        if name not in _DATACLASS_OPTIONS:
            raise TypeError(f"dataclass() got an unexpected keyword argument {name!r}")
        if type(value) is not bool:
            raise TypeError(f"dataclass({name}=...) takes True or False")
    return dict(options)


def _field_snapshot(cls: object, module_name: str) -> dict:
    """A private copy of the class's field annotations, every name checked."""
    if not isinstance(cls, type) or cls.__module__ != module_name:
        raise TypeError("dataclass() applies only to classes the program defines")
    annotations = cls.__dict__.get("__annotations__", {})
    if type(annotations) is not dict:
        raise TypeError("dataclass(): the class's field annotations are not a dict")
    snapshot = dict(annotations)  # an exact dict: copying it runs no program code
    for name in snapshot:
        if not _plain_name(name):
            raise TypeError(
                f"dataclass field name {name!r} is not allowed: field names are "
                "identifiers that do not start with '_'"
            )
    return snapshot


def make_dataclass_standin(module_name: str):
    """``dataclasses.dataclass`` for the program whose classes carry ``module_name``.

    ``dataclass`` pastes field names into the source of the methods it ``exec``s, and it may
    run program code while it works (a field default's descriptor, say). So it never sees the
    class's own annotations dict, which such code could reach and change after the check:
    it gets a checked snapshot that nothing else holds, read-only where ``dataclasses`` reads
    it live (before Python 3.12), and the class keeps a fresh copy of it afterwards.
    """

    def dataclass(cls: type | None = None, /, **options: Any) -> Any:
        settings = _dataclass_options(options)

        def wrap(cls: type) -> type:
            snapshot = _field_snapshot(cls, module_name)
            shown = types.MappingProxyType(snapshot) if _ITERATES_LIVE_ANNOTATIONS else snapshot
            setattr(cls, "__annotations__", shown)  # noqa: B010 (a mapping proxy, not a dict)
            try:
                built: type = dataclasses.dataclass(cls, **settings)
            finally:
                cls.__annotations__ = dict(snapshot)
            if built is not cls:  # slots=True makes a new class
                built.__annotations__ = dict(snapshot)
            return built

        return wrap if cls is None else wrap(cls)

    dataclass.__doc__ = dataclasses.dataclass.__doc__
    return dataclass


# --------------------------------------------------------------------------------------------
# Classes and super().


def build_class(func: Any, name: str, *bases: Any, **kwargs: Any) -> Any:
    """``__build_class__``, refusing metaclasses (classes that derive from ``type``)."""
    cls = builtins.__build_class__(func, name, *bases, **kwargs)
    if isinstance(cls, type) and issubclass(cls, type):
        raise TypeError(
            f"class {name} derives from type: programs cannot define metaclasses; "
            "write a plain class"
        )
    return cls


def super_init(bound: object) -> Any:
    """The ``__init__`` that ``super().__init__(...)`` calls, once ``super()`` is checked.

    ``super()`` must be bound to an instance: bound to a class (in a classmethod, or a method
    called through the class with a class as ``self``) it would hand out the unbound
    ``__init__`` of a library class, to run on any object.
    """
    if type(bound) is super:
        owner = getattr(bound, "__self__", None)  # typeshed's super does not declare it
        if owner is not None and not isinstance(owner, type):
            # super()'s own lookup: the next __init__ in the MRO (mypy refuses the attribute).
            return getattr(bound, "__init__")  # noqa: B009
    raise TypeError(
        "super().__init__(...) works only inside a method called on an instance "
        "(not in a classmethod, nor through the class)"
    )
