"""The runtime guards: attribute reads, writes, imports, print, and the globals that hold them.

``new_globals`` builds the namespace a compiled program runs in, with every guard in place.
"""

from __future__ import annotations

import abc
import builtins
import collections
import enum
import functools
import importlib
import operator
import sys
import types
import typing

from RestrictedPython.Guards import guarded_iter_unpack_sequence, guarded_unpack_sequence

from spadegym.contract import ALLOWED_IMPORTS
from spadegym.policy import descriptors, standins
from spadegym.policy.names import (
    _DENIED_ATTRIBUTES,
    _FORMAT_ATTRIBUTES,
    _REGISTER_ATTRIBUTE,
    _SPECIAL_ATTRIBUTES,
    BUILTIN_NAMES,
    MODULE_NAMES,
    UNDERSCORE_READS,
    _attribute_message,
    _import_message,
    _module_name_message,
    offered_names,
)

PRINT_LIMIT = 8192
"""Characters one print collector keeps; output is never shown, only bounded."""

_WRITABLE_TYPES = frozenset(
    {
        dict,
        list,
        set,
        collections.ChainMap,
        collections.Counter,
        collections.OrderedDict,
        collections.defaultdict,
        collections.deque,
    }
)

_INPLACE_OPERATORS = {
    "+=": operator.iadd,
    "-=": operator.isub,
    "*=": operator.imul,
    "/=": operator.itruediv,
    "%=": operator.imod,
    "**=": operator.ipow,
    "<<=": operator.ilshift,
    ">>=": operator.irshift,
    "|=": operator.ior,
    "^=": operator.ixor,
    "&=": operator.iand,
    "//=": operator.ifloordiv,
    "@=": operator.imatmul,
}

_RE_FLAG_POSITION = {"compile": 1, "search": 2, "match": 2, "fullmatch": 2, "findall": 2}
_RE_FLAG_POSITION.update({"finditer": 2, "sub": 4, "subn": 4, "split": 3})
"""Where each re function takes its flags, positionally."""


# --------------------------------------------------------------------------------------------
# Runtime guards. Each runs on every attribute read or write: keep them to a few type checks.


# Objects whose register() would change isinstance() for every caller: abstract base classes,
# and the typing aliases that forward non-dunder attributes to one (typing.Mapping.register).
_REGISTRIES = (abc.ABCMeta, vars(typing)["_BaseGenericAlias"], types.GenericAlias)


def _underscore_read(ob: object, name: str) -> object:
    """The attributes of ``UNDERSCORE_READS``, each on the objects its reason names."""
    if name == "__name__":
        if isinstance(ob, type):
            return ob.__name__
        raise AttributeError(
            '"__name__" is readable on classes only; write type(obj).__name__ for an object\'s '
            "class name"
        )
    if isinstance(ob, tuple) or (isinstance(ob, type) and issubclass(ob, tuple)):
        return getattr(ob, name)
    raise AttributeError(f'"{name}" is readable on namedtuples only')


def _guarded_getattr(ob: object, name: str) -> object:
    if name.startswith("_") and name != "_":  # RestrictedPython allows "_" statically too
        if name in UNDERSCORE_READS:
            return _underscore_read(ob, name)
        raise AttributeError(_attribute_message(name))
    if name in _SPECIAL_ATTRIBUTES:
        if name in _DENIED_ATTRIBUTES or name in _FORMAT_ATTRIBUTES:
            raise AttributeError(_attribute_message(name))
        if name == _REGISTER_ATTRIBUTE:
            if isinstance(ob, _REGISTRIES):
                raise AttributeError(
                    "'.register' of an abstract base class is not available: it changes "
                    "isinstance() for everyone; subclass the class instead"
                )
        elif isinstance(ob, (AttributeError, NameError)):
            # CVE-2024-47532: AttributeError.obj hands out the object a lookup failed on.
            raise AttributeError(f"'.{name}' of {type(ob).__name__} is not available")
    return getattr(ob, name)


