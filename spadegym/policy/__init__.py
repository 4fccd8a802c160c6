"""The restricted policy: compile an environment program under RestrictedPython and guard it.

This is the first sandbox layer (DESIGN.md, "Sandbox: two layers"). It refuses what the contract
forbids (section 5) with "Line N: ..." sentences meant for the designer model, and it runs a
program with guards on every attribute read, every write, every import and every builtin. It
is a linter with teeth, not the security boundary: each published RestrictedPython escape
got through some version of it, so programs also run in an isolated worker (spadegym.sandbox).

What the policy adds to RestrictedPython 9:

* ``self.x += 1`` and ``d[k] += 1`` work. They become ``target = _inplacevar_(op, target,
  value)``, so the guards see the read and the write. The target's inner expressions are
  evaluated twice (``grid[f()] += 1`` calls ``f`` twice).
* Annotations are dropped (``x: int = 0`` becomes ``x = 0``) and never evaluated. A class body
  keeps, for each field, the dotted name at the head of its annotation (``List[int]`` keeps
  ``"List"``) in ``__annotations__``, inserted after the restricted transform so that a program
  cannot write it itself; ``@dataclass`` (which tells ``ClassVar`` fields by that name) and
  ``NamedTuple`` need it.
* ``super().__init__(...)``, written exactly so, calls the next ``__init__`` in the MRO, once
  ``_super_init_`` has checked that ``super()`` is bound to an instance. Any other
  ``super().__name__`` attribute is refused like every other name that starts with "_".
* A few special methods may be defined and a few "_" attributes read (``names.SPECIAL_METHODS``
  and ``names.UNDERSCORE_READS``, each with its reason). Code may nest 100 levels deep.
* A bare ``except:`` is compiled as ``except Exception:``. Any exception the worker raises to
  enforce a deadline, if it derives from ``BaseException`` only, then passes through.
* Imports come from ``spadegym.contract.ALLOWED_IMPORTS``. Each module reaches the program as
  a read-only proxy that holds only the names listed in ``MODULE_NAMES``, each with its reason.
* Writes are allowed to dicts, lists, sets, the collections containers, and instances and
  classes the program defined. Enum members and enum classes stay constants. Modules,
  functions and library classes are read-only.
* Library callables that take names as data are offered as stand-ins that check them: enum's
  functional API, ``dataclass`` (built from a checked snapshot of the annotations, which no
  program code can reach while it runs); ``classmethod`` wraps functions only (chained
  descriptors would run program code on a class lookup) and ``functools.cached_property``
  caches under its checked class-statement name only; metaclasses are refused, and
  ``type()`` hands out only the classes a program holds anyway. Attributes named ``format``
  or ``format_map`` are refused on every object.

Dataclasses look string annotations up in ``sys.modules[cls.__module__]``, so importing
``dataclasses`` registers an inert module under the program's module name there (it holds only
``ClassVar``, ``InitVar``, ``typing`` and ``dataclasses``).

The package holds one concept per module: ``names`` (the allow-lists, with their reasons),
``static`` (the "Line N: ..." checks), ``transform`` (the rewrites above), ``compiler``
(``check_source``, ``compile_program``), ``guards`` (``new_globals`` and the runtime guards),
``standins`` (the checked stand-ins for enum, dataclass, class building and ``super().__init__``),
``descriptors`` (the classmethod and cached_property stand-ins)
and ``loader`` (``load_program``).
"""

from __future__ import annotations

from spadegym.policy.compiler import check_source, compile_program
from spadegym.policy.guards import PRINT_LIMIT as PRINT_LIMIT
from spadegym.policy.guards import new_globals
from spadegym.policy.loader import LoadedProgram, load_program
from spadegym.policy.names import BUILTIN_NAMES, MODULE_NAMES, WITHHELD_BUILTINS

__all__ = [
    "BUILTIN_NAMES",
    "MODULE_NAMES",
    "WITHHELD_BUILTINS",
    "LoadedProgram",
    "check_source",
    "compile_program",
    "load_program",
    "new_globals",
]
