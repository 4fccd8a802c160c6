"""Stand-ins for the library descriptors that would otherwise carry names or code past a check.

Two library descriptors turn into channels a program can steer:

* ``classmethod`` wraps any descriptor and, on Python before 3.13, calls that descriptor's
  ``__get__`` with the class as the instance. ``classmethod(property(f))`` then runs program
  code whenever library code merely looks the attribute up on the class (``dataclass`` does,
  for field defaults), and ``classmethod(classmethod(f))`` hands ``f`` the real metaclass
  ``type``. The stand-in wraps functions only.
* ``functools.cached_property`` reads and writes ``instance.__dict__[self.attrname]``, and
  ``attrname`` is a plain attribute: on a subclass the program defines, the program may write
  it (``"__annotations__"``), and the property then reads or writes a name that starts with
  "_" on whatever instance it is given, past every guard. The stand-in keeps the name the
  class statement gave it, checked, where no program can write it, and caches on instances
  only (never on a class, whose ``__dict__`` holds its annotations and methods).

Programs get these as the builtin ``classmethod`` and as ``functools.cached_property``.
"""

from __future__ import annotations

import builtins
import functools
import keyword
import types
from typing import Any

_MISSING = object()

_BINDING_TYPES = (types.FunctionType, type(functools.lru_cache()(len)))
"""Callables whose ``__get__`` only binds them: a program's functions, and ``lru_cache`` and
``cache`` wrappers of them (``@classmethod`` over ``@functools.cache`` is common)."""


def plain_name(name: object) -> bool:
    """An exact str that is an identifier, not a keyword, and does not start with "_"."""
    return (
        type(name) is str
        and name.isidentifier()
        and not keyword.iskeyword(name)
        and not name.startswith("_")
    )


class ChainlessClassmethod(builtins.classmethod):
    """``classmethod`` of a function only: it never chains to another descriptor's ``__get__``.

    Wrapping a ``property``, a ``cached_property``, a ``classmethod`` or a ``staticmethod`` is
    refused, so looking an attribute up on a class never runs program code nor hands out
    ``type``.
    """

    def __init__(self, function: Any, /) -> None:
        kind = type(function)
        if kind not in _BINDING_TYPES and hasattr(kind, "__get__"):
            raise TypeError(
                f"classmethod() wraps functions only, not a {kind.__name__!r} object; write a "
                "classmethod that computes the value instead"
            )
        super().__init__(function)


class GuardedCachedProperty(functools.cached_property):
    """``functools.cached_property`` whose name is the one its class statement gave it.

    The name is checked (an identifier that does not start with "_") when the class is
    created and kept where no program can write it; ``attrname`` stays readable, and writing
    it changes nothing. Values are cached on instances only.
    """

    def __init__(self, func: Any) -> None:
        super().__init__(func)
        self._spadegym_name: str | None = None

    def __set_name__(self, owner: type, name: str) -> None:
        if not plain_name(name):
            raise TypeError(
                f"cached_property name {name!r} is not allowed: names are identifiers that do "
                "not start with '_'"
            )
        if self._spadegym_name is None:
            self._spadegym_name = name
        elif name != self._spadegym_name:
            raise TypeError(
                "Cannot assign the same cached_property to two different names "
                f"({self._spadegym_name!r} and {name!r})."
            )
        self.attrname = name

    def __get__(self, instance: Any, owner: type | None = None) -> Any:
        if instance is None:
            return self
        name = self._spadegym_name
        if name is None:
            raise TypeError(
                "Cannot use cached_property instance without calling __set_name__ on it."
            )
        if isinstance(instance, type):
            raise TypeError("cached_property caches on instances only, never on a class")
        try:
            cache = instance.__dict__
        except AttributeError:
            cache = None
        if type(cache) is not dict:
            raise TypeError(
                f"No '__dict__' attribute on {type(instance).__name__!r} instance to cache "
                f"{name!r} property."
            )
        value = cache.get(name, _MISSING)
        if value is _MISSING:
            value = self.func(instance)
            cache[name] = value
        return value


# Programs and their error messages see the names of the classes these replace.
ChainlessClassmethod.__name__ = ChainlessClassmethod.__qualname__ = "classmethod"
GuardedCachedProperty.__name__ = GuardedCachedProperty.__qualname__ = "cached_property"

OFFERED: tuple[type, ...] = (ChainlessClassmethod, GuardedCachedProperty)
"""The stand-in classes, which ``type()`` may hand to programs like the classes they replace."""