def _guarded_hasattr(ob: object, name: str) -> bool:
    if type(name) is not str:
        raise TypeError("hasattr(): the attribute name must be a str")
    try:
        _guarded_getattr(ob, name)
    except AttributeError:
        return False
    return True


@functools.cache
def _offered_classes() -> frozenset[type]:
    """Every class an allowed module offers (the enum bases as programs get them)."""
    found = set(standins.ENUM_BASES.values()) | set(descriptors.OFFERED)
    for module in MODULE_NAMES:
        real = importlib.import_module(module)
        for name in offered_names(module):
            value = getattr(real, name)
            if isinstance(value, type):
                found.add(value)
    return frozenset(found)


def _make_type(module_name: str):
    def guarded_type(ob: object, *rest: object) -> type:
        if rest:
            raise TypeError(
                "type() with three arguments is not allowed; define classes with 'class'"
            )
        cls = type(ob)
        if issubclass(cls, type):
            raise TypeError("type() of a class is not available; compare classes with 'is'")
        # Only classes the program holds anyway: a hidden library class could be called to
        # build objects the guards do not expect (typing's aliases forward attributes).
        if (
            cls.__module__ == module_name
            or cls.__module__ == "builtins"
            or cls in _offered_classes()
            or issubclass(cls, Exception)
        ):
            return cls
        raise TypeError(
            f"type() of a {cls.__name__!r} object is not available to programs; test it with "
            "isinstance()"
        )

    return guarded_type


def _inplacevar(op: str, x: object, y: object) -> object:
    return _INPLACE_OPERATORS[op](x, y)


def _apply(function, *args, **kwargs):
    return function(*args, **kwargs)


class _PrintCollector:
    """The target of ``print``: keeps at most PRINT_LIMIT characters, which nobody reads."""

    def __init__(self, _getattr_: object = None) -> None:
        self._getattr_ = _getattr_
        self._parts: list[str] = []
        self._room = PRINT_LIMIT

    def write(self, text: str) -> None:
        if self._room > 0:
            kept = str(text)[: self._room]
            self._parts.append(kept)
            self._room -= len(kept)

    def flush(self) -> None:
        pass

    def __call__(self) -> str:
        return "".join(self._parts)

    def _call_print(self, *objects, **kwargs):
        if kwargs.get("file") is None:
            kwargs["file"] = self
        else:
            self._getattr_(kwargs["file"], "write")
        print(*objects, **kwargs)


def _make_write_guard(module_name: str):
    def guarded_write(ob):
        cls = type(ob)
        if cls in _WRITABLE_TYPES:
            return ob
        if cls.__module__ == module_name:
            if isinstance(ob, enum.Enum):
                raise TypeError("enum members are constants and cannot be changed")
            return ob
        if isinstance(ob, type) and ob.__module__ == module_name:
            if issubclass(ob, enum.Enum):
                raise TypeError("enum classes are constants and cannot be changed")
            return ob
        if isinstance(ob, types.ModuleType):
            raise TypeError(f"module '{ob.__name__}' is read-only")
        raise TypeError(
            f"cannot change a {cls.__name__!r} object; programs may change their own objects, "
            "dicts, lists and sets"
        )

    return guarded_write


def _no_debug(function, position: int):
    def guarded(*args, **kwargs):
        flags = args[position] if len(args) > position else kwargs.get("flags", 0)
        if isinstance(flags, int) and flags & 128:  # re.DEBUG
            raise ValueError("re.DEBUG is not available: it prints the compiled pattern")
        return function(*args, **kwargs)

    guarded.__name__ = function.__name__
    guarded.__doc__ = function.__doc__
    return guarded


def _module_proxy(name: str, module_name: str, proxy_for) -> types.ModuleType:
    """A fresh read-only stand-in for an allowed module, holding only its vetted names."""
    real = importlib.import_module(name)
    proxy = types.ModuleType(name, real.__doc__)
    for attribute in offered_names(name):
        value = getattr(real, attribute)
        if f"{name}.{attribute}" in MODULE_NAMES:
            value = proxy_for(f"{name}.{attribute}")  # a submodule: collections.abc
        elif name == "re" and attribute in _RE_FLAG_POSITION:
            value = _no_debug(value, _RE_FLAG_POSITION[attribute])
        elif name == "enum" and attribute in standins.ENUM_BASES:
            value = standins.ENUM_BASES[attribute]
        elif name == "functools" and attribute == "cached_property":
            value = descriptors.GuardedCachedProperty
        elif name == "dataclasses" and attribute == "dataclass":
            value = standins.make_dataclass_standin(module_name)
        setattr(proxy, attribute, value)

    def missing(attribute: str):
        raise AttributeError(_module_name_message(name, attribute))

    vars(proxy)["__getattr__"] = missing  # the module's own __getattr__ (PEP 562)
    return proxy


def _register_annotation_module(module_name: str) -> None:
    """Let dataclasses resolve ClassVar and InitVar in string annotations (package docstring)."""
    if module_name in sys.modules:
        return
    import dataclasses
    import typing

    inert = types.ModuleType(module_name, "Annotation names for spadegym programs.")
    names = {"ClassVar": typing.ClassVar, "InitVar": dataclasses.InitVar}
    vars(inert).update(names, typing=typing, dataclasses=dataclasses)
    sys.modules[module_name] = inert


def _make_import(module_name: str):
    proxies: dict[str, types.ModuleType] = {}

    def proxy_for(name: str) -> types.ModuleType:
        if name not in proxies:
            if name == "dataclasses":
                _register_annotation_module(module_name)
            if name in MODULE_NAMES:
                proxies[name] = _module_proxy(name, module_name, proxy_for)
            else:  # "import spadegym.program" binds a package that offers only the submodule
                proxies[name] = types.ModuleType(name)
        return proxies[name]

    def guarded_import(name, globals=None, locals=None, fromlist=(), level=0):
        if level:
            raise ImportError("relative imports are not allowed; a program is a single module")
        if name not in ALLOWED_IMPORTS:
            raise ImportError(_import_message(name))
        module = proxy_for(name)
        if fromlist or "." not in name:
            return module
        # "import a.b" binds a, which must then hold b (collections.abc, spadegym.program).
        top, _, rest = name.partition(".")
        package = proxy_for(top)
        if getattr(package, rest, None) is not module:
            setattr(package, rest, module)
        return package

    return guarded_import


def new_globals(module_name: str = "spade_program") -> dict:
    """A fresh globals dict for one program, with restricted builtins and every guard.

    Args:
        module_name: the program's ``__name__``; classes defined by the program carry it as
            ``__module__``, which is how the write guard recognises them.

    Returns:
        A dict to pass to ``exec`` together with the code of ``compile_program``.
    """
    guarded_builtins = {name: getattr(builtins, name) for name in BUILTIN_NAMES}
    guarded_builtins["classmethod"] = descriptors.ChainlessClassmethod
    guarded_builtins["hasattr"] = _guarded_hasattr
    guarded_builtins["type"] = _make_type(module_name)
    guarded_builtins["__build_class__"] = standins.build_class
    guarded_builtins["__import__"] = _make_import(module_name)
    return {
        "__builtins__": guarded_builtins,
        "__name__": module_name,
        "__metaclass__": type,
        "_getattr_": _guarded_getattr,
        "_write_": _make_write_guard(module_name),
        "_getitem_": operator.getitem,
        "_getiter_": iter,
        "_iter_unpack_sequence_": guarded_iter_unpack_sequence,
        "_unpack_sequence_": guarded_unpack_sequence,
        "_inplacevar_": _inplacevar,
        "_apply_": _apply,
        "_print_": _PrintCollector,
        "_super_init_": standins.super_init,
    }
